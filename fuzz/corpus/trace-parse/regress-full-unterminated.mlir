func.func @full_not_a_number() {
  %0 = trace.full pi : tensor<4xf32>
  return
}
