func.func @random_negative_offset(%seed: tensor<i64>) {
  %0 = trace.random_uniform %seed, offset = -1 : tensor<4xf32>
  return
}
