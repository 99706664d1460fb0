func.func @compare_unknown_direction(%a: tensor<4xf32>) {
  %0 = trace.compare lte, %a, %a : tensor<4xf32>
  return
}
