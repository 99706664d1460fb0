// RUN: trace-opt %s --split-input-file --verify-diagnostics --allow-unregistered-dialect \
// RUN:   --pass-pipeline='builtin.module(func.func(trace-distinct-results))' \
// RUN:   | FileCheck %s

// A value returned twice: the repeat is a copy in a buffer of its own, so
// buffer-results-to-out-params gives each result its own out-param. The
// function's argument count is recorded (trace.inputs): what that pass
// appends after them are out-params.
// CHECK-LABEL: func.func @twice(
// CHECK-SAME: %[[X:.*]]: memref<4xf32>
// CHECK-SAME: attributes {trace.inputs = 1 : i64}
// CHECK: %[[A:.*]] = memref.alloc() : memref<4xf32>
// CHECK: "test.fill"(%[[A]])
// CHECK: %[[K:.*]] = arith.constant 1 : i32
// CHECK-NEXT: %[[C:.*]] = memref.alloc() : memref<4xf32>
// CHECK-NEXT: memref.copy %[[A]], %[[C]]
// CHECK-NEXT: %[[D:.*]] = memref.alloc() : memref<4xf32>
// CHECK-NEXT: memref.copy %[[X]], %[[D]]
// CHECK-NEXT: return %[[A]], %[[C]], %[[X]], %[[D]], %[[K]] :
func.func @twice(%x: memref<4xf32>) -> (memref<4xf32>, memref<4xf32>, memref<4xf32>, memref<4xf32>, i32) {
  %a = memref.alloc() : memref<4xf32>
  "test.fill"(%a) : (memref<4xf32>) -> ()
  %c = arith.constant 1 : i32
  return %a, %a, %x, %x, %c : memref<4xf32>, memref<4xf32>, memref<4xf32>, memref<4xf32>, i32
}

// -----

// Distinct results and non-memref repeats are left alone.
// CHECK-LABEL: func.func @distinct(
// CHECK-NOT: memref.copy
// CHECK: return %arg0, %arg1, %{{.*}}, %{{.*}}
func.func @distinct(%x: memref<4xf32>, %y: memref<4xf32>) -> (memref<4xf32>, memref<4xf32>, i32, i32) {
  %c = arith.constant 1 : i32
  return %x, %y, %c, %c : memref<4xf32>, memref<4xf32>, i32, i32
}

// -----

// A strided view returned twice cannot keep its layout at the boundary.
func.func @strided(%x: memref<4x4xf32>) -> (memref<4xf32, strided<[4]>>, memref<4xf32, strided<[4]>>) {
  %v = memref.subview %x[0, 0] [4, 1] [1, 1] : memref<4x4xf32> to memref<4xf32, strided<[4]>>
  // expected-error @+1 {{returns a buffer with layout 'memref<4xf32, strided<[4]>>' twice}}
  return %v, %v : memref<4xf32, strided<[4]>>, memref<4xf32, strided<[4]>>
}

// -----

func.func @dynamic(%x: memref<?xf32>) -> (memref<?xf32>, memref<?xf32>) {
  // expected-error @+1 {{returns a dynamically shaped buffer twice (result 1)}}
  return %x, %x : memref<?xf32>, memref<?xf32>
}
