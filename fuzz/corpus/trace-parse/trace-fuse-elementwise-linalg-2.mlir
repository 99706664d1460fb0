// exp feeds a broadcast consumer that reads each element 8 times: not fused
// (it would compute exp 8 times per element).
func.func @no_recompute_under_broadcast(%x: tensor<4xf32>) -> tensor<8x4xf32> {
  %e = trace.exp %x : tensor<4xf32>
  %b = trace.broadcast_in_dim %e, dims = [1] : tensor<4xf32> -> tensor<8x4xf32>
  %t = trace.tanh %b : tensor<8x4xf32>
  return %t : tensor<8x4xf32>
}
