// Both operands of a batched matmul (q @ k^T has only the right one).
func.func @batch_both(%a: tensor<4x16x8xf32>, %b: tensor<4x6x16xf32>, %acc: tensor<4x8x6xf32>) -> tensor<4x8x6xf32> {
  %ea = tensor.empty() : tensor<4x8x16xf32>
  %at = linalg.transpose ins(%a : tensor<4x16x8xf32>) outs(%ea : tensor<4x8x16xf32>) permutation = [0, 2, 1]
  %eb = tensor.empty() : tensor<4x16x6xf32>
  %bt = linalg.transpose ins(%b : tensor<4x6x16xf32>) outs(%eb : tensor<4x16x6xf32>) permutation = [0, 2, 1]
  %m = linalg.batch_matmul ins(%at, %bt : tensor<4x8x16xf32>, tensor<4x16x6xf32>) outs(%acc : tensor<4x8x6xf32>) -> tensor<4x8x6xf32>
  return %m : tensor<4x8x6xf32>
}
