// sub: da = g, db = -g.
func.func @sub(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %r = trace.sub %a, %b : tensor<4xf32>
  return %r : tensor<4xf32>
}
