// A max-shifted softmax over the last dim, as the importer decomposes
// torch.softmax: max, subtract and exp, sum, divide.
func.func @softmax(%x: tensor<8x128xf32>) -> tensor<8x128xf32> {
  %m = trace.reduce_max %x dims = [1] keepdim : tensor<8x128xf32> -> tensor<8x1xf32>
  %mb = trace.broadcast_in_dim %m, dims = [0, 1] : tensor<8x1xf32> -> tensor<8x128xf32>
  %d = trace.sub %x, %mb : tensor<8x128xf32>
  %e = trace.exp %d : tensor<8x128xf32>
  %s = trace.reduce_sum %e dims = [1] keepdim : tensor<8x128xf32> -> tensor<8x1xf32>
  %sb = trace.broadcast_in_dim %s, dims = [0, 1] : tensor<8x1xf32> -> tensor<8x128xf32>
  %y = trace.div %e, %sb : tensor<8x128xf32>
  return %y : tensor<8x128xf32>
}
