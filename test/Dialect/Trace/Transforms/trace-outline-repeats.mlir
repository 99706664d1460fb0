// RUN: trace-opt %s --split-input-file --trace-outline-repeats="min-ops=3" | FileCheck %s
// RUN: trace-opt %s --split-input-file --trace-outline-repeats | FileCheck %s --check-prefix=DEFAULT
// The text that decides sharing ignores the printing flags a user gives:
// RUN: trace-opt %s --split-input-file --trace-outline-repeats="min-ops=3" --mlir-print-debuginfo --mlir-elide-elementsattrs-if-larger=2 | FileCheck %s --check-prefix=FLAGS

// Three layers of one block, each on its own weight: one private function,
// called per layer, the second and third taking the previous call's
// result. The op with no layer in its location (%c) is inside the first
// run, so it is in the function too; the names are dropped from the
// shared body. The head (no numeric module path) stays in @step.

// CHECK-LABEL: func.func @step(
// CHECK-SAME: %[[X:.*]]: tensor<4x8xf32>, %[[W0:.*]]: tensor<8x8xf32>, %[[W1:.*]]: tensor<8x8xf32>, %[[W2:.*]]: tensor<8x8xf32>)
// CHECK-NEXT: %[[L0:.*]] = call @[[LAYER:step_blocks_0]](%[[X]], %[[W0]]) : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT: %[[L1:.*]] = call @[[LAYER]](%[[L0]], %[[W1]])
// CHECK-NEXT: %[[L2:.*]] = call @[[LAYER]](%[[L1]], %[[W2]])
// CHECK-NEXT: %[[H:.*]] = trace.tanh %[[L2]] {trace.name = "head"}
// CHECK-NEXT: return %[[H]]
// CHECK: func.func private @[[LAYER]](%[[A:.*]]: tensor<4x8xf32>, %[[B:.*]]: tensor<8x8xf32>) -> tensor<4x8xf32> attributes {passthrough = ["noinline"]}
// CHECK-NEXT: %[[M:.*]] = trace.matmul %[[A]], %[[B]] :
// CHECK-NEXT: %[[C:.*]] = trace.full
// CHECK-NEXT: %[[T:.*]] = trace.mul %[[M]], %[[C]] :
// CHECK-NEXT: %[[R:.*]] = trace.tanh %[[T]] :
// CHECK-NEXT: return %[[R]]
// CHECK-NOT: func.func

// With the default min-ops (8), these runs are too short.
// DEFAULT-LABEL: func.func @step(
// DEFAULT-NOT: call
// DEFAULT: return
func.func @step(%x: tensor<4x8xf32>, %w0: tensor<8x8xf32>, %w1: tensor<8x8xf32>, %w2: tensor<8x8xf32>) -> tensor<4x8xf32> {
  %m0 = trace.matmul %x, %w0 {trace.name = "blocks.0.fc"} : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32> loc("blocks.0.fc")
  %c = trace.full 2.0 : tensor<4x8xf32> loc("<model>")
  %t0 = trace.mul %m0, %c : tensor<4x8xf32> loc("blocks.0.fc")
  %a0 = trace.tanh %t0 {trace.name = "blocks.0.act"} : tensor<4x8xf32> loc("blocks.0.act")
  %m1 = trace.matmul %a0, %w1 {trace.name = "blocks.1.fc"} : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32> loc("blocks.1.fc")
  %c1 = trace.full 2.0 : tensor<4x8xf32> loc("<model>")
  %t1 = trace.mul %m1, %c1 : tensor<4x8xf32> loc("blocks.1.fc")
  %a1 = trace.tanh %t1 {trace.name = "blocks.1.act"} : tensor<4x8xf32> loc("blocks.1.act")
  %m2 = trace.matmul %a1, %w2 : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32> loc("blocks.2.fc")
  %c2 = trace.full 2.0 : tensor<4x8xf32> loc("<model>")
  %t2 = trace.mul %m2, %c2 : tensor<4x8xf32> loc("blocks.2.fc")
  %a2 = trace.tanh %t2 : tensor<4x8xf32> loc("blocks.2.act")
  %h = trace.tanh %a2 {trace.name = "head"} : tensor<4x8xf32> loc("head")
  return %h : tensor<4x8xf32>
}

// -----

// Layers that differ (tanh against exp) are no repeat: each stays inline.
// A layer whose value is also read after a later layer returns it as well.

