func.func @concatenate_empty() {
  %0 = "trace.concatenate"() {dimension = 0 : i64} : () -> tensor<4xf32>
  return
}
