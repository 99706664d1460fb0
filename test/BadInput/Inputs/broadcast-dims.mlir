func.func @f(%x: tensor<3xf32>) -> tensor<4x8xf32> {
  %b = trace.broadcast_in_dim %x, dims = [1] : tensor<3xf32> -> tensor<4x8xf32>
  return %b : tensor<4x8xf32>
}
