func.func @transpose_result_type(%x: tensor<4x8xf32>) {
  %0 = trace.transpose %x, perm = [1, 0] : tensor<4x8xf32> -> tensor<4x8xf32>
  return
}
