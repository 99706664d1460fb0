func.func @concatenate_rank(%a: tensor<4xf32>, %b: tensor<4x1xf32>) {
  %0 = trace.concatenate %a, %b dim = 0 : (tensor<4xf32>, tensor<4x1xf32>) -> tensor<8xf32>
  return
}
