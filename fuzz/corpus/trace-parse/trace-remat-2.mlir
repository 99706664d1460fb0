// A checkpoint region's values are never saved, its matmul included: the
// backward recomputes the region from its inputs. Its output is an
// ordinary value, which the cut also chooses to recompute here (one mul
// on top of the region's recomputation, instead of 256 bytes).
func.func @region(%x: tensor<4x8xf32> {trace.name = "x"}, %w: tensor<8x16xf32> {trace.name = "w"}) -> tensor<4x16xf32> {
  %r = trace.checkpoint "blk" ins(%a = %x : tensor<4x8xf32>, %b = %w : tensor<8x16xf32>) -> tensor<4x16xf32> {
    %m = trace.matmul %a, %b {trace.name = "blk.mm"} : tensor<4x8xf32>, tensor<8x16xf32> -> tensor<4x16xf32>
    %t = trace.tanh %m {trace.name = "blk.t"} : tensor<4x16xf32>
    %s = trace.mul %t, %t {trace.name = "blk.s"} : tensor<4x16xf32>
    trace.yield %s : tensor<4x16xf32>
  }
  %o = trace.sin %r {trace.name = "out"} : tensor<4x16xf32>
  return %o : tensor<4x16xf32>
}
