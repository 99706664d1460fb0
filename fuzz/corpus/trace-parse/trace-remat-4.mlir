// Two regions in a row: the first region's output enters the second and is
// saved, as torch.utils.checkpoint saves a region's input, although
// recomputing it (exp and mul of the argument) would save its 16 bytes.
func.func @two_regions(%x: tensor<4xf32> {trace.name = "x"}) -> tensor<4xf32> {
  %a = trace.checkpoint "first" ins(%in = %x : tensor<4xf32>) -> tensor<4xf32> {
    %e = trace.exp %in : tensor<4xf32>
    %m = trace.mul %e, %e {trace.name = "first.out"} : tensor<4xf32>
    trace.yield %m : tensor<4xf32>
  }
  %b = trace.checkpoint "second" ins(%in = %a : tensor<4xf32>) -> tensor<4xf32> {
    %t = trace.tanh %in : tensor<4xf32>
    %n = trace.mul %t, %t : tensor<4xf32>
    trace.yield %n : tensor<4xf32>
  }
  return %b : tensor<4xf32>
}
