// The plain cut saves the 16-byte matmul output; half of it is not enough
// for any value, so budget=0.5 recomputes from the arguments, like 0.
// ZERO-LABEL: func.func @narrow_fwd(
// ZERO-SAME: -> (tensor<4x256xf32>, tensor<4x8xf32> {trace.name = "saved.x"}, tensor<8x1xf32> {trace.name = "saved.w"})
// ABS-LABEL: func.func @narrow_fwd(
// ABS-SAME: {trace.name = "saved.proj"}
// REPORT: remark: trace-remat @narrow: saved 0 bytes of activations (trace-autodiff's split 4096, min-cut 16, budget 8 = 0.50 x min-cut) and 160 of arguments in 2 values; recomputed 3 ops, 1088 FLOPs (min-cut 1024)
func.func @narrow(%x: tensor<4x8xf32> {trace.name = "x"}, %w: tensor<8x1xf32> {trace.name = "w"}) -> tensor<4x256xf32> {
  %m = trace.matmul %x, %w {trace.name = "proj"} : tensor<4x8xf32>, tensor<8x1xf32> -> tensor<4x1xf32>
  %b = trace.broadcast_in_dim %m, dims = [0, 1] {trace.name = "wide"} : tensor<4x1xf32> -> tensor<4x256xf32>
  %e = trace.exp %b {trace.name = "e"} : tensor<4x256xf32>
  return %e : tensor<4x256xf32>
}
