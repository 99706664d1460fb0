func.func @matmul_rank(%a: tensor<4xf32>, %b: tensor<4xf32>) {
  %0 = trace.matmul %a, %b : tensor<4xf32>, tensor<4xf32> -> tensor<f32>
  return
}
