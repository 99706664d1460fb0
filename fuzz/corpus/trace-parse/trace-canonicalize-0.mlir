// trace-canonicalize folds trace ops and cleans up regions, and leaves other
// dialects' ops alone (the upstream canonicalizer would fold the arith ops).

func.func @only_trace_ops(%x: tensor<4xf32>, %i: i32) -> (tensor<4xf32>, i32) {
  %z = trace.full 0.0 : tensor<4xf32>
  %0 = trace.add %x, %z : tensor<4xf32>
  %c0 = arith.constant 0 : i32
  %1 = arith.addi %i, %c0 : i32
  return %0, %1 : tensor<4xf32>, i32
}
