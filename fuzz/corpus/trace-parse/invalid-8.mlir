func.func @select_cond_not_bool(%c: tensor<4xf32>, %a: tensor<4xf32>) {
  %0 = trace.select %c, %a, %a : tensor<4xf32>, tensor<4xf32>
  return
}
