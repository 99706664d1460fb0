// maximum (torch's rule): t = a == b ? g * 0.5 : g; the operand that loses
// gets 0: da = a < b ? 0 : t, db = a > b ? 0 : t. A tie halves g.
func.func @maximum(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %r = trace.maximum %a, %b : tensor<4xf32>
  return %r : tensor<4xf32>
}
