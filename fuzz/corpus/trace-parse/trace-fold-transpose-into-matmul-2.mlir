// A transpose that moves the batch dim is not a matmul transpose: kept.
func.func @batch_dim_moved(%a: tensor<8x4x16xf32>, %b: tensor<4x16x6xf32>, %acc: tensor<4x8x6xf32>) -> tensor<4x8x6xf32> {
  %ea = tensor.empty() : tensor<4x8x16xf32>
  %at = linalg.transpose ins(%a : tensor<8x4x16xf32>) outs(%ea : tensor<4x8x16xf32>) permutation = [1, 0, 2]
  %m = linalg.batch_matmul ins(%at, %b : tensor<4x8x16xf32>, tensor<4x16x6xf32>) outs(%acc : tensor<4x8x6xf32>) -> tensor<4x8x6xf32>
  return %m : tensor<4x8x6xf32>
}
