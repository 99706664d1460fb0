func.func @f(%x: tensor<4xf32>) -> tensor<4xf64> {
  %e = trace.exp %x : tensor<4xf32>
  return %e : tensor<4xf32>
}
