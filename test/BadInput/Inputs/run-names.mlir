func.func @same(%x: tensor<2xf32> {trace.name = "w"}, %y: tensor<2xf32> {trace.name = "w"}) -> tensor<2xf32> {
  %s = trace.add %x, %y : tensor<2xf32>
  return %s : tensor<2xf32>
}
func.func @slash(%x: tensor<2xf32> {trace.name = "../x"}) -> tensor<2xf32> {
  return %x : tensor<2xf32>
}
func.func @int8(%x: tensor<2xi8>) -> tensor<2xi8> {
  return %x : tensor<2xi8>
}
func.func private @extern(%x: tensor<2xf32>) -> tensor<2xf32>
