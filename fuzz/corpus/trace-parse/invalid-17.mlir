func.func @iota_dim() {
  %0 = trace.iota dim = 2 : tensor<4x4xi64>
  return
}
