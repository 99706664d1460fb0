func.func @iota_rank0() {
  %0 = trace.iota dim = 0 : tensor<i64>
  return
}
