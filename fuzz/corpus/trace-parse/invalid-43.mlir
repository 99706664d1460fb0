func.func @matmul_k(%a: tensor<4x3xf32>, %b: tensor<4x5xf32>) {
  %0 = trace.matmul %a, %b : tensor<4x3xf32>, tensor<4x5xf32> -> tensor<4x5xf32>
  return
}
