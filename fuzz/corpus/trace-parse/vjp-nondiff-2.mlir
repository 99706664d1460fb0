// Dropout-like scaling by random numbers: dx = g * u; the random op and its
// i64 seed get nothing (the seed has no gradient result).
func.func @random(%x: tensor<4xf32>, %seed: tensor<i64>) -> tensor<4xf32> {
  %u = trace.random_uniform %seed, offset = 0 : tensor<4xf32>
  %r = trace.mul %x, %u : tensor<4xf32>
  return %r : tensor<4xf32>
}
