func.func @slice_bounds(%x: tensor<4x8xf32>) {
  %0 = trace.slice %x [0:4, 2:9] : tensor<4x8xf32> -> tensor<4x7xf32>
  return
}
