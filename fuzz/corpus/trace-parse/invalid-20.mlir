func.func @random_seed_rank(%seed: tensor<2xi64>) {
  %0 = "trace.random_uniform"(%seed) {offset = 0 : i64} : (tensor<2xi64>) -> tensor<4xf32>
  return
}
