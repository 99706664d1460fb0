func.func @reshape_count(%x: tensor<4x8xf32>) {
  %0 = trace.reshape %x : tensor<4x8xf32> -> tensor<5x6xf32>
  return
}
