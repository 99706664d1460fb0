func.func @reduce_bool(%x: tensor<4xi1>) {
  %0 = trace.reduce_sum %x dims = [0] : tensor<4xi1> -> tensor<i1>
  return
}
