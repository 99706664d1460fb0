func.func @broadcast_dims_count(%x: tensor<8xf32>) {
  %0 = trace.broadcast_in_dim %x, dims = [0, 1] : tensor<8xf32> -> tensor<4x8xf32>
  return
}
