func.func @constant_type_mismatch() {
  %0 = "trace.constant"() {value = dense<1.0> : tensor<4xf32>} : () -> tensor<5xf32>
  return
}
