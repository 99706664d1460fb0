func.func @full_float_for_int() {
  %0 = trace.full 1.5 : tensor<4xi32>
  return
}
