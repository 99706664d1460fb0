// trace-canonicalize folds trace ops and cleans up regions, and leaves other
// dialects' ops alone (the upstream canonicalizer would fold the arith ops).
// RUN: trace-opt %s -trace-canonicalize -split-input-file | FileCheck %s

// CHECK-LABEL: func @only_trace_ops
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>, %[[I:.*]]: i32)
// CHECK-NEXT: %[[C0:.*]] = arith.constant 0 : i32
// CHECK-NEXT: %[[ADDI:.*]] = arith.addi %[[I]], %[[C0]] : i32
// CHECK-NEXT: return %[[X]], %[[ADDI]]
func.func @only_trace_ops(%x: tensor<4xf32>, %i: i32) -> (tensor<4xf32>, i32) {
  %z = trace.full 0.0 : tensor<4xf32>
  %0 = trace.add %x, %z : tensor<4xf32>
  %c0 = arith.constant 0 : i32
  %1 = arith.addi %i, %c0 : i32
  return %0, %1 : tensor<4xf32>, i32
}

// -----

// CHECK-LABEL: func @regions
// CHECK-SAME: (%[[A:.*]]: tensor<4x4xf32>, %[[B:.*]]: tensor<4x4xf32>)
// CHECK-NEXT: %[[R:.*]] = trace.checkpoint "blk" ins(%[[X:.*]] = %[[A]] : tensor<4x4xf32>) -> tensor<4x4xf32> {
// CHECK-NEXT: %[[T:.*]] = trace.transpose %[[X]], perm = [1, 0]
// CHECK-NEXT: %[[M:.*]] = trace.matmul %[[X]], %[[T]]
// CHECK-NEXT: trace.yield %[[M]]
// CHECK-NEXT: }
// CHECK-NEXT: return %[[R]]
func.func @regions(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %r:2 = trace.checkpoint "blk" ins(%x = %a : tensor<4x4xf32>, %y = %b : tensor<4x4xf32>)
      -> (tensor<4x4xf32>, tensor<4x4xf32>) {
    %t1 = trace.transpose %x, perm = [1, 0] : tensor<4x4xf32> -> tensor<4x4xf32>
    %t2 = trace.transpose %t1, perm = [1, 0] : tensor<4x4xf32> -> tensor<4x4xf32>
    %t3 = trace.transpose %t2, perm = [1, 0] : tensor<4x4xf32> -> tensor<4x4xf32>
    %m = trace.matmul %t2, %t3 : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
    %u = trace.exp %y : tensor<4x4xf32>
    trace.yield %m, %u : tensor<4x4xf32>, tensor<4x4xf32>
  }
  return %r#0 : tensor<4x4xf32>
}
