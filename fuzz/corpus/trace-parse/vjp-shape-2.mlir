// A scalar broadcast to [2, 3]: every dim is new, the sum is rank 0.
func.func @broadcast_scalar(%x: tensor<f32>) -> tensor<2x3xf32> {
  %r = trace.broadcast_in_dim %x, dims = [] : tensor<f32> -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}
