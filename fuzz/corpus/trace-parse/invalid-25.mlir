func.func @broadcast_element_type(%x: tensor<8xf32>) {
  %0 = trace.broadcast_in_dim %x, dims = [1] : tensor<8xf32> -> tensor<4x8xf16>
  return
}
