func.func @f(%x: tensor<8xf32>) -> tensor<4xf32> {
  %s = trace.slice %x [6:10:1] : tensor<8xf32> -> tensor<4xf32>
  return %s : tensor<4xf32>
}
