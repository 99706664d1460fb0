// A 2-d slice [1:3, 0:6:2] of a [4, 6] tensor, one dim at a time. Dim 0
// (unit stride): one zero row before and one after, [2, 3] -> [4, 3]. Dim 1
// (stride 2, 3 elements): [4, 3] -> [4, 3, 1] -> [4, 3, 2] -> [4, 6], keep
// the first (3 - 1) * 2 + 1 = 5 columns, then one zero column after.
func.func @slice_2d(%x: tensor<4x6xf32>) -> tensor<2x3xf32> {
  %r = trace.slice %x [1:3, 0:6:2] : tensor<4x6xf32> -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}
