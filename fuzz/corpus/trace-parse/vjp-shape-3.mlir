// A broadcast that changes nothing: g passes through unchanged.
func.func @broadcast_identity(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %r = trace.broadcast_in_dim %x, dims = [0, 1] : tensor<2x3xf32> -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}
