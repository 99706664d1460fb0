// trace-remat's cut decisions on small graphs: what @f_fwd saves (its
// `saved.*` results) and what @f_bwd recomputes (ops tagged
// trace.recomputed), under the cost rules, checkpoint regions, per-op
// policies and save-names. Budgets: trace-remat-budget.mlir; errors:
// trace-remat-errors.mlir. The cases are small, so their matmuls contract
// over a few elements, which the plain cut would recompute: most runs turn
// that rule off (max-recompute-contraction=0) to test the others; SHORT
// tests it.
// RUN: trace-opt %s -split-input-file -trace-autodiff -trace-remat="max-recompute-contraction=0" | FileCheck %s
// RUN: trace-opt %s -split-input-file -trace-autodiff -trace-remat="save-names=b max-recompute-contraction=0" | FileCheck %s --check-prefix=NAMES
// RUN: trace-opt %s -split-input-file -trace-autodiff -trace-remat | FileCheck %s --check-prefix=SHORT
// RUN: trace-opt %s -split-input-file -trace-autodiff -trace-remat="save-matmuls=false" | FileCheck %s --check-prefix=NOMM

// A chain of elementwise ops after a matmul: the matmul's output (which the
// first mul's gradient reads) is saved, the chain is recomputed from it.
// CHECK-LABEL: func.func @chain_fwd(
// CHECK-SAME: -> (tensor<4x16xf32>, tensor<4x16xf32> {trace.name = "saved.mm"})
// CHECK-LABEL: func.func @chain_bwd(
// CHECK-SAME: %[[MM:[^:]*]]: tensor<4x16xf32> {trace.name = "saved.mm"}
// CHECK-NEXT: %[[A:.*]] = trace.mul %[[MM]], %[[MM]] {trace.name = "a", trace.recomputed}
// CHECK-NEXT: trace.sin %[[A]] {trace.name = "b", trace.recomputed}
// CHECK-NOT: trace.recomputed
// CHECK: return
// save-names keeps b as well; only a is recomputed.
// NAMES-LABEL: func.func @chain_fwd(
// NAMES-SAME: {trace.name = "saved.b"}, tensor<4x16xf32> {trace.name = "saved.mm"})
// Matmuls may be recomputed: only the arguments are saved.
// NOMM-LABEL: func.func @chain_fwd(
// NOMM-SAME: -> tensor<4x16xf32> {
// NOMM-LABEL: func.func @chain_bwd(
// NOMM: trace.matmul %{{.*}}, %{{.*}} {trace.name = "mm", trace.recomputed}
func.func @chain(%x: tensor<4x8xf32> {trace.name = "x"}, %w: tensor<8x16xf32> {trace.name = "w"}) -> tensor<4x16xf32> {
  %m = trace.matmul %x, %w {trace.name = "mm"} : tensor<4x8xf32>, tensor<8x16xf32> -> tensor<4x16xf32>
  %a = trace.mul %m, %m {trace.name = "a"} : tensor<4x16xf32>
  %b = trace.sin %a {trace.name = "b"} : tensor<4x16xf32>
  %c = trace.cos %b {trace.name = "c"} : tensor<4x16xf32>
  return %c : tensor<4x16xf32>
}

// -----

// Saving the narrow value is cheaper: the 4x1 matmul output (16 bytes) is
// saved, not its 4x256 broadcast or the exp of it (4096 bytes each), which
// @narrow_bwd recomputes.
// CHECK-LABEL: func.func @narrow_fwd(
// CHECK-SAME: -> (tensor<4x256xf32>, tensor<4x1xf32> {trace.name = "saved.proj"})
// CHECK-LABEL: func.func @narrow_bwd(
// CHECK-SAME: %[[P:[^:]*]]: tensor<4x1xf32> {trace.name = "saved.proj"}
// CHECK-NEXT: %[[B:.*]] = trace.broadcast_in_dim %[[P]], dims = [0, 1] {trace.name = "wide", trace.recomputed}
// CHECK-NEXT: trace.exp %[[B]] {trace.name = "e", trace.recomputed}
func.func @narrow(%x: tensor<4x8xf32> {trace.name = "x"}, %w: tensor<8x1xf32> {trace.name = "w"}) -> tensor<4x256xf32> {
  %m = trace.matmul %x, %w {trace.name = "proj"} : tensor<4x8xf32>, tensor<8x1xf32> -> tensor<4x1xf32>
  %b = trace.broadcast_in_dim %m, dims = [0, 1] {trace.name = "wide"} : tensor<4x1xf32> -> tensor<4x256xf32>
  %e = trace.exp %b {trace.name = "e"} : tensor<4x256xf32>
  return %e : tensor<4x256xf32>
}

