func.func @f(%a: tensor<4xf32>, %b: tensor<4xi32>) {
  %0 = trace.add %a, %b : tensor<4xf32>
  return
}
