func.func @f(%x: tensor<2x3xf32>) -> tensor<2xf32> {
  %s = trace.reduce_sum %x dims = [2] : tensor<2x3xf32> -> tensor<2xf32>
  return %s : tensor<2xf32>
}
