func.func @transpose_perm_size(%x: tensor<4x8xf32>) {
  %0 = trace.transpose %x, perm = [0, 1, 2] : tensor<4x8xf32> -> tensor<4x8xf32>
  return
}
