// trace.checkpoint: nested regions, policies and multiple results round-trip
// through the custom and the generic form.
// RUN: trace-opt %s | FileCheck %s
// RUN: trace-opt %s | trace-opt | FileCheck %s
// RUN: trace-opt %s --mlir-print-op-generic | trace-opt | FileCheck %s

// CHECK-LABEL: func @nested
// CHECK-SAME: (%[[A:.*]]: tensor<4x8xf32>, %[[W1:.*]]: tensor<8x8xf32>, %[[W2:.*]]: tensor<8x8xf32>)
func.func @nested(%a: tensor<4x8xf32>, %w1: tensor<8x8xf32>, %w2: tensor<8x8xf32>)
    -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  // CHECK: %[[R:.*]]:2 = trace.checkpoint "blocks.0" policy = #trace.policy<save_ops = ["trace.matmul"]>
  // CHECK-SAME: ins(%[[X:.*]] = %[[A]] : tensor<4x8xf32>, %[[P:.*]] = %[[W1]] : tensor<8x8xf32>, %[[Q:.*]] = %[[W2]] : tensor<8x8xf32>)
  // CHECK-SAME: -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %r:2 = trace.checkpoint "blocks.0" policy = #trace.policy<save_ops = ["trace.matmul"]>
      ins(%x = %a : tensor<4x8xf32>, %p = %w1 : tensor<8x8xf32>, %q = %w2 : tensor<8x8xf32>)
      -> (tensor<4x8xf32>, tensor<4x8xf32>) {
    // CHECK-NEXT: %[[M:.*]] = trace.matmul %[[X]], %[[P]]
    %m = trace.matmul %x, %p : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
    // CHECK-NEXT: %[[IN:.*]] = trace.checkpoint "blocks.0.mlp" policy = #trace.policy<save_names = ["blocks.0.mlp.act"]>
    // CHECK-SAME: ins(%[[Y:.*]] = %[[M]] : tensor<4x8xf32>, %[[V:.*]] = %[[Q]] : tensor<8x8xf32>) -> tensor<4x8xf32> {
    %inner = trace.checkpoint "blocks.0.mlp" policy = #trace.policy<save_names = ["blocks.0.mlp.act"]>
        ins(%y = %m : tensor<4x8xf32>, %v = %q : tensor<8x8xf32>) -> tensor<4x8xf32> {
      // CHECK-NEXT: %[[ACT:.*]] = trace.tanh %[[Y]] {trace.name = "blocks.0.mlp.act"}
      %t = trace.tanh %y {trace.name = "blocks.0.mlp.act"} : tensor<4x8xf32>
      // CHECK-NEXT: %[[O:.*]] = trace.matmul %[[ACT]], %[[V]]
      %o = trace.matmul %t, %v : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
      // CHECK-NEXT: trace.yield %[[O]] : tensor<4x8xf32>
      trace.yield %o : tensor<4x8xf32>
    // CHECK-NEXT: }
    }
    // CHECK-NEXT: %[[S:.*]] = trace.add %[[IN]], %[[X]]
    %s = trace.add %inner, %x : tensor<4x8xf32>
    // CHECK-NEXT: trace.yield %[[S]], %[[M]] : tensor<4x8xf32>, tensor<4x8xf32>
    trace.yield %s, %m : tensor<4x8xf32>, tensor<4x8xf32>
  // CHECK-NEXT: }
  }
  // CHECK-NEXT: return %[[R]]#0, %[[R]]#1
  return %r#0, %r#1 : tensor<4x8xf32>, tensor<4x8xf32>
}

// A region without name, policy, inputs or results, and one with extra
// attributes, parse and print.
// CHECK-LABEL: func @minimal
func.func @minimal() -> tensor<2xf32> {
  // CHECK: trace.checkpoint ins() {
  // CHECK-NEXT: trace.yield
  trace.checkpoint ins() {
    trace.yield
  }
  // CHECK: trace.checkpoint ins() -> tensor<2xf32> {
  // CHECK: } attributes {origin = "torch.utils.checkpoint"}
  %0 = trace.checkpoint ins() -> tensor<2xf32> {
    %c = trace.full 1.0 : tensor<2xf32>
    trace.yield %c : tensor<2xf32>
  } attributes {origin = "torch.utils.checkpoint"}
  return %0 : tensor<2xf32>
}
