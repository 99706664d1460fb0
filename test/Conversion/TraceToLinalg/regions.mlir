// trace.checkpoint and trace.fusion are inlined: block arguments become the
// region's operands and results the yielded values, nested regions included.
// Discardable trace.* attributes (value names) are dropped everywhere, so
// stock MLIR can parse the output.
// RUN: trace-opt %s --split-input-file --trace-to-linalg | FileCheck %s

// CHECK-LABEL: func.func @checkpoint
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>, %[[W:.*]]: tensor<8x8xf32>)
// CHECK-NOT: trace.
// CHECK: %[[M:.*]] = linalg.matmul ins(%[[X]], %[[W]] : tensor<4x8xf32>, tensor<8x8xf32>)
// CHECK: %[[T:.*]] = linalg.generic
// CHECK-SAME: ins(%[[M]] : tensor<4x8xf32>)
// CHECK: math.tanh
// CHECK: return %[[T]]
// CHECK-NOT: trace.
func.func @checkpoint(%a: tensor<4x8xf32>, %b: tensor<8x8xf32>) -> tensor<4x8xf32> {
  %y = trace.checkpoint "blocks.0" policy = #trace.policy<save_ops = ["trace.matmul"]>
      ins(%x = %a : tensor<4x8xf32>, %w = %b : tensor<8x8xf32>) -> tensor<4x8xf32> {
    %m = trace.matmul %x, %w {trace.name = "blocks.0.fc"} : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
    %r = trace.tanh %m : tensor<4x8xf32>
    trace.yield %r : tensor<4x8xf32>
  }
  return %y : tensor<4x8xf32>
}

// -----

// A fusion inside a checkpoint inside a checkpoint; one result passes an
// input through, one yields a value computed in the outer region.
// CHECK-LABEL: func.func @nested
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>, %[[Y:.*]]: tensor<4xf32>)
// CHECK-NOT: trace.
// CHECK: %[[S:.*]] = linalg.generic {{.*}} ins(%[[X]], %[[Y]] : tensor<4xf32>, tensor<4xf32>)
// CHECK: arith.addf
// CHECK: %[[T:.*]] = linalg.generic {{.*}} ins(%[[S]] : tensor<4xf32>)
// CHECK: math.tanh
// CHECK: %[[P:.*]] = linalg.generic {{.*}} ins(%[[T]], %[[X]] : tensor<4xf32>, tensor<4xf32>)
// CHECK: arith.mulf
// CHECK: return %[[P]], %[[Y]], %[[S]] : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
func.func @nested(%x: tensor<4xf32>, %y: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %r:3 = trace.checkpoint "outer" ins(%a = %x : tensor<4xf32>, %b = %y : tensor<4xf32>)
      -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
    %s = trace.add %a, %b : tensor<4xf32>
    %f = trace.fusion "kernel" ins(%p = %s : tensor<4xf32>, %q = %a : tensor<4xf32>) -> tensor<4xf32> {
      %inner = trace.checkpoint ins(%u = %p : tensor<4xf32>) -> tensor<4xf32> {
        %t = trace.tanh %u : tensor<4xf32>
        trace.yield %t : tensor<4xf32>
      }
      %m = trace.mul %inner, %q : tensor<4xf32>
      trace.yield %m : tensor<4xf32>
    }
    trace.yield %f, %b, %s : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
  }
  return %r#0, %r#1, %r#2 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// trace.* attributes on surrounding ops, function arguments and results go;
// other attributes stay.
// CHECK: module attributes {keep.me = 1 : i64} {
// CHECK-LABEL: func.func @names
// CHECK-SAME: (%{{.*}}: tensor<4xf32>, %{{.*}}: tensor<4xf32> {keep.arg}) -> tensor<4xf32>
// CHECK-SAME: attributes {keep.fn}
// CHECK-NOT: trace.
module attributes {trace.model = "mlp", keep.me = 1} {
  func.func @names(%x: tensor<4xf32> {trace.name = "x"}, %y: tensor<4xf32> {trace.name = "y", keep.arg})
      -> (tensor<4xf32> {trace.name = "out"}) attributes {trace.name = "forward", keep.fn} {
    %0 = trace.add %x, %y {trace.name = "sum"} : tensor<4xf32>
    return {trace.name = "ret"} %0 : tensor<4xf32>
  }
}
