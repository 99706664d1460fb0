// A checkpoint region whose policy saves the matmul: under budget=0 the
// matmul is recomputed after all; the region's other values never were
// saved.
// ONE-LABEL: func.func @region_fwd(
// ONE-SAME: {trace.name = "saved.blk.mm"}
// ZERO-LABEL: func.func @region_fwd(
// ZERO-SAME: -> (tensor<4x16xf32>, tensor<4x8xf32> {trace.name = "saved.x"}, tensor<8x16xf32> {trace.name = "saved.w"})
// ZERO-LABEL: func.func @region_bwd(
// ZERO-NEXT: trace.matmul %{{.*}}, %{{.*}} {trace.name = "blk.mm", trace.recomputed}
func.func @region(%x: tensor<4x8xf32> {trace.name = "x"}, %w: tensor<8x16xf32> {trace.name = "w"}) -> tensor<4x16xf32> {
  %r = trace.checkpoint "blk" policy = #trace.policy<save_ops = ["trace.matmul"]> ins(%a = %x : tensor<4x8xf32>, %b = %w : tensor<8x16xf32>) -> tensor<4x16xf32> {
    %m = trace.matmul %a, %b {trace.name = "blk.mm"} : tensor<4x8xf32>, tensor<8x16xf32> -> tensor<4x16xf32>
    %t = trace.tanh %m {trace.name = "blk.t"} : tensor<4x16xf32>
    %s = trace.mul %t, %t {trace.name = "blk.s"} : tensor<4x16xf32>
    trace.yield %s : tensor<4x16xf32>
  }
  %o = trace.sin %r {trace.name = "out"} : tensor<4x16xf32>
  return %o : tensor<4x16xf32>
}
