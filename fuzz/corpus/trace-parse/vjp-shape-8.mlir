// concatenate: each input's cotangent is its slice of g along dim 1.
func.func @concatenate(%a: tensor<2x3xf32>, %b: tensor<2x2xf32>) -> tensor<2x5xf32> {
  %r = trace.concatenate %a, %b dim = 1 : (tensor<2x3xf32>, tensor<2x2xf32>) -> tensor<2x5xf32>
  return %r : tensor<2x5xf32>
}
