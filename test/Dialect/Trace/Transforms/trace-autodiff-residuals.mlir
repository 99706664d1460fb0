// trace-autodiff saves for backward only what live backward code reads: a
// VJP rule's cotangent for an operand that needs none (a random mask, a
// constant, a float converted from an integer) is dead code and must not
// make @f_fwd save the forward values it reads. Operand-free sources
// (trace.full, trace.constant, trace.iota) are rebuilt in @f_bwd, never
// saved.
// RUN: trace-opt %s --trace-autodiff --split-input-file | FileCheck %s
// Recomputation stays in @f_bwd after CSE (it cannot merge into @f_fwd).
// RUN: trace-opt %s --trace-autodiff --cse --split-input-file | FileCheck %s --check-prefix=CSE
// RUN: trace-opt %s --trace-autodiff="print-saved" --split-input-file --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=SAVED

// Dropout: the mask is saved, x (read only by the mask's dead cotangent)
// is not.
// SAVED: remark: saved for backward by @dropout_fwd: 1 values, 16 bytes (16 of activations, 0 of arguments), 0 ops recomputed in @dropout_bwd
// SAVED-NEXT: saved.random_uniform.0: tensor<4xf32>, 16 bytes, from trace.random_uniform
// SAVED-NOT: saved.
// CHECK-LABEL: func @dropout_fwd
// CHECK-SAME: -> (tensor<4xf32>, tensor<4xf32> {trace.name = "saved.random_uniform.0"})
// CHECK-LABEL: func @dropout_bwd
// CHECK-SAME: (%{{.*}}: tensor<4xf32> {trace.name = "saved.random_uniform.0"}, %{{.*}}: tensor<4xf32> {trace.name = "cot.result0"})
func.func @dropout(%x: tensor<4xf32>, %seed: tensor<i64>) -> tensor<4xf32> {
  %u = trace.random_uniform %seed, offset = 0 : tensor<4xf32>
  %r = trace.mul %x, %u : tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// A constant factor: neither x nor the constant is saved; @scale_bwd
// builds the constant itself.
// SAVED: remark: saved for backward by @scale_fwd: 0 values, 0 bytes (0 of activations, 0 of arguments), 1 ops recomputed in @scale_bwd
// SAVED-NOT: saved.
// CHECK-LABEL: func @scale_fwd
// CHECK-SAME: -> tensor<4xf32>
// CHECK-NOT: saved
// CHECK-LABEL: func @scale_bwd
// CHECK-SAME: (%[[COT:.*]]: tensor<4xf32> {trace.name = "cot.result0"})
// CHECK-NEXT: %[[H:.*]] = trace.full 5.000000e-01 {trace.recomputed} : tensor<4xf32>
// CHECK-NEXT: %[[G:.*]] = trace.mul %[[COT]], %[[H]]
// CHECK-NEXT: return %[[G]]
func.func @scale(%x: tensor<4xf32>) -> tensor<4xf32> {
  %h = trace.full 0.5 : tensor<4xf32>
  %r = trace.mul %x, %h : tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// An iota is rebuilt like a constant.
// CHECK-LABEL: func @ramp_fwd
// CHECK-SAME: -> tensor<4xf32>
// CHECK-NOT: saved
// CHECK-LABEL: func @ramp_bwd
// CHECK-SAME: (%[[COT:.*]]: tensor<4xf32> {trace.name = "cot.result0"})
// CHECK-NEXT: %[[I:.*]] = trace.iota dim = 0 {trace.recomputed} : tensor<4xf32>
// CHECK-NEXT: trace.mul %[[COT]], %[[I]]
func.func @ramp(%x: tensor<4xf32>) -> tensor<4xf32> {
  %i = trace.iota dim = 0 : tensor<4xf32>
  %r = trace.mul %x, %i : tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// A checkpoint region's output feeds only non-differentiable paths: a
// product with a float converted from integers, and a comparison. The
// output is not saved (only the dead cotangent of the converted operand
// read it); the region's input is, and the region's body is recomputed in
// @region_bwd just before its first use, after the first backward op.
// SAVED: remark: saved for backward by @region_fwd: 2 values, 32 bytes (16 of activations, 16 of arguments), 1 ops recomputed in @region_bwd
// SAVED-NEXT: saved.convert.0: tensor<4xf32>, 16 bytes, from trace.convert
// SAVED-NEXT: x: tensor<4xf32>, 16 bytes, an argument, passed to @region_bwd too
// SAVED-NOT: saved.
// CHECK-LABEL: func @region_fwd
// CHECK-SAME: -> (tensor<4xf32>, tensor<4xi1>, tensor<4xf32> {trace.name = "saved.convert.0"})
// CHECK-LABEL: func @region_bwd
// CHECK-SAME: (%[[F:[^:]*]]: tensor<4xf32> {trace.name = "saved.convert.0"}, %[[X:[^:]*]]: tensor<4xf32> {trace.forward_argument = 0 : i64, trace.name = "x"}, %[[COT:[^:]*]]: tensor<4xf32> {trace.name = "cot.result0"})
// CHECK-NEXT: %[[D:.*]] = trace.mul %[[COT]], %[[F]]
// CHECK-NEXT: %[[E:.*]] = trace.exp %[[X]]
// CHECK-NEXT: trace.mul %[[D]], %[[E]]
// CHECK-NOT: trace.compare
// CHECK: return
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

// -----

// Dropout inside a checkpoint region: the mask and its constants are
// recomputed (the seed is saved), and the region's input x, read only by
// the dead cotangent of the mask, is not saved.
// SAVED: remark: saved for backward by @blk_dropout_fwd: 1 values, 8 bytes (0 of activations, 8 of arguments), 3 ops recomputed in @blk_dropout_bwd
// SAVED-NEXT: seed: tensor<i64>, 8 bytes, an argument, passed to @blk_dropout_bwd too
// SAVED-NOT: saved.
// CHECK-LABEL: func @blk_dropout_bwd
// CHECK-SAME: (%[[SEED:[^:]*]]: tensor<i64> {trace.forward_argument = 1 : i64, trace.name = "seed"}, %[[COT:[^:]*]]: tensor<4xf32> {trace.name = "cot.result0"})
// CHECK-DAG: %[[U:.*]] = trace.random_uniform %[[SEED]], offset = 0
// CHECK-DAG: %[[K:.*]] = trace.full 2.000000e+00
// CHECK: %[[S:.*]] = trace.mul %[[U]], %[[K]]
// CHECK: trace.mul %[[COT]], %[[S]]
// CHECK: return
func.func @blk_dropout(%x: tensor<4xf32>, %seed: tensor<i64> {trace.name = "seed"}) -> tensor<4xf32> {
  %r = trace.checkpoint "blk" ins(%in = %x : tensor<4xf32>, %rng = %seed : tensor<i64>) -> tensor<4xf32> {
    %u = trace.random_uniform %rng, offset = 0 : tensor<4xf32>
    %k = trace.full 2.0 : tensor<4xf32>
    %s = trace.mul %u, %k : tensor<4xf32>
    %o = trace.mul %in, %s : tensor<4xf32>
    trace.yield %o : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}
