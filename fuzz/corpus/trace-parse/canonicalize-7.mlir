func.func @identities(%x: tensor<4x8xf32>, %c: tensor<4x8xi1>)
    -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>,
        tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %0 = trace.reshape %x : tensor<4x8xf32> -> tensor<4x8xf32>
  %1 = trace.transpose %x, perm = [0, 1] : tensor<4x8xf32> -> tensor<4x8xf32>
  %t = trace.transpose %x, perm = [1, 0] : tensor<4x8xf32> -> tensor<8x4xf32>
  %2 = trace.transpose %t, perm = [1, 0] : tensor<8x4xf32> -> tensor<4x8xf32>
  %3 = trace.broadcast_in_dim %x, dims = [0, 1] : tensor<4x8xf32> -> tensor<4x8xf32>
  %4 = trace.slice %x [0:4, 0:8] : tensor<4x8xf32> -> tensor<4x8xf32>
  %5 = trace.concatenate %x dim = 0 : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %6 = trace.reduce_sum %x dims = [] : tensor<4x8xf32> -> tensor<4x8xf32>
  %7 = trace.select %c, %x, %x : tensor<4x8xi1>, tensor<4x8xf32>
  %n = trace.neg %x : tensor<4x8xf32>
  %8 = trace.neg %n : tensor<4x8xf32>
  %r = trace.reshape %x : tensor<4x8xf32> -> tensor<32xf32>
  %9 = trace.reshape %r : tensor<32xf32> -> tensor<4x8xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9 : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>,
      tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>,
      tensor<4x8xf32>, tensor<4x8xf32>
}
