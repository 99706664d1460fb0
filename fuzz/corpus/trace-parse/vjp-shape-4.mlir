// reshape: dx = reshape(g) back to the operand's shape.
func.func @reshape(%x: tensor<2x6xf32>) -> tensor<3x4xf32> {
  %r = trace.reshape %x : tensor<2x6xf32> -> tensor<3x4xf32>
  return %r : tensor<3x4xf32>
}
