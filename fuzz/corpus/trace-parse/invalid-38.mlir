func.func @reduce_dim_range(%x: tensor<4x8xf32>) {
  %0 = trace.reduce_sum %x dims = [2] : tensor<4x8xf32> -> tensor<4xf32>
  return
}
