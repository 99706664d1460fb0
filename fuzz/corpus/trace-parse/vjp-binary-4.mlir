// pow, y = a^b (torch's pow_backward_self and pow_backward_exponent):
//   da = b == 0 ? 0 : g * (b * a^(b - 1))
//   db = a == 0 ? (b >= 0 ? 0 : g * (y * log(a))) : g * (y * log(a))
func.func @pow(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %r = trace.pow %a, %b : tensor<4xf32>
  return %r : tensor<4xf32>
}
