func.func @forward(%x: tensor<2x3xf32> {trace.name = "x"}) -> (tensor<2x3xf32> {trace.name = "y"}) {
  %e = trace.exp %x : tensor<2x3xf32>
  %t = trace.tanh %x : tensor<2x3xf32>
  %s = trace.add %e, %t : tensor<2x3xf32>
  return %s : tensor<2x3xf32>
}
