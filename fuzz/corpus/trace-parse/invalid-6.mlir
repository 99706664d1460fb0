func.func @compare_result_not_bool(%a: tensor<4xf32>) {
  %0 = "trace.compare"(%a, %a) {direction = #trace<cmp lt>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}
