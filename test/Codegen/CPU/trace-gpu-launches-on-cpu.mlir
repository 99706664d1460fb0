// trace-gpu-launches-on-cpu: a gpu.launch becomes loops over its blocks and
// threads; a barrier (gpu.barrier, or the one in gpu.all_reduce) splits
// the body into phases, each a loop over all the block's threads; values
// crossing a barrier are kept per thread; an all-reduce folds its operands
// in thread order.
// RUN: trace-opt %s --split-input-file --verify-diagnostics --trace-gpu-launches-on-cpu | FileCheck %s

// CHECK-LABEL: func @phases
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : index
// CHECK-DAG: %[[C32:.*]] = arith.constant 32 : index
// CHECK: arith.muli
// CHECK: %[[THREADS:.*]] = arith.muli
// CHECK: %[[KEPT:.*]] = memref.alloca(%[[THREADS]]) : memref<?xf32>
// CHECK: %[[PARTS:.*]] = memref.alloca(%[[THREADS]]) : memref<?xf32>
// Blocks: z, y, x.
// CHECK: scf.for %{{.*}} = %{{.*}} to %[[C1]]
// CHECK: scf.for %{{.*}} = %{{.*}} to %[[C1]]
// CHECK: scf.for %[[BX:.*]] = %{{.*}} to %[[C4]]
// Phase 1: every thread loads its element, keeps it, offers it to the sum.
// CHECK:   scf.for
// CHECK:   scf.for
// CHECK:   scf.for %[[TX:.*]] = %{{.*}} to %[[C32]]
// CHECK:     %[[V:.*]] = memref.load %arg0[%[[BX]], %[[TX]]]
// CHECK:     memref.store %[[V]], %[[KEPT]][%[[L:.*]]]
// CHECK:     memref.store %[[V]], %[[PARTS]][%[[L]]]
// The fold, in thread order.
// CHECK:   %[[FIRST:.*]] = memref.load %[[PARTS]][%{{.*}}]
// CHECK:   %[[SUM:.*]] = scf.for %[[I:.*]] = %{{.*}} to %[[THREADS]] step %{{.*}} iter_args(%[[ACC:.*]] = %[[FIRST]]) -> (f32) {
// CHECK:     %[[NEXT:.*]] = memref.load %[[PARTS]][%[[I]]]
// CHECK:     %[[ADD:.*]] = arith.addf %[[ACC]], %[[NEXT]] : f32
// CHECK:     scf.yield %[[ADD]]
// Phase 2: each thread reads back its own element and the total.
// CHECK:   scf.for
// CHECK:   scf.for
// CHECK:   scf.for %[[TX2:.*]] = %{{.*}} to %[[C32]]
// CHECK:     %[[MINE:.*]] = memref.load %[[KEPT]][%{{.*}}]
// CHECK:     %[[Q:.*]] = arith.divf %[[MINE]], %[[SUM]] : f32
// CHECK:     memref.store %[[Q]], %arg1[%[[BX]], %[[TX2]]]
// CHECK-NOT: gpu.
func.func @phases(%x: memref<4x32xf32>, %y: memref<4x32xf32>) {
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c4, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
    %v = memref.load %x[%bx, %tx] : memref<4x32xf32>
    %s = gpu.all_reduce add %v uniform {} : (f32) -> f32
    %q = arith.divf %v, %s : f32
    memref.store %q, %y[%bx, %tx] : memref<4x32xf32>
    gpu.terminator
  }
  return
}

// -----

// A plain barrier splits the body without a fold.
// CHECK-LABEL: func @barrier
// CHECK-DAG: %[[C8:.*]] = arith.constant 8 : index
// CHECK:   scf.for %[[TX:.*]] = %{{.*}} to %[[C8]]
// CHECK:     memref.store %{{.*}}, %arg0[%[[TX]]]
// CHECK:   scf.for %[[TX2:.*]] = %{{.*}} to %[[C8]]
// CHECK:     %[[M:.*]] = arith.subi %{{.*}}, %[[TX2]]
// CHECK:     memref.load %arg0[%[[M]]]
// CHECK-NOT: gpu.barrier
func.func @barrier(%buf: memref<8xf32>, %out: memref<8xf32>) {
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c7 = arith.constant 7 : index
  %one = arith.constant 1.0 : f32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c8, %sy = %c1, %sz = %c1) {
    memref.store %one, %buf[%tx] : memref<8xf32>
    gpu.barrier
    %mirror = arith.subi %c7, %tx : index
    %v = memref.load %buf[%mirror] : memref<8xf32>
    memref.store %v, %out[%tx] : memref<8xf32>
    gpu.terminator
  }
  return
}

// -----

func.func @nested_barrier(%buf: memref<8xf32>, %cond: i1) {
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c8, %sy = %c1, %sz = %c1) {
    // expected-error @+1 {{'scf.if' op holds a barrier below the kernel's top level, which the CPU emulation does not support}}
    scf.if %cond {
      gpu.barrier
    }
    gpu.terminator
  }
  return
}
