func.func @forward(%x: tensor<8xf32> {trace.name = "x"}) -> (tensor<8xf32> {trace.name = "exp"}, tensor<8xf32> {trace.name = "tanh"}, tensor<8xf32> {trace.name = "log"}, tensor<8xf32> {trace.name = "erf"}, tensor<8xf32> {trace.name = "logistic"}, tensor<8xf32> {trace.name = "sqrt"}, tensor<8xf32> {trace.name = "rsqrt"}, tensor<8xf32> {trace.name = "sin"}) {
  %0 = trace.exp %x : tensor<8xf32>
  %1 = trace.tanh %x : tensor<8xf32>
  %2 = trace.log %x : tensor<8xf32>
  %3 = trace.erf %x : tensor<8xf32>
  %4 = trace.logistic %x : tensor<8xf32>
  %5 = trace.sqrt %x : tensor<8xf32>
  %6 = trace.rsqrt %x : tensor<8xf32>
  %7 = trace.sin %x : tensor<8xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7 : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
}
