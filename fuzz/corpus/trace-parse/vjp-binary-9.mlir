// select: don_true = c ? g : 0, don_false = c ? 0 : g; the i1 condition, an
// argument here, has no gradient result.
func.func @select(%c: tensor<2x3xi1>, %a: tensor<2x3xf32>, %b: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %r = trace.select %c, %a, %b : tensor<2x3xi1>, tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}