// -----

// A checkpoint region's values are never saved, its matmul included: the
// backward recomputes the region from its inputs. Its output, which sin
// outside the region reads, is an ordinary value and saved, as torch saves
// a checkpoint's output for the op that reads it (recomputing it would be
// one mul on top of the region's recomputation, instead of 256 bytes, but
// would run the region again before sin's gradient is taken).
// CHECK-LABEL: func.func @region_fwd(
// CHECK-SAME: -> (tensor<4x16xf32>, tensor<4x16xf32> {trace.name = "saved.blk.s"})
// CHECK-LABEL: func.func @region_bwd(
// CHECK: trace.cos
// CHECK: trace.matmul %{{.*}}, %{{.*}} {trace.name = "blk.mm", trace.recomputed}
// CHECK-NEXT: trace.tanh %{{.*}} {trace.name = "blk.t", trace.recomputed}
// CHECK-NOT: "blk.s"
// CHECK: return
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

// -----

// The region's policy lets matmul outputs be saved: the matmul is then
// under the cost rules (not recomputed) and its output is saved; the rest
// of the region is still recomputed (its output is saved, as above).
// CHECK-LABEL: func.func @region_policy_fwd(
// CHECK-SAME: -> (tensor<4x16xf32>, tensor<4x16xf32> {trace.name = "saved.blk.s"}, tensor<4x16xf32> {trace.name = "saved.blk.mm"})
// CHECK-LABEL: func.func @region_policy_bwd(
// CHECK-NOT: trace.matmul {{.*}}trace.recomputed
// CHECK: return
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

// -----

// Two regions in a row: the first region's output enters the second and is
// saved, as torch.utils.checkpoint saves a region's input, although
// recomputing it (exp and mul of the argument) would save its 16 bytes.
// CHECK-LABEL: func.func @two_regions_fwd(
// CHECK-SAME: -> (tensor<4xf32>, tensor<4xf32> {trace.name = "saved.first.out"})
// CHECK-LABEL: func.func @two_regions_bwd(
// CHECK-NOT: trace.mul {{.*}}"first.out"
// CHECK: return
func.func @two_regions(%x: tensor<4xf32> {trace.name = "x"}) -> tensor<4xf32> {
  %a = trace.checkpoint "first" ins(%in = %x : tensor<4xf32>) -> tensor<4xf32> {
    %e = trace.exp %in : tensor<4xf32>
    %m = trace.mul %e, %e {trace.name = "first.out"} : tensor<4xf32>
    trace.yield %m : tensor<4xf32>
  }
  %b = trace.checkpoint "second" ins(%in = %a : tensor<4xf32>) -> tensor<4xf32> {
    %t = trace.tanh %in : tensor<4xf32>
    %n = trace.mul %t, %t : tensor<4xf32>
    trace.yield %n : tensor<4xf32>
  }
  return %b : tensor<4xf32>
}

// -----

// A region's output read outside every region (the last block's output, read
// by the final layer norm) is saved too, as torch saves a checkpoint's output
// for the op that reads it: recomputed, the backward would begin by running
// the whole region again.
// CHECK-LABEL: func.func @region_output_fwd(
// CHECK-SAME: -> (tensor<4xf32>, tensor<4xf32> {trace.name = "saved.blk.out"})
// CHECK-LABEL: func.func @region_output_bwd(
// CHECK-NOT: trace.mul {{.*}}"blk.out"
// CHECK: return
func.func @region_output(%x: tensor<4xf32> {trace.name = "x"}) -> tensor<4xf32> {
  %a = trace.checkpoint "blk" ins(%in = %x : tensor<4xf32>) -> tensor<4xf32> {
    %e = trace.exp %in : tensor<4xf32>
    %m = trace.mul %e, %e {trace.name = "blk.out"} : tensor<4xf32>
    trace.yield %m : tensor<4xf32>
  }
  %t = trace.mul %a, %a : tensor<4xf32>
  return %t : tensor<4xf32>
}

// -----

