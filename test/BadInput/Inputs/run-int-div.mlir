func.func @forward(%x: tensor<4xi32> {trace.name = "x"}, %y: tensor<4xi32> {trace.name = "y"}) -> (tensor<4xi32> {trace.name = "q"}) {
  %q = trace.div %x, %y : tensor<4xi32>
  return %q : tensor<4xi32>
}
