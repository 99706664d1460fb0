func.func @forward(%x: tensor<4xf32>) -> tensor<5xf32> {
  %r = trace.reshape %x : tensor<4xf32> -> tensor<5xf32>
  return %r : tensor<5xf32>
}
