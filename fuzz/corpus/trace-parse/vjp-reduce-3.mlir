// reduce_max with keepdim: the same, with g, y and the count of shape [2, 1].
func.func @reduce_max_keepdim(%x: tensor<2x3xf32>) -> tensor<2x1xf32> {
  %r = trace.reduce_max %x dims = [1] keepdim : tensor<2x3xf32> -> tensor<2x1xf32>
  return %r : tensor<2x1xf32>
}