// CHECK-LABEL: func.func @different(
// CHECK-NOT: call
// CHECK: trace.tanh
// CHECK: trace.exp
// CHECK: return
// CHECK-NOT: func.func
func.func @different(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a0 = trace.add %x, %x : tensor<4xf32> loc("blocks.0.fc")
  %b0 = trace.mul %a0, %a0 : tensor<4xf32> loc("blocks.0.fc")
  %c0 = trace.tanh %b0 : tensor<4xf32> loc("blocks.0.act")
  %a1 = trace.add %c0, %c0 : tensor<4xf32> loc("blocks.1.fc")
  %b1 = trace.mul %a1, %a1 : tensor<4xf32> loc("blocks.1.fc")
  %c1 = trace.exp %b1 : tensor<4xf32> loc("blocks.1.act")
  return %c1 : tensor<4xf32>
}

// -----

// Two layers alike whose values both leave them: each call returns its
// layer's two values, and the readers after them read the calls' results.

// CHECK-LABEL: func.func @two_results(
// CHECK: %[[L0:.*]]:2 = call @[[F:two_results_blocks_0]](
// CHECK: %[[L1:.*]]:2 = call @[[F]](%[[L0]]#1)
// CHECK: %[[S:.*]] = trace.add %[[L0]]#0, %[[L1]]#0
// CHECK: trace.add %[[S]], %[[L1]]#1
// CHECK: func.func private @[[F]]({{.*}}) -> (tensor<4xf32>, tensor<4xf32>)
func.func @two_results(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a0 = trace.add %x, %x : tensor<4xf32> loc("blocks.0.fc")
  %b0 = trace.mul %a0, %a0 : tensor<4xf32> loc("blocks.0.fc")
  %c0 = trace.tanh %b0 : tensor<4xf32> loc("blocks.0.act")
  %a1 = trace.add %c0, %c0 : tensor<4xf32> loc("blocks.1.fc")
  %b1 = trace.mul %a1, %a1 : tensor<4xf32> loc("blocks.1.fc")
  %c1 = trace.tanh %b1 : tensor<4xf32> loc("blocks.1.act")
  %s = trace.add %a0, %a1 : tensor<4xf32> loc("head")
  %r = trace.add %s, %c1 : tensor<4xf32> loc("head")
  return %r : tensor<4xf32>
}

// -----

// A layer's weight transposes, emitted apart from its matmuls (as autodiff
// emits them), go with each matmul into its layer's function, a clone per
// reader, where trace-fold-transpose-into-matmul can fold them.

// CHECK-LABEL: func.func @transposes(
// CHECK-NOT: trace.transpose
// CHECK: call @[[G:transposes_blocks_0]](%{{.*}}, %{{.*}})
// CHECK: call @[[G]](
// CHECK: func.func private @[[G]](%[[W:.*]]: tensor<8x8xf32>, %[[A:.*]]: tensor<4x8xf32>)
// CHECK-NEXT: %[[T:.*]] = trace.transpose %[[W]]
// CHECK-NEXT: trace.matmul %[[A]], %[[T]]
func.func @transposes(%x: tensor<4x8xf32>, %w0: tensor<8x8xf32>, %w1: tensor<8x8xf32>) -> tensor<4x8xf32> {
  %t0 = trace.transpose %w0, perm = [1, 0] : tensor<8x8xf32> -> tensor<8x8xf32> loc("blocks.0.fc")
  %t1 = trace.transpose %w1, perm = [1, 0] : tensor<8x8xf32> -> tensor<8x8xf32> loc("blocks.1.fc")
  %m0 = trace.matmul %x, %t0 : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32> loc("blocks.0.fc")
  %a0 = trace.tanh %m0 : tensor<4x8xf32> loc("blocks.0.act")
  %b0 = trace.exp %a0 : tensor<4x8xf32> loc("blocks.0.act")
  %m1 = trace.matmul %b0, %t1 : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32> loc("blocks.1.fc")
  %a1 = trace.tanh %m1 : tensor<4x8xf32> loc("blocks.1.act")
  %b1 = trace.exp %a1 : tensor<4x8xf32> loc("blocks.1.act")
  return %b1 : tensor<4x8xf32>
}

// -----

// A recomputed weight transpose that the backward transposes back (as
// trace-schedule leaves them, after the last canonicalization): the pair
// folds to the weight, so the inner transpose is only a matmul's and
// sinks into its layer too; the pair is gone.

