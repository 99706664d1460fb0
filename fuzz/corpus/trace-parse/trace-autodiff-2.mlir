// An op without a derivative rule between an argument and a result is an
// error at that op.
func.func @opaque(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = "foo.bar"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}
