func.func @convert_constants() -> (tensor<3xi32>, tensor<3xi1>, tensor<2xbf16>) {
  %f = trace.constant dense<[1.7, -2.9, 0.0]> : tensor<3xf32>
  // Float to integer truncates toward zero; anything to i1 is x != 0.
  %0 = trace.convert %f : tensor<3xf32> -> tensor<3xi32>
  %1 = trace.convert %f : tensor<3xf32> -> tensor<3xi1>
  %t = trace.full true : tensor<2xi1>
  %2 = trace.convert %t : tensor<2xi1> -> tensor<2xbf16>
  return %0, %1, %2 : tensor<3xi32>, tensor<3xi1>, tensor<2xbf16>
}
