// mul: da = g * b, db = g * a.
func.func @mul(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %r = trace.mul %a, %b : tensor<4xf32>
  return %r : tensor<4xf32>
}
