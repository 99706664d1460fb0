// reduce_sum with keepdim: every dim of g is mapped, the size-1 ones
// stretched.
func.func @reduce_sum_keepdim(%x: tensor<2x3x4xf32>) -> tensor<1x3x1xf32> {
  %r = trace.reduce_sum %x dims = [0, 2] keepdim : tensor<2x3x4xf32> -> tensor<1x3x1xf32>
  return %r : tensor<1x3x1xf32>
}
