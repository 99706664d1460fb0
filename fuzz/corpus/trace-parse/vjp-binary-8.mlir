// One value as both operands: d(a * a) = g * a + g * a, the two cotangents
// summed in operand order.
func.func @mul_same(%a: tensor<4xf32>) -> tensor<4xf32> {
  %r = trace.mul %a, %a : tensor<4xf32>
  return %r : tensor<4xf32>
}
