// RUN: trace-opt %s -pass-pipeline='builtin.module(func.func(trace-copy-kernels))' | FileCheck %s

// A copy into a slice of a concatenation's buffer becomes a linalg.copy;
// one between contiguous buffers (a memcpy), one of dynamic shape and a
// 0-d one stay memref.copy.
// CHECK-LABEL: func.func @copies(
// CHECK-SAME: %[[Q:[^:]*]]: memref<8x16xf32>, %[[QKV:[^:]*]]: memref<8x48xf32>, %[[D:[^:]*]]: memref<?xf32>, %[[E:[^:]*]]: memref<?xf32>, %[[S:[^:]*]]: memref<f32>, %[[T:[^:]*]]: memref<f32>, %[[K:[^:]*]]: memref<8x16xf32>)
// CHECK: %[[SLICE:.*]] = memref.subview %[[QKV]][0, 16] [8, 16] [1, 1]
// CHECK: linalg.copy ins(%[[Q]] : memref<8x16xf32>) outs(%[[SLICE]] : memref<8x16xf32, strided<[48, 1], offset: 16>>)
// CHECK: memref.copy %[[D]], %[[E]] : memref<?xf32> to memref<?xf32>
// CHECK: memref.copy %[[S]], %[[T]] : memref<f32> to memref<f32>
// CHECK: memref.copy %[[Q]], %[[K]] : memref<8x16xf32> to memref<8x16xf32>
func.func @copies(%q: memref<8x16xf32>, %qkv: memref<8x48xf32>,
                  %d: memref<?xf32>, %e: memref<?xf32>,
                  %s: memref<f32>, %t: memref<f32>, %k: memref<8x16xf32>) {
  %slice = memref.subview %qkv[0, 16] [8, 16] [1, 1] : memref<8x48xf32> to memref<8x16xf32, strided<[48, 1], offset: 16>>
  memref.copy %q, %slice : memref<8x16xf32> to memref<8x16xf32, strided<[48, 1], offset: 16>>
  memref.copy %d, %e : memref<?xf32> to memref<?xf32>
  memref.copy %s, %t : memref<f32> to memref<f32>
  memref.copy %q, %k : memref<8x16xf32> to memref<8x16xf32>
  return
}
