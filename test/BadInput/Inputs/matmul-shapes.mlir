func.func @f(%a: tensor<4x8xf32>, %b: tensor<3x4xf32>) -> tensor<4x4xf32> {
  %c = trace.matmul %a, %b : tensor<4x8xf32>, tensor<3x4xf32> -> tensor<4x4xf32>
  return %c : tensor<4x4xf32>
}
