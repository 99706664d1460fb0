func.func @slice_ranges_count(%x: tensor<4x8xf32>) {
  %0 = trace.slice %x [0:2] : tensor<4x8xf32> -> tensor<2xf32>
  return
}
