func.func @broadcast_size(%x: tensor<3xf32>) {
  %0 = trace.broadcast_in_dim %x, dims = [1] : tensor<3xf32> -> tensor<4x8xf32>
  return
}
