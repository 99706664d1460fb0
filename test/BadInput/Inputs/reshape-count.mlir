func.func @f(%x: tensor<2x3xf32>) -> tensor<7xf32> {
  %r = trace.reshape %x : tensor<2x3xf32> -> tensor<7xf32>
  return %r : tensor<7xf32>
}
