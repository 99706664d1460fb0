// RUN: trace-opt %s --split-input-file --verify-diagnostics \
// RUN:   --pass-pipeline='builtin.module(func.func(trace-free-donated))' \
// RUN:   | FileCheck %s
// With trace-early-dealloc after it, as the CPU pipeline runs them: each
// donated buffer is freed right after its last use, through a view too.
// RUN: trace-opt %s --split-input-file --verify-diagnostics \
// RUN:   --pass-pipeline='builtin.module(func.func(trace-free-donated,trace-early-dealloc))' \
// RUN:   | FileCheck %s --check-prefix=EARLY

// A donated argument is freed before the return and loses its mark; the
// others are left alone.
// CHECK-LABEL: func.func @donated(
// CHECK-SAME: %[[S:[^:]*]]: memref<4xf32>, %[[T:[^:]*]]: memref<2x2xf32>, %[[X:[^:]*]]: memref<4xf32>, %[[OUT:[^:]*]]: memref<4xf32>)
// CHECK-NOT: trace.donated
// CHECK: memref.dealloc %[[S]]
// CHECK-NEXT: memref.dealloc %[[T]]
// CHECK-NEXT: return
// EARLY-LABEL: func.func @donated(
// EARLY-SAME: %[[S:[^:]*]]: memref<4xf32>, %[[T:[^:]*]]: memref<2x2xf32>,
// EARLY: memref.copy %[[S]], %{{.*}}
// EARLY-NEXT: memref.dealloc %[[S]]
// EARLY-NEXT: %[[V:.*]] = memref.collapse_shape %[[T]]
// EARLY-NEXT: memref.copy %[[V]], %{{.*}}
// EARLY-NEXT: memref.dealloc %[[T]]
// EARLY-NEXT: memref.copy
// EARLY-NEXT: return
func.func @donated(%s: memref<4xf32> {trace.donated}, %t: memref<2x2xf32> {trace.donated}, %x: memref<4xf32>, %out: memref<4xf32>) {
  memref.copy %s, %out : memref<4xf32> to memref<4xf32>
  %v = memref.collapse_shape %t [[0, 1]] : memref<2x2xf32> into memref<4xf32>
  memref.copy %v, %out : memref<4xf32> to memref<4xf32>
  memref.copy %x, %out : memref<4xf32> to memref<4xf32>
  return
}

// -----

// expected-error @+1 {{argument 0 is donated (trace.donated) but is not a buffer: 'f32'}}
func.func @scalar(%s: f32 {trace.donated}) {
  return
}
