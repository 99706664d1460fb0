func.func @random_int_result(%seed: tensor<i64>) {
  %0 = trace.random_uniform %seed, offset = 0 : tensor<4xi32>
  return
}
