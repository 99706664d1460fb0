func.func @constant_fold_float() -> (tensor<2x2xf32>, tensor<2xf32>, tensor<3xf32>, tensor<2x2xf32>) {
  %a = trace.full 2.0 : tensor<2x2xf32>
  %b = trace.full 3.0 : tensor<2x2xf32>
  %0 = trace.add %a, %b : tensor<2x2xf32>
  %c = trace.constant dense<[4.0, 2.0]> : tensor<2xf32>
  %d = trace.constant dense<[2.0, 2.0]> : tensor<2xf32>
  %1 = trace.div %c, %d : tensor<2xf32>
  %z = trace.full 0.0 : tensor<3xf32>
  %2 = trace.exp %z : tensor<3xf32>
  %3 = trace.neg %b : tensor<2x2xf32>
  return %0, %1, %2, %3 : tensor<2x2xf32>, tensor<2xf32>, tensor<3xf32>, tensor<2x2xf32>
}
