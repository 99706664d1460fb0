func.func @forward(%x: tensor<4x8xf32> {trace.name = "x"},
                   %w: tensor<8x3xf32> {trace.name = "fc.weight"})
    -> (tensor<4x3xf32> {trace.name = "out"}) {
  %h = trace.matmul %x, %w : tensor<4x8xf32>, tensor<8x3xf32> -> tensor<4x3xf32>
  %t = trace.tanh %h : tensor<4x3xf32>
  return %t : tensor<4x3xf32>
}

func.func @other(%x: tensor<2xbf16>) -> tensor<2xbf16> {
  %e = trace.exp %x : tensor<2xbf16>
  return %e : tensor<2xbf16>
}
