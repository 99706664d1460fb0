func.func @convert_shape(%a: tensor<4xf32>) {
  %0 = trace.convert %a : tensor<4xf32> -> tensor<5xf16>
  return
}
