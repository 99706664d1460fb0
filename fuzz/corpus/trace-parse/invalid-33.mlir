func.func @slice_stride(%x: tensor<4x8xf32>) {
  %0 = trace.slice %x [0:4:0, 0:8] : tensor<4x8xf32> -> tensor<4x8xf32>
  return
}