// must_save: a is saved although recomputing it from mm is cheap.
// CHECK-LABEL: func.func @must_save_fwd(
// CHECK-SAME: -> (tensor<4x16xf32>, tensor<4x16xf32> {trace.name = "saved.a"}, tensor<4x16xf32> {trace.name = "saved.mm"})
// CHECK-LABEL: func.func @must_save_bwd(
// CHECK-NOT: trace.mul {{.*}}trace.recomputed
// CHECK: trace.sin {{.*}}trace.recomputed
func.func @must_save(%x: tensor<4x8xf32> {trace.name = "x"}, %w: tensor<8x16xf32> {trace.name = "w"}) -> tensor<4x16xf32> {
  %m = trace.matmul %x, %w {trace.name = "mm"} : tensor<4x8xf32>, tensor<8x16xf32> -> tensor<4x16xf32>
  %a = trace.mul %m, %m {trace.name = "a", trace.remat = "must_save"} : tensor<4x16xf32>
  %b = trace.sin %a {trace.name = "b"} : tensor<4x16xf32>
  %c = trace.cos %b {trace.name = "c"} : tensor<4x16xf32>
  return %c : tensor<4x16xf32>
}

// -----

// must_recompute: exp's gradient reads e, which the cut would save (as
// many bytes as the matmul output, and nothing to recompute); the
// attribute makes it save mm and recompute e.
// CHECK-LABEL: func.func @must_recompute_fwd(
// CHECK-SAME: -> (tensor<4x16xf32>, tensor<4x16xf32> {trace.name = "saved.mm"})
// CHECK-LABEL: func.func @must_recompute_bwd(
// CHECK-NEXT: trace.exp %{{.*}} {trace.name = "e", trace.recomputed, trace.remat = "must_recompute"}
// With matmuls recomputable, the matmul is recomputed too.
// NOMM-LABEL: func.func @must_recompute_fwd(
// NOMM-SAME: -> tensor<4x16xf32> {
func.func @must_recompute(%x: tensor<4x8xf32> {trace.name = "x"}, %w: tensor<8x16xf32> {trace.name = "w"}) -> tensor<4x16xf32> {
  %m = trace.matmul %x, %w {trace.name = "mm"} : tensor<4x8xf32>, tensor<8x16xf32> -> tensor<4x16xf32>
  %e = trace.exp %m {trace.name = "e", trace.remat = "must_recompute"} : tensor<4x16xf32>
  return %e : tensor<4x16xf32>
}

// -----

// prefer_recompute doubles the cost of saving a: the cut saves the matmul
// output instead and recomputes a and b (without it, a is saved and only
// b recomputed).
// CHECK-LABEL: func.func @prefer_fwd(
// CHECK-SAME: {trace.name = "saved.mm"}
// CHECK-LABEL: func.func @prefer_bwd(
// CHECK-NEXT: trace.tanh %{{.*}} {trace.name = "a", trace.recomputed, trace.remat = "prefer_recompute"}
// CHECK-NEXT: trace.exp %{{.*}} {trace.name = "b", trace.recomputed}
func.func @prefer(%x: tensor<4x8xf32> {trace.name = "x"}, %w: tensor<8x16xf32> {trace.name = "w"}) -> tensor<4x16xf32> {
  %m = trace.matmul %x, %w {trace.name = "mm"} : tensor<4x8xf32>, tensor<8x16xf32> -> tensor<4x16xf32>
  %a = trace.tanh %m {trace.name = "a", trace.remat = "prefer_recompute"} : tensor<4x16xf32>
  %b = trace.exp %a {trace.name = "b"} : tensor<4x16xf32>
  return %b : tensor<4x16xf32>
}

// -----

// The same without the attribute.
// CHECK-LABEL: func.func @no_prefer_fwd(
// CHECK-SAME: -> (tensor<4x16xf32>, tensor<4x16xf32> {trace.name = "saved.a"})
func.func @no_prefer(%x: tensor<4x8xf32> {trace.name = "x"}, %w: tensor<8x16xf32> {trace.name = "w"}) -> tensor<4x16xf32> {
  %m = trace.matmul %x, %w {trace.name = "mm"} : tensor<4x8xf32>, tensor<8x16xf32> -> tensor<4x16xf32>
  %a = trace.tanh %m {trace.name = "a"} : tensor<4x16xf32>
  %b = trace.exp %a {trace.name = "b"} : tensor<4x16xf32>
  return %b : tensor<4x16xf32>
}

// -----

// Two layers: the plain cut saves both tanh outputs (their gradients and
// the second matmul's read them), nothing else.
// CHECK-LABEL: func.func @two_layers_fwd(
// CHECK-SAME: {trace.name = "saved.t2"}, {{.*}} {trace.name = "saved.t1"}
func.func @two_layers(%x: tensor<4x8xf32> {trace.name = "x"}, %w1: tensor<8x16xf32> {trace.name = "w1"}, %w2: tensor<16x16xf32> {trace.name = "w2"}) -> tensor<4x16xf32> {
  %m1 = trace.matmul %x, %w1 {trace.name = "m1"} : tensor<4x8xf32>, tensor<8x16xf32> -> tensor<4x16xf32>
  %t1 = trace.tanh %m1 {trace.name = "t1"} : tensor<4x16xf32>
  %m2 = trace.matmul %t1, %w2 {trace.name = "m2"} : tensor<4x16xf32>, tensor<16x16xf32> -> tensor<4x16xf32>
  %t2 = trace.tanh %m2 {trace.name = "t2"} : tensor<4x16xf32>
  return %t2 : tensor<4x16xf32>
}

