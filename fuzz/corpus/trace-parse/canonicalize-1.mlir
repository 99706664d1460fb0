func.func @mul_one_div_one_sub_zero_pow_one(%x: tensor<4xf32>, %i: tensor<4xi32>)
    -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xi32>) {
  %one = trace.constant dense<1.0> : tensor<4xf32>
  %zero = trace.full 0.0 : tensor<4xf32>
  %ione = trace.full 1 : tensor<4xi32>
  %0 = trace.mul %x, %one : tensor<4xf32>
  %1 = trace.div %x, %one : tensor<4xf32>
  %2 = trace.sub %x, %zero : tensor<4xf32>
  %3 = trace.pow %x, %one : tensor<4xf32>
  %4 = trace.mul %ione, %i : tensor<4xi32>
  return %0, %1, %2, %3, %4 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xi32>
}
