func.func @full_not_scalar() {
  %0 = "trace.full"() {value = dense<1.0> : tensor<4xf32>} : () -> tensor<4xf32>
  return
}
