// Canonicalization of checkpoint and fusion regions: unused results and
// inputs go, duplicate inputs merge, pass-through results bypass the region,
// and a region with nothing left disappears.
// RUN: trace-opt %s -canonicalize -split-input-file | FileCheck %s

// CHECK-LABEL: func @drop_unused_result_and_input
// CHECK-SAME: (%[[A:.*]]: tensor<4xf32>, %[[B:.*]]: tensor<4xf32>)
// CHECK: %[[R:.*]] = trace.checkpoint "blk" ins(%[[X:.*]] = %[[A]] : tensor<4xf32>) -> tensor<4xf32> {
// CHECK-NEXT: %[[E:.*]] = trace.exp %[[X]]
// CHECK-NEXT: trace.yield %[[E]] : tensor<4xf32>
// CHECK-NEXT: }
// CHECK-NEXT: return %[[R]]
func.func @drop_unused_result_and_input(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %r:2 = trace.checkpoint "blk" ins(%x = %a : tensor<4xf32>, %y = %b : tensor<4xf32>)
      -> (tensor<4xf32>, tensor<4xf32>) {
    %e = trace.exp %x : tensor<4xf32>
    %t = trace.tanh %y : tensor<4xf32>
    trace.yield %e, %t : tensor<4xf32>, tensor<4xf32>
  }
  return %r#0 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func @pass_through_and_duplicates
// CHECK-SAME: (%[[A:.*]]: tensor<4xf32>)
// CHECK: %[[R:.*]] = trace.checkpoint ins(%[[X:.*]] = %[[A]] : tensor<4xf32>) -> tensor<4xf32> {
// CHECK-NEXT: %[[S:.*]] = trace.mul %[[X]], %[[X]]
// CHECK-NEXT: trace.yield %[[S]]
// CHECK: return %[[R]], %[[A]]
func.func @pass_through_and_duplicates(%a: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %r:2 = trace.checkpoint ins(%x = %a : tensor<4xf32>, %y = %a : tensor<4xf32>)
      -> (tensor<4xf32>, tensor<4xf32>) {
    %s = trace.mul %x, %y : tensor<4xf32>
    trace.yield %s, %y : tensor<4xf32>, tensor<4xf32>
  }
  return %r#0, %r#1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// CHECK-LABEL: func @empty_region_vanishes
// CHECK-SAME: (%[[A:.*]]: tensor<4xf32>)
// CHECK-NOT: trace.checkpoint
// CHECK: return %[[A]]
func.func @empty_region_vanishes(%a: tensor<4xf32>) -> tensor<4xf32> {
  %r = trace.checkpoint ins(%x = %a : tensor<4xf32>) -> tensor<4xf32> {
    trace.yield %x : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

// Folds apply inside regions; the region op itself is kept when used.
// CHECK-LABEL: func @folds_inside
// CHECK: trace.fusion "f0" ins(%[[X:.*]] = %{{.*}} : tensor<4xf32>) -> tensor<4xf32> {
// CHECK-NEXT: %[[T:.*]] = trace.tanh %[[X]]
// CHECK-NEXT: trace.yield %[[T]]
func.func @folds_inside(%a: tensor<4xf32>) -> tensor<4xf32> {
  %r = trace.fusion "f0" ins(%x = %a : tensor<4xf32>) -> tensor<4xf32> {
    %one = trace.full 1.0 : tensor<4xf32>
    %m = trace.mul %x, %one : tensor<4xf32>
    %t = trace.tanh %m : tensor<4xf32>
    trace.yield %t : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

// A region whose results are all unused is removed with its body.
// CHECK-LABEL: func @unused_region
// CHECK-NOT: trace.
// CHECK: return
func.func @unused_region(%a: tensor<4xf32>) {
  %r = trace.checkpoint ins(%x = %a : tensor<4xf32>) -> tensor<4xf32> {
    %e = trace.exp %x : tensor<4xf32>
    trace.yield %e : tensor<4xf32>
  }
  return
}
