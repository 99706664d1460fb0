// Batched matmul: the transposes swap the last two dims only.
func.func @batch_matmul(%a: tensor<2x4x6xf32>, %b: tensor<2x6x5xf32>) -> tensor<2x4x5xf32> {
  %r = trace.matmul %a, %b : tensor<2x4x6xf32>, tensor<2x6x5xf32> -> tensor<2x4x5xf32>
  return %r : tensor<2x4x5xf32>
}
