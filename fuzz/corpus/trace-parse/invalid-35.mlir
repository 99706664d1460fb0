func.func @concatenate_dim(%a: tensor<4xf32>) {
  %0 = trace.concatenate %a, %a dim = 1 : (tensor<4xf32>, tensor<4xf32>) -> tensor<8xf32>
  return
}
