// rsqrt: y = x^(-1/2), dy/dx = -1/2 x^(-3/2) = -1/2 y^3: dx = g * (-0.5 * y * y * y).
func.func @rsqrt(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = trace.rsqrt %x : tensor<4xf32>
  return %r : tensor<4xf32>
}
