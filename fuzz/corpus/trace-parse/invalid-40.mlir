func.func @reduce_keepdim_type(%x: tensor<4x8xf32>) {
  %0 = trace.reduce_sum %x dims = [1] keepdim : tensor<4x8xf32> -> tensor<4xf32>
  return
}
