// Tensor arguments of public functions become read-only for bufferization.
// RUN: trace-opt %s -pass-pipeline='builtin.module(func.func(trace-readonly-args))' | FileCheck %s

// CHECK-LABEL: func @public
// CHECK-SAME: (%{{.*}}: tensor<4xf32> {bufferization.writable = false, trace.name = "x"}, %{{.*}}: i32)
func.func @public(%x: tensor<4xf32> {trace.name = "x"}, %i: i32) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}

// CHECK-LABEL: func private @private
// CHECK-SAME: (%{{.*}}: tensor<4xf32>)
func.func private @private(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
