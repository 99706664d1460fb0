func.func @matmul_element_types(%a: tensor<4x4xf32>, %b: tensor<4x4xf16>) {
  %0 = trace.matmul %a, %b : tensor<4x4xf32>, tensor<4x4xf16> -> tensor<4x4xf32>
  return
}
