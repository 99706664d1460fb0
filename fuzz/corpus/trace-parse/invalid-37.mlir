func.func @concatenate_other_dim(%a: tensor<4x2xf32>, %b: tensor<4x3xf32>) {
  %0 = trace.concatenate %a, %b dim = 0 : (tensor<4x2xf32>, tensor<4x3xf32>) -> tensor<8x2xf32>
  return
}
