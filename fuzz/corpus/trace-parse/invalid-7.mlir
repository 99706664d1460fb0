func.func @select_cond_shape(%c: tensor<3xi1>, %a: tensor<4xf32>) {
  %0 = trace.select %c, %a, %a : tensor<3xi1>, tensor<4xf32>
  return
}