// CHECK-LABEL: func.func @transpose_pairs(
// CHECK-NOT: trace.transpose
// CHECK: call @[[P:transpose_pairs_blocks_0]](%{{.*}}, %{{.*}})
// CHECK: call @[[P]](
// CHECK: func.func private @[[P]](%[[W:.*]]: tensor<8x8xf32>, %[[A:.*]]: tensor<4x8xf32>)
// CHECK-NEXT: %[[T:.*]] = trace.transpose %[[W]]
// CHECK-NEXT: %[[M:.*]] = trace.matmul %[[A]], %[[T]]
// CHECK-NEXT: trace.matmul %[[M]], %[[W]]
// CHECK-NOT: trace.transpose
// CHECK: return
func.func @transpose_pairs(%x: tensor<4x8xf32>, %w0: tensor<8x8xf32>, %w1: tensor<8x8xf32>) -> tensor<4x8xf32> {
  %t0 = trace.transpose %w0, perm = [1, 0] {trace.recomputed} : tensor<8x8xf32> -> tensor<8x8xf32> loc("blocks.0.fc")
  %t1 = trace.transpose %w1, perm = [1, 0] {trace.recomputed} : tensor<8x8xf32> -> tensor<8x8xf32> loc("blocks.1.fc")
  %m0 = trace.matmul %x, %t0 : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32> loc("blocks.0.fc")
  %u0 = trace.transpose %t0, perm = [1, 0] : tensor<8x8xf32> -> tensor<8x8xf32> loc("blocks.0.fc")
  %g0 = trace.matmul %m0, %u0 : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32> loc("blocks.0.fc")
  %m1 = trace.matmul %g0, %t1 : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32> loc("blocks.1.fc")
  %u1 = trace.transpose %t1, perm = [1, 0] : tensor<8x8xf32> -> tensor<8x8xf32> loc("blocks.1.fc")
  %g1 = trace.matmul %m1, %u1 : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32> loc("blocks.1.fc")
  return %g1 : tensor<4x8xf32>
}

// -----

// Checkpoint regions, a layer each: the region is the run (its nested ops
// count), and the regions' labels, like the names, do not tell them apart:
// the shared body has none.

// CHECK-LABEL: func.func @regions(
// CHECK: call @[[R:regions_blocks_0]](
// CHECK: call @[[R]](
// CHECK: func.func private @[[R]](
// CHECK: trace.checkpoint ins(
func.func @regions(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r0 = trace.checkpoint "blocks.0" ins(%a = %x : tensor<4xf32>) -> tensor<4xf32> {
    %t = trace.tanh %a : tensor<4xf32>
    %s = trace.mul %t, %t : tensor<4xf32>
    trace.yield %s : tensor<4xf32>
  } loc("blocks.0")
  %r1 = trace.checkpoint "blocks.1" ins(%a = %r0 : tensor<4xf32>) -> tensor<4xf32> {
    %t = trace.tanh %a : tensor<4xf32>
    %s = trace.mul %t, %t : tensor<4xf32>
    trace.yield %s : tensor<4xf32>
  } loc("blocks.1")
  return %r1 : tensor<4xf32>
}

// -----

// Layers that differ only in a constant are no repeat, even when the
// constants would print elided (--mlir-elide-elementsattrs-if-larger), and
// locations, printed with --mlir-print-debuginfo, do not keep equal layers
// apart: the first layer of @constants and both of @alike share one
// function; the second of @constants stays inline.

// FLAGS-LABEL: func.func @constants(
// FLAGS-NEXT: call @[[A:constants_blocks_0]](
// FLAGS-NEXT: trace.constant
// FLAGS-NEXT: trace.add
// FLAGS-NEXT: trace.tanh
// FLAGS-NEXT: return
// FLAGS-LABEL: func.func @alike(
// FLAGS-NEXT: %[[L0:.*]] = call @[[A]](
// FLAGS-NEXT: call @[[A]](%[[L0]])
// FLAGS-NEXT: return
func.func @constants(%x: tensor<4xf32>) -> tensor<4xf32> {
  %k0 = trace.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32> loc("blocks.0.fc")
  %a0 = trace.add %x, %k0 : tensor<4xf32> loc("blocks.0.fc")
  %b0 = trace.tanh %a0 : tensor<4xf32> loc("blocks.0.act")
  %k1 = trace.constant dense<[5.0, 6.0, 7.0, 8.0]> : tensor<4xf32> loc("blocks.1.fc")
  %a1 = trace.add %b0, %k1 : tensor<4xf32> loc("blocks.1.fc")
  %b1 = trace.tanh %a1 : tensor<4xf32> loc("blocks.1.act")
  return %b1 : tensor<4xf32>
}
func.func @alike(%x: tensor<4xf32>) -> tensor<4xf32> {
  %k0 = trace.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32> loc("blocks.0.fc")
  %a0 = trace.add %x, %k0 : tensor<4xf32> loc("blocks.0.fc")
  %b0 = trace.tanh %a0 : tensor<4xf32> loc("blocks.0.act")
  %k1 = trace.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32> loc("blocks.1.fc")
  %a1 = trace.add %b0, %k1 : tensor<4xf32> loc("blocks.1.fc")
  %b1 = trace.tanh %a1 : tensor<4xf32> loc("blocks.1.act")
  return %b1 : tensor<4xf32>
}
