// A broadcast operand (torch's a * b with b: [5] against a: [3, 5]): mul's
// rule gives the broadcast value g * a, which broadcast_in_dim's rule sums
// over the new dim 0 back to b's shape.
func.func @mul_broadcast(%a: tensor<3x5xf32>, %b: tensor<5xf32>) -> tensor<3x5xf32> {
  %bb = trace.broadcast_in_dim %b, dims = [1] : tensor<5xf32> -> tensor<3x5xf32>
  %r = trace.mul %a, %bb : tensor<3x5xf32>
  return %r : tensor<3x5xf32>
}
