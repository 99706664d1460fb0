func.func @transpose_perm_duplicate(%x: tensor<4x8xf32>) {
  %0 = trace.transpose %x, perm = [0, 0] : tensor<4x8xf32> -> tensor<4x4xf32>
  return
}
