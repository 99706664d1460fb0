// Tensor arguments of public functions become read-only for bufferization.

func.func @public(%x: tensor<4xf32> {trace.name = "x"}, %i: i32) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}

func.func private @private(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
