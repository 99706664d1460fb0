func.func @compose(%x: tensor<2x3x4xf32>, %v: tensor<8xf32>) -> (tensor<3x4x2xf32>, tensor<24xf32>, tensor<2x4x8xf32>) {
  %t1 = trace.transpose %x, perm = [1, 0, 2] : tensor<2x3x4xf32> -> tensor<3x2x4xf32>
  %t2 = trace.transpose %t1, perm = [0, 2, 1] : tensor<3x2x4xf32> -> tensor<3x4x2xf32>
  %r1 = trace.reshape %x : tensor<2x3x4xf32> -> tensor<6x4xf32>
  %r2 = trace.reshape %r1 : tensor<6x4xf32> -> tensor<24xf32>
  %b1 = trace.broadcast_in_dim %v, dims = [1] : tensor<8xf32> -> tensor<4x8xf32>
  %b2 = trace.broadcast_in_dim %b1, dims = [1, 2] : tensor<4x8xf32> -> tensor<2x4x8xf32>
  return %t2, %r2, %b2 : tensor<3x4x2xf32>, tensor<24xf32>, tensor<2x4x8xf32>
}
