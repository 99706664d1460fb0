func.func @bad_policy(%x: tensor<4xf32>) -> tensor<4xf32> {
  %e = trace.exp %x {trace.remat = "always"} : tensor<4xf32>
  return %e : tensor<4xf32>
}
