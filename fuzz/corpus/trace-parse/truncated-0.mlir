func.func @f(%a: tensor<4xf32>) {
  %0 = trace.exp %a : tensor<4x
