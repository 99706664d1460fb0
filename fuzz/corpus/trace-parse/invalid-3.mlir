func.func @binary_type_mismatch(%a: tensor<4xf32>, %b: tensor<5xf32>) {
  %0 = "trace.add"(%a, %b) : (tensor<4xf32>, tensor<5xf32>) -> tensor<4xf32>
  return
}
