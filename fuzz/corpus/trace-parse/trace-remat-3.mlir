// The region's policy lets matmul outputs be saved: the matmul is then
// under the cost rules (not recomputed) and its output is saved; the rest
// of the region is still recomputed.
func.func @region_policy(%x: tensor<4x8xf32> {trace.name = "x"}, %w: tensor<8x16xf32> {trace.name = "w"}) -> tensor<4x16xf32> {
  %r = trace.checkpoint "blk" policy = #trace.policy<save_ops = ["trace.matmul"]> ins(%a = %x : tensor<4x8xf32>, %b = %w : tensor<8x16xf32>) -> tensor<4x16xf32> {
    %m = trace.matmul %a, %b {trace.name = "blk.mm"} : tensor<4x8xf32>, tensor<8x16xf32> -> tensor<4x16xf32>
    %t = trace.tanh %m {trace.name = "blk.t"} : tensor<4x16xf32>
    %s = trace.mul %t, %t {trace.name = "blk.s"} : tensor<4x16xf32>
    trace.yield %s : tensor<4x16xf32>
  }
  %o = trace.sin %r {trace.name = "out"} : tensor<4x16xf32>
  return %o : tensor<4x16xf32>
}
