// f64: the constants of a rule take the element type (erf's 2/sqrt(pi) to
// 17 digits), and the gradient is f64.
func.func @erf_f64(%x: tensor<2x3xf64>) -> tensor<2x3xf64> {
  %r = trace.erf %x : tensor<2x3xf64>
  return %r : tensor<2x3xf64>
}
