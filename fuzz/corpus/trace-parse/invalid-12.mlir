func.func @full_bool_for_float() {
  %0 = trace.full true : tensor<4xf32>
  return
}
