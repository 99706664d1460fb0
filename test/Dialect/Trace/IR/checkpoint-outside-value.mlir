// A checkpoint region that uses a value from outside is rejected with the
// file, line and column of the use, a note at the region, and exit code 1.
// RUN: not trace-opt %s 2>&1 | FileCheck %s

// CHECK: checkpoint-outside-value.mlir:[[@LINE+5]]:10: error: 'trace.add' op using value defined outside the region
// CHECK: checkpoint-outside-value.mlir:[[@LINE+3]]:8: note: required by region isolation constraints
// CHECK-NOT: error:
func.func @uses_outside(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = trace.checkpoint "blocks.0" ins(%x = %a : tensor<4xf32>) -> tensor<4xf32> {
    %s = trace.add %x, %b : tensor<4xf32>
    trace.yield %s : tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}
