// matmul, [4, 6] x [6, 5]: da = g @ b^T ([4, 5] x [5, 6]), db = a^T @ g
// ([6, 4] x [4, 5]).
func.func @matmul(%a: tensor<4x6xf32>, %b: tensor<6x5xf32>) -> tensor<4x5xf32> {
  %r = trace.matmul %a, %b : tensor<4x6xf32>, tensor<6x5xf32> -> tensor<4x5xf32>
  return %r : tensor<4x5xf32>
}
