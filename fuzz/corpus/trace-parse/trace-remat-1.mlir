// Saving the narrow value is cheaper: the 4x1 matmul output (16 bytes) is
// saved, not its 4x256 broadcast or the exp of it (4096 bytes each), which
// @narrow_bwd recomputes.
func.func @narrow(%x: tensor<4x8xf32> {trace.name = "x"}, %w: tensor<8x1xf32> {trace.name = "w"}) -> tensor<4x256xf32> {
  %m = trace.matmul %x, %w {trace.name = "proj"} : tensor<4x8xf32>, tensor<8x1xf32> -> tensor<4x1xf32>
  %b = trace.broadcast_in_dim %m, dims = [0, 1] {trace.name = "wide"} : tensor<4x1xf32> -> tensor<4x256xf32>
  %e = trace.exp %b {trace.name = "e"} : tensor<4x256xf32>
  return %e : tensor<4x256xf32>
}
