// The layer-norm-like producer stays outside the matmul.
func.func @not_into_matmul(%x: tensor<8x16xf32>, %w: tensor<16x4xf32>) -> tensor<8x4xf32> {
  %a = trace.tanh %x : tensor<8x16xf32>
  %m = trace.matmul %a, %w : tensor<8x16xf32>, tensor<16x4xf32> -> tensor<8x4xf32>
  return %m : tensor<8x4xf32>
}
