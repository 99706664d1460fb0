// div: da = g / b, db = -g * a / b^2, written as -g * (y / b) (torch's form).
func.func @div(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %r = trace.div %a, %b : tensor<4xf32>
  return %r : tensor<4xf32>
}
