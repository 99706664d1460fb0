// Three inputs along dim 0: the offsets accumulate (0, 1, 3).
func.func @concatenate3(%a: tensor<1x2xf32>, %b: tensor<2x2xf32>, %c: tensor<3x2xf32>) -> tensor<6x2xf32> {
  %r = trace.concatenate %a, %b, %c dim = 0 : (tensor<1x2xf32>, tensor<2x2xf32>, tensor<3x2xf32>) -> tensor<6x2xf32>
  return %r : tensor<6x2xf32>
}
