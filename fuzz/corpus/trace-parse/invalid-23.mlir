func.func @broadcast_dims_order(%x: tensor<4x8xf32>) {
  %0 = trace.broadcast_in_dim %x, dims = [1, 0] : tensor<4x8xf32> -> tensor<8x4xf32>
  return
}
