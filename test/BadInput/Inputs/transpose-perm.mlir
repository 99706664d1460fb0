func.func @f(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %t = trace.transpose %x, perm = [1, 1] : tensor<2x3xf32> -> tensor<3x2xf32>
  return %t : tensor<3x2xf32>
}
