func.func @broadcast_dim_range(%x: tensor<8xf32>) {
  %0 = trace.broadcast_in_dim %x, dims = [2] : tensor<8xf32> -> tensor<4x8xf32>
  return
}
