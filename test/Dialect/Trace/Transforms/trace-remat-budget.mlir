// trace-remat under a memory budget: a fraction of what the plain cut
// saves (0 = only arguments) or a byte count; what else is recomputed is
// chosen for the fewest extra FLOPs; `report` gives the figures. The
// matmuls contract over 8 and 16 elements, which the plain cut would
// recompute: max-recompute-contraction=0 keeps them saved here.
// RUN: trace-opt %s -split-input-file -trace-autodiff -trace-remat="max-recompute-contraction=0 budget=0" | FileCheck %s --check-prefix=ZERO
// RUN: trace-opt %s -split-input-file -trace-autodiff -trace-remat="max-recompute-contraction=0 budget=1" | FileCheck %s --check-prefix=ONE
// RUN: trace-opt %s -split-input-file -trace-autodiff -trace-remat="max-recompute-contraction=0 budget=300" | FileCheck %s --check-prefix=ABS
// RUN: trace-opt %s -split-input-file -trace-autodiff -trace-remat="max-recompute-contraction=0 budget=0.3KB" | FileCheck %s --check-prefix=ABS
// RUN: trace-opt %s -split-input-file -trace-autodiff -trace-remat="report max-recompute-contraction=0 budget=0.5" --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=REPORT

// Two layers. The plain cut saves t1 and t2 (512 bytes).
// budget=1 is the plain cut.
// ONE-LABEL: func.func @two_layers_fwd(
// ONE-SAME: -> (tensor<4x16xf32>, tensor<4x16xf32> {trace.name = "saved.t2"}, tensor<4x16xf32> {trace.name = "saved.t1"})
// A budget of 300 bytes gives one up: recomputing t1 costs its 4x8x16
// matmul and tanh (1088 FLOPs), t2 its 4x16x16 one (2112), so t2 stays.
// ABS-LABEL: func.func @two_layers_fwd(
// ABS-SAME: -> (tensor<4x16xf32>, tensor<4x16xf32> {trace.name = "saved.t2"})
// ABS-LABEL: func.func @two_layers_bwd(
// ABS: trace.matmul %{{.*}}, %{{.*}} {trace.name = "m1", trace.recomputed}
// ABS-NEXT: trace.tanh %{{.*}} {trace.name = "t1", trace.recomputed}
// ABS-NOT: trace.recomputed
// ABS: return
// A zero budget saves only the arguments, both matmuls recomputed.
// ZERO-LABEL: func.func @two_layers_fwd(
// ZERO-SAME: -> tensor<4x16xf32> {
// ZERO-LABEL: func.func @two_layers_bwd(
// ZERO-COUNT-2: trace.matmul {{.*}}trace.recomputed
// REPORT: remark: saved for backward by @two_layers_fwd: 4 values, 1920 bytes (256 of activations, 1664 of arguments), 2 ops recomputed in @two_layers_bwd
// REPORT-NEXT: saved.t2: tensor<4x16xf32>, 256 bytes, from trace.tanh
// REPORT: remark: trace-remat @two_layers: saved 256 bytes of activations (trace-autodiff's split 512, min-cut 512, budget 256 = 0.50 x min-cut) and 1664 of arguments in 4 values; recomputed 2 ops, 1088 FLOPs (min-cut 0); chosen by {{knapsack|lagrangian}}
func.func @two_layers(%x: tensor<4x8xf32> {trace.name = "x"}, %w1: tensor<8x16xf32> {trace.name = "w1"}, %w2: tensor<16x16xf32> {trace.name = "w2"}) -> tensor<4x16xf32> {
  %m1 = trace.matmul %x, %w1 {trace.name = "m1"} : tensor<4x8xf32>, tensor<8x16xf32> -> tensor<4x16xf32>
  %t1 = trace.tanh %m1 {trace.name = "t1"} : tensor<4x16xf32>
  %m2 = trace.matmul %t1, %w2 {trace.name = "m2"} : tensor<4x16xf32>, tensor<16x16xf32> -> tensor<4x16xf32>
  %t2 = trace.tanh %m2 {trace.name = "t2"} : tensor<4x16xf32>
  return %t2 : tensor<4x16xf32>
}

// -----

// The plain cut saves the 16-byte matmul output; half of it is not enough
// for any value, so budget=0.5 recomputes from the arguments, like 0.
// ZERO-LABEL: func.func @narrow_fwd(
// ZERO-SAME: -> tensor<4x256xf32> {
// ABS-LABEL: func.func @narrow_fwd(
// ABS-SAME: {trace.name = "saved.proj"}
// REPORT: remark: trace-remat @narrow: saved 0 bytes of activations (trace-autodiff's split 4096, min-cut 16, budget 8 = 0.50 x min-cut) and 160 of arguments in 2 values; recomputed 3 ops, 1088 FLOPs (min-cut 1024)
func.func @narrow(%x: tensor<4x8xf32> {trace.name = "x"}, %w: tensor<8x1xf32> {trace.name = "w"}) -> tensor<4x256xf32> {
  %m = trace.matmul %x, %w {trace.name = "proj"} : tensor<4x8xf32>, tensor<8x1xf32> -> tensor<4x1xf32>
  %b = trace.broadcast_in_dim %m, dims = [0, 1] {trace.name = "wide"} : tensor<4x1xf32> -> tensor<4x256xf32>
  %e = trace.exp %b {trace.name = "e"} : tensor<4x256xf32>
  return %e : tensor<4x256xf32>
}

// -----

// A checkpoint region whose policy saves the matmul: under budget=0 the
// matmul is recomputed after all; the region's other values never were
// saved.
// ONE-LABEL: func.func @region_fwd(
// ONE-SAME: {trace.name = "saved.blk.mm"}
// ZERO-LABEL: func.func @region_fwd(
// ZERO-SAME: -> tensor<4x16xf32> {
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
