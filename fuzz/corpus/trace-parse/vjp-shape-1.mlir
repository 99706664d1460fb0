// A size-1 operand dim that maps to a size-1 result dim is not summed: only
// the new dim 1 is, and the sum already has the operand's shape (no reshape).
func.func @broadcast_keep_one(%x: tensor<1x4xf32>) -> tensor<1x3x4xf32> {
  %r = trace.broadcast_in_dim %x, dims = [0, 2] : tensor<1x4xf32> -> tensor<1x3x4xf32>
  return %r : tensor<1x3x4xf32>
}
