// cos: dx = -(g * sin(x)).
func.func @cos(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = trace.cos %x : tensor<4xf32>
  return %r : tensor<4xf32>
}
