// Two layers: the plain cut saves both tanh outputs (their gradients and
// the second matmul's read them), nothing else.
func.func @two_layers(%x: tensor<4x8xf32> {trace.name = "x"}, %w1: tensor<8x16xf32> {trace.name = "w1"}, %w2: tensor<16x16xf32> {trace.name = "w2"}) -> tensor<4x16xf32> {
  %m1 = trace.matmul %x, %w1 {trace.name = "m1"} : tensor<4x8xf32>, tensor<8x16xf32> -> tensor<4x16xf32>
  %t1 = trace.tanh %m1 {trace.name = "t1"} : tensor<4x16xf32>
  %m2 = trace.matmul %t1, %w2 {trace.name = "m2"} : tensor<4x16xf32>, tensor<16x16xf32> -> tensor<4x16xf32>
  %t2 = trace.tanh %m2 {trace.name = "t2"} : tensor<4x16xf32>
  return %t2 : tensor<4x16xf32>
}
