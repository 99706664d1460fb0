// reduce_max (torch.amax's rule): g is shared evenly among the elements
// equal to the max: mask = (x == broadcast(y)) as floats, dx = mask *
// broadcast(g / sum(mask)).
func.func @reduce_max(%x: tensor<2x3x4xf32>) -> tensor<2x4xf32> {
  %r = trace.reduce_max %x dims = [1] : tensor<2x3x4xf32> -> tensor<2x4xf32>
  return %r : tensor<2x4xf32>
}
