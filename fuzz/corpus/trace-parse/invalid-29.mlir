func.func @transpose_perm_range(%x: tensor<4x8xf32>) {
  %0 = trace.transpose %x, perm = [2, 0] : tensor<4x8xf32> -> tensor<4x4xf32>
  return
}
