// trace-autodiff's forward/backward split: a checkpoint region saves only
// its inputs (and its outputs, which are ordinary values), the backward
// recomputes its body; a policy keeps what it names; print-saved reports.



// Recomputation of the region first: the matmul and tanh, not saved.
func.func @forward(%x: tensor<4x8xf32> {trace.name = "x"}, %w: tensor<8x3xf32> {trace.name = "fc.weight"},
                   %v: tensor<4x2xf32>)
    -> (tensor<4x3xf32> {trace.name = "out"}) {
  %r = trace.checkpoint "blk" ins(%a = %x : tensor<4x8xf32>, %b = %w : tensor<8x3xf32>) -> tensor<4x3xf32> {
    %m = trace.matmul %a, %b : tensor<4x8xf32>, tensor<8x3xf32> -> tensor<4x3xf32>
    %t = trace.tanh %m : tensor<4x3xf32>
    %s = trace.mul %t, %t : tensor<4x3xf32>
    trace.yield %s : tensor<4x3xf32>
  }
  return %r : tensor<4x3xf32>
}

// The policy keeps the tanh output: nothing is recomputed.
func.func @policy(%x: tensor<4x8xf32> {trace.name = "x"}, %w: tensor<8x3xf32> {trace.name = "fc.weight"})
    -> (tensor<4x3xf32> {trace.name = "out"}) {
  %r = trace.checkpoint "blk" policy = #trace.policy<save_names = ["blk.t"]>
      ins(%a = %x : tensor<4x8xf32>, %b = %w : tensor<8x3xf32>) -> tensor<4x3xf32> {
    %m = trace.matmul %a, %b : tensor<4x8xf32>, tensor<8x3xf32> -> tensor<4x3xf32>
    %t = trace.tanh %m {trace.name = "blk.t"} : tensor<4x3xf32>
    %s = trace.mul %t, %t : tensor<4x3xf32>
    trace.yield %s : tensor<4x3xf32>
  }
  return %r : tensor<4x3xf32>
}

// Two regions in a row: the backward recomputes the second region, runs its
// backward, and only then recomputes the first (peak memory holds one
// region's activations at a time).
func.func @two(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = trace.checkpoint "first" ins(%in = %x : tensor<4xf32>) -> tensor<4xf32> {
    %e = trace.exp %in : tensor<4xf32>
    %m = trace.mul %e, %e : tensor<4xf32>
    trace.yield %m : tensor<4xf32>
  }
  %b = trace.checkpoint "second" ins(%in = %a : tensor<4xf32>) -> tensor<4xf32> {
    %t = trace.tanh %in : tensor<4xf32>
    %n = trace.mul %t, %t : tensor<4xf32>
    trace.yield %n : tensor<4xf32>
  }
  return %b : tensor<4xf32>
}
