func.func @f(%a: tensor<4xf32>) {
  %0 = trace.frobnicate %a : tensor<4xf32>
  return
}
