// NaN propagates through maximum; ne is true for NaN, lt false.
func.func @nan_semantics() -> (tensor<2xf32>, tensor<2xi1>, tensor<2xi1>) {
  %nan = trace.full 0x7FC00000 : tensor<2xf32>
  %one = trace.full 1.0 : tensor<2xf32>
  %0 = trace.maximum %nan, %one : tensor<2xf32>
  %1 = trace.compare ne, %nan, %nan : tensor<2xf32>
  %2 = trace.compare lt, %nan, %one : tensor<2xf32>
  return %0, %1, %2 : tensor<2xf32>, tensor<2xi1>, tensor<2xi1>
}
