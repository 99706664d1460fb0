// convert between float types: dx = g converted back to the operand's type.
func.func @convert(%x: tensor<4xf32>) -> tensor<4xf64> {
  %r = trace.convert %x : tensor<4xf32> -> tensor<4xf64>
  return %r : tensor<4xf64>
}
