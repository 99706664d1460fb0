// A checkpoint region's output feeds only non-differentiable paths: a
// product with a float converted from integers, and a comparison. The
// output is not saved (only the dead cotangent of the converted operand
// read it); the region's input is, and the region's body is recomputed in
// @region_bwd just before its first use, after the first backward op.
// SAVED: remark: saved for backward by @region_fwd: 2 values, 32 bytes (16 of activations, 16 of arguments), 1 ops recomputed in @region_bwd
// SAVED-NEXT: saved.convert.0: tensor<4xf32>, 16 bytes, from trace.convert
// SAVED-NEXT: saved.x: tensor<4xf32>, 16 bytes, from an argument
// SAVED-NOT: saved.
// CSE-LABEL: func @region_bwd
// CSE: trace.exp
// CSE: return
func.func @region(%x: tensor<4xf32> {trace.name = "x"}, %i: tensor<4xi32>)
    -> (tensor<4xf32>, tensor<4xi1>) {
  %a = trace.checkpoint "blk" ins(%in = %x : tensor<4xf32>) -> tensor<4xf32> {
    %e = trace.exp %in : tensor<4xf32>
    %m = trace.mul %e, %e : tensor<4xf32>
    trace.yield %m : tensor<4xf32>
  }
  %f = trace.convert %i : tensor<4xi32> -> tensor<4xf32>
  %s = trace.mul %a, %f : tensor<4xf32>
  %z = trace.full 0.0 : tensor<4xf32>
  %c = trace.compare gt, %a, %z : tensor<4xf32>
  return %s, %c : tensor<4xf32>, tensor<4xi1>
}