// -----

// A policy on a region applies to every op inside without its own:
// must_save overrides the region's recompute-everything rule, so tanh's
// output, which the backward reads, is saved and neither the matmul nor
// tanh is recomputed; the mul keeps its own must_recompute. (Without the
// attribute the region is recomputed: @region above.)
// CHECK-LABEL: func.func @region_remat_fwd(
// CHECK-SAME: {trace.name = "saved.blk.t"}
// CHECK-LABEL: func.func @region_remat_bwd(
// CHECK-NOT: trace.matmul
// CHECK-NOT: trace.tanh
// CHECK: trace.mul %{{.*}}, %{{.*}} {trace.name = "blk.s", trace.recomputed, trace.remat = "must_recompute"}
// CHECK: return
func.func @region_remat(%x: tensor<4x8xf32> {trace.name = "x"}, %w: tensor<8x16xf32> {trace.name = "w"}) -> tensor<4x16xf32> {
  %r = trace.checkpoint "blk" ins(%a = %x : tensor<4x8xf32>, %b = %w : tensor<8x16xf32>) -> tensor<4x16xf32> {
    %m = trace.matmul %a, %b {trace.name = "blk.mm"} : tensor<4x8xf32>, tensor<8x16xf32> -> tensor<4x16xf32>
    %t = trace.tanh %m {trace.name = "blk.t"} : tensor<4x16xf32>
    %s = trace.mul %t, %t {trace.name = "blk.s", trace.remat = "must_recompute"} : tensor<4x16xf32>
    trace.yield %s : tensor<4x16xf32>
  } attributes {trace.remat = "must_save"}
  %o = trace.sin %r {trace.name = "out"} : tensor<4x16xf32>
  return %o : tensor<4x16xf32>
}

// -----

// A matmul of two activations over a short contraction (attention's
// scores, K = 4 here) is recomputed like elementwise work; a linear layer,
// whose weight is an argument, is not, however short its contraction
// (K = 8): the plain cut saves tanh's output (its gradient reads it) and
// rebuilds the scores from q and k, themselves recomputed from x and y.
// SHORT-LABEL: func.func @contraction_fwd(
// SHORT-SAME: -> (tensor<2x8x8xf32>, tensor<2x8x8xf32> {trace.name = "saved.t"})
// SHORT-LABEL: func.func @contraction_bwd(
// SHORT: trace.matmul %{{.*}}, %{{.*}} {trace.name = "scores", trace.recomputed}
// SHORT-NOT: trace.name = "linear", trace.recomputed
// SHORT: return
func.func @contraction(%x: tensor<2x8x4xf32> {trace.name = "x"}, %y: tensor<2x8x4xf32> {trace.name = "y"},
                       %v: tensor<2x8x8xf32> {trace.name = "v"}, %w: tensor<8x8xf32> {trace.name = "w"}) -> tensor<2x8x8xf32> {
  %q = trace.tanh %x {trace.name = "q"} : tensor<2x8x4xf32>
  %ky = trace.tanh %y {trace.name = "k"} : tensor<2x8x4xf32>
  %k = trace.transpose %ky, perm = [0, 2, 1] : tensor<2x8x4xf32> -> tensor<2x4x8xf32>
  %s = trace.matmul %q, %k {trace.name = "scores"} : tensor<2x8x4xf32>, tensor<2x4x8xf32> -> tensor<2x8x8xf32>
  %e = trace.exp %s {trace.name = "e"} : tensor<2x8x8xf32>
  %wt = trace.transpose %w, perm = [1, 0] : tensor<8x8xf32> -> tensor<8x8xf32>
  %wb = trace.broadcast_in_dim %wt, dims = [1, 2] : tensor<8x8xf32> -> tensor<2x8x8xf32>
  %h = trace.matmul %v, %wb {trace.name = "linear"} : tensor<2x8x8xf32>, tensor<2x8x8xf32> -> tensor<2x8x8xf32>
  %t = trace.tanh %h {trace.name = "t"} : tensor<2x8x8xf32>
  %r = trace.mul %e, %t {trace.name = "r"} : tensor<2x8x8xf32>
  return %r : tensor<2x8x8xf32>
}
