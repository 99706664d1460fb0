func.func @compare_operand_types(%a: tensor<4xf32>, %b: tensor<4xf16>) {
  %0 = "trace.compare"(%a, %b) {direction = #trace<cmp lt>} : (tensor<4xf32>, tensor<4xf16>) -> tensor<4xi1>
  return
}
