// transpose: dx = transpose(g, inverse(perm)). perm = [2, 0, 1] is not its
// own inverse: result dim i is operand dim perm[i], so inverse = [1, 2, 0].
func.func @transpose(%x: tensor<2x3x4xf32>) -> tensor<4x2x3xf32> {
  %r = trace.transpose %x, perm = [2, 0, 1] : tensor<2x3x4xf32> -> tensor<4x2x3xf32>
  return %r : tensor<4x2x3xf32>
}
