// Canonicalization of checkpoint and fusion regions: unused results and
// inputs go, duplicate inputs merge, pass-through results bypass the region,
// and a region with nothing left disappears.

func.func @drop_unused_result_and_input(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %r:2 = trace.checkpoint "blk" ins(%x = %a : tensor<4xf32>, %y = %b : tensor<4xf32>)
      -> (tensor<4xf32>, tensor<4xf32>) {
    %e = trace.exp %x : tensor<4xf32>
    %t = trace.tanh %y : tensor<4xf32>
    trace.yield %e, %t : tensor<4xf32>, tensor<4xf32>
  }
  return %r#0 : tensor<4xf32>
}
