func.func @no_implicit_broadcast(%a: tensor<4x8xf32>, %b: tensor<8xf32>) {
  %0 = "trace.mul"(%a, %b) : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  return
}
