// Integer division by zero is left for run time.
func.func @constant_fold_int() -> (tensor<2xi32>, tensor<2xi1>, tensor<2xi32>, tensor<2xi32>) {
  %a = trace.constant dense<[7, -7]> : tensor<2xi32>
  %b = trace.constant dense<[2, 2]> : tensor<2xi32>
  %0 = trace.div %a, %b : tensor<2xi32>
  %1 = trace.compare gt, %a, %b : tensor<2xi32>
  %2 = trace.maximum %a, %b : tensor<2xi32>
  %z = trace.full 0 : tensor<2xi32>
  %3 = trace.div %a, %z : tensor<2xi32>
  return %0, %1, %2, %3 : tensor<2xi32>, tensor<2xi1>, tensor<2xi32>, tensor<2xi32>
}
