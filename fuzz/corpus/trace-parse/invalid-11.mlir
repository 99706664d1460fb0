func.func @full_value_type() {
  %0 = "trace.full"() {value = 1.0 : f64} : () -> tensor<4xf32>
  return
}
