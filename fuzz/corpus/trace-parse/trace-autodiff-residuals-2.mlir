// An iota is rebuilt like a constant.
func.func @ramp(%x: tensor<4xf32>) -> tensor<4xf32> {
  %i = trace.iota dim = 0 : tensor<4xf32>
  %r = trace.mul %x, %i : tensor<4xf32>
  return %r : tensor<4xf32>
}
