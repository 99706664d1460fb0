// Elementwise producers fuse into consumers that read each element once;
// nothing is fused into a named op or duplicated under a broadcast.

// A chain of elementwise ops is one loop nest.
func.func @chain(%x: tensor<64xf32>) -> tensor<64xf32> {
  %a = trace.tanh %x : tensor<64xf32>
  %b = trace.exp %a : tensor<64xf32>
  %c = trace.mul %a, %b : tensor<64xf32>
  return %c : tensor<64xf32>
}
