func.func @full_int_out_of_range() {
  %0 = trace.full 300 : tensor<4xi1>
  return
}
