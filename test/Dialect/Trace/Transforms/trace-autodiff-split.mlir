// trace-autodiff's forward/backward split: a checkpoint region saves only
// its inputs (and its outputs, which are ordinary values), the backward
// recomputes its body; a policy keeps what it names; print-saved reports.
// RUN: trace-opt %s -trace-autodiff="print-saved" --mlir-print-op-on-diagnostic=false 2>&1 | FileCheck %s
// Run again, the pass leaves what it differentiated and what it made alone.
// RUN: trace-opt %s -trace-autodiff -trace-autodiff | FileCheck %s --check-prefix=TWICE --implicit-check-not=_grad_grad --implicit-check-not=_fwd_grad --implicit-check-not=_bwd_grad
// TWICE-COUNT-3: trace.forward_end

// CHECK: remark: saved for backward by @forward_fwd: 2 values, 224 bytes (0 of activations, 224 of arguments), 2 ops recomputed in @forward_bwd
// CHECK-NEXT: x: tensor<4x8xf32>, 128 bytes, an argument, passed to @forward_bwd too
// CHECK-NEXT: fc.weight: tensor<8x3xf32>, 96 bytes, an argument, passed to @forward_bwd too
// CHECK: remark: saved for backward by @policy_fwd: 3 values, 272 bytes (48 of activations, 224 of arguments), 0 ops recomputed in @policy_bwd
// CHECK-NEXT: saved.blk.t: tensor<4x3xf32>, 48 bytes, from trace.tanh
// CHECK-NEXT: fc.weight: tensor<8x3xf32>, 96 bytes, an argument, passed to @policy_bwd too
// CHECK-NEXT: x: tensor<4x8xf32>, 128 bytes, an argument, passed to @policy_bwd too

// The split is recorded on the function it was derived from, by symbol.
// CHECK-LABEL: func.func @forward(%arg0
// CHECK-SAME: attributes {trace.derivatives = #trace.derivatives<grad = @forward_grad, fwd = @forward_fwd, bwd = @forward_bwd>}
// CHECK-LABEL: func.func @forward_grad(
// CHECK: trace.forward_end
// CHECK-LABEL: func.func @forward_fwd(
// Arguments the backward reads are not results of the forward: the caller
// passes them to the backward again, which names them as the forward does.
// CHECK-SAME: -> (tensor<4x3xf32> {trace.name = "out"}) {
// CHECK: return %{{.*}} : tensor<4x3xf32>

// CHECK-LABEL: func.func @forward_bwd(
// CHECK-SAME: %[[X:[^:]*]]: tensor<4x8xf32> {trace.forward_argument = 0 : i64, trace.name = "x"}, %[[W:[^:]*]]: tensor<8x3xf32> {trace.forward_argument = 1 : i64, trace.name = "fc.weight"}, %{{[^:]*}}: tensor<4x3xf32> {trace.name = "cot.out"})
// Recomputation of the region first: the matmul and tanh, not saved.
// CHECK-NEXT: %[[M:.*]] = trace.matmul %[[X]], %[[W]]
// CHECK-NEXT: %[[T:.*]] = trace.tanh %[[M]]
// CHECK: return
func.func @forward(%x: tensor<4x8xf32> {trace.name = "x"}, %w: tensor<8x3xf32> {trace.name = "fc.weight"},
                   %v: tensor<4x2xf32>)
    -> (tensor<4x3xf32> {trace.name = "out"}) {
  %r = trace.checkpoint "blk" ins(%a = %x : tensor<4x8xf32>, %b = %w : tensor<8x3xf32>) -> tensor<4x3xf32> {
    %m = trace.matmul %a, %b : tensor<4x8xf32>, tensor<8x3xf32> -> tensor<4x3xf32>
    %t = trace.tanh %m : tensor<4x3xf32>
    %s = trace.mul %t, %t : tensor<4x3xf32>
    trace.yield %s : tensor<4x3xf32>
  }
  return %r : tensor<4x3xf32>
}

// The policy keeps the tanh output: nothing is recomputed.
// CHECK-LABEL: func.func @policy_bwd(
// CHECK-SAME: %{{[^:]*}}: tensor<4x3xf32> {trace.name = "saved.blk.t"}
// CHECK-NOT: trace.tanh
// CHECK-NOT: trace.matmul %arg0, %arg1
// CHECK: return
func.func @policy(%x: tensor<4x8xf32> {trace.name = "x"}, %w: tensor<8x3xf32> {trace.name = "fc.weight"})
    -> (tensor<4x3xf32> {trace.name = "out"}) {
  %r = trace.checkpoint "blk" policy = #trace.policy<save_names = ["blk.t"]>
      ins(%a = %x : tensor<4x8xf32>, %b = %w : tensor<8x3xf32>) -> tensor<4x3xf32> {
    %m = trace.matmul %a, %b : tensor<4x8xf32>, tensor<8x3xf32> -> tensor<4x3xf32>
    %t = trace.tanh %m {trace.name = "blk.t"} : tensor<4x3xf32>
    %s = trace.mul %t, %t : tensor<4x3xf32>
    trace.yield %s : tensor<4x3xf32>
  }
  return %r : tensor<4x3xf32>
}

// Two regions in a row: the backward recomputes the second region, runs its
// backward, and only then recomputes the first (peak memory holds one
// region's activations at a time).
// CHECK-LABEL: func.func @two_bwd(
// CHECK: %[[T:.*]] = trace.tanh
// CHECK: trace.sub %{{.*}}, %{{.*}} : tensor<4xf32>
// CHECK: %[[E:.*]] = trace.exp
// CHECK: return
func.func @two(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = trace.checkpoint "first" ins(%in = %x : tensor<4xf32>) -> tensor<4xf32> {
    %e = trace.exp %in : tensor<4xf32>
    %m = trace.mul %e, %e : tensor<4xf32>
    trace.yield %m : tensor<4xf32>
  }
  %b = trace.checkpoint "second" ins(%in = %a : tensor<4xf32>) -> tensor<4xf32> {
    %t = trace.tanh %in : tensor<4xf32>
    %n = trace.mul %t, %t : tensor<4xf32>
    trace.yield %n : tensor<4xf32>
  }
  return %b : tensor<4xf32>
}
