// RUN: trace-opt %s -pass-pipeline='builtin.module(func.func(trace-parallel-loops{min-work=4096}))' | FileCheck %s

// Enough work (64 x 128 iterations of a 5-op body): the loop stays
// parallel for convert-scf-to-openmp; the parallel loop inside it runs in
// order within each iteration.
// CHECK-LABEL: func.func @big(
// CHECK: scf.parallel (%[[I:.*]]) =
// CHECK-NOT: scf.parallel
// CHECK:   scf.for %[[J:.*]] =
// CHECK:     memref.load %{{.*}}[%[[I]], %[[J]]]
func.func @big(%in: memref<64x128xf32>, %out: memref<64x128xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  scf.parallel (%i) = (%c0) to (%c64) step (%c1) {
    scf.parallel (%j) = (%c0) to (%c128) step (%c1) {
      %x = memref.load %in[%i, %j] : memref<64x128xf32>
      %y = arith.mulf %x, %x : f32
      memref.store %y, %out[%i, %j] : memref<64x128xf32>
    }
  }
  return
}

// Too little work: every dim becomes an scf.for, the first outermost.
// CHECK-LABEL: func.func @small(
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : index
// CHECK-DAG: %[[C8:.*]] = arith.constant 8 : index
// CHECK-NOT: scf.parallel
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %[[C4]] step
// CHECK:   scf.for %[[J:.*]] = %{{.*}} to %[[C8]] step
// CHECK:     memref.load %{{.*}}[%[[I]], %[[J]]] : memref<4x8xf32>
func.func @small(%in: memref<4x8xf32>, %out: memref<4x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c4, %c8) step (%c1, %c1) {
    %x = memref.load %in[%i, %j] : memref<4x8xf32>
    memref.store %x, %out[%i, %j] : memref<4x8xf32>
  }
  return
}

// Few iterations, but each runs a long sequential loop: the nested loop's
// trip count counts (8 x 1024 x 3 ops).
// CHECK-LABEL: func.func @rows(
// CHECK: scf.parallel
// CHECK:   scf.for
func.func @rows(%in: memref<8x1024xf32>, %out: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c1024 = arith.constant 1024 : index
  scf.parallel (%r) = (%c0) to (%c8) step (%c1) {
    scf.for %k = %c0 to %c1024 step %c1 {
      %x = memref.load %in[%r, %k] : memref<8x1024xf32>
      %acc = memref.load %out[%r] : memref<8xf32>
      %s = arith.addf %acc, %x : f32
      memref.store %s, %out[%r] : memref<8xf32>
    }
  }
  return
}

// One iteration has no one to share it with; a dynamic bound counts as
// enough.
// CHECK-LABEL: func.func @one_and_dynamic(
// CHECK-NOT: scf.parallel
// CHECK: scf.for %[[I:.*]] =
// CHECK:   scf.for %[[K:.*]] =
// CHECK:     memref.load %{{.*}}[%[[I]], %[[K]]] : memref<1x65536xf32>
// CHECK: scf.parallel
// CHECK-NOT: scf.for
func.func @one_and_dynamic(%in: memref<1x65536xf32>, %dyn: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %big = arith.constant 65536 : index
  scf.parallel (%i) = (%c0) to (%c1) step (%c1) {
    scf.for %k = %c0 to %big step %c1 {
      %x = memref.load %in[%i, %k] : memref<1x65536xf32>
      memref.store %x, %in[%i, %k] : memref<1x65536xf32>
    }
  }
  %n = memref.dim %dyn, %c0 : memref<?xf32>
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    %x = memref.load %dyn[%i] : memref<?xf32>
    memref.store %x, %dyn[%i] : memref<?xf32>
  }
  return
}

// A loop with a reduction runs in order whatever its work (a team would
// combine partial sums in no fixed order): its reduction becomes an
// iteration argument, combined in iteration order.
// CHECK-LABEL: func.func @reduction(
// CHECK-NOT: scf.parallel
// CHECK: %[[SUM:.*]] = scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (f32)
// CHECK:   %[[X:.*]] = memref.load %{{.*}}[%[[I]]] : memref<65536xf32>
// CHECK:   %[[S:.*]] = arith.addf %[[ACC]], %[[X]] : f32
// CHECK:   scf.yield %[[S]] : f32
// CHECK: return %[[SUM]]
func.func @reduction(%in: memref<65536xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 65536 : index
  %zero = arith.constant 0.0 : f32
  %sum = scf.parallel (%i) = (%c0) to (%n) step (%c1) init (%zero) -> f32 {
    %x = memref.load %in[%i] : memref<65536xf32>
    scf.reduce(%x : f32) {
    ^bb0(%a: f32, %b: f32):
      %s = arith.addf %a, %b : f32
      scf.reduce.return %s : f32
    }
  }
  return %sum : f32
}

// A kept loop of several dims keeps the fewest leading ones with 64
// iterations, never the innermost: here 4 x 32 stay parallel, the 64
// columns become a loop inside.
// CHECK-LABEL: func.func @leading_dims(
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : index
// CHECK-DAG: %[[C32:.*]] = arith.constant 32 : index
// CHECK-DAG: %[[C64:.*]] = arith.constant 64 : index
// CHECK: scf.parallel (%[[I:.*]], %[[J:.*]]) = (%{{.*}}, %{{.*}}) to (%[[C4]], %[[C32]]) step
// CHECK:   scf.for %[[K:.*]] = %{{.*}} to %[[C64]] step
// CHECK:     memref.load %{{.*}}[%[[I]], %[[J]], %[[K]]] : memref<4x32x64xf32>
// CHECK-NOT: scf.parallel
func.func @leading_dims(%in: memref<4x32x64xf32>, %out: memref<4x32x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  scf.parallel (%i, %j, %k) = (%c0, %c0, %c0) to (%c4, %c32, %c64) step (%c1, %c1, %c1) {
    %x = memref.load %in[%i, %j, %k] : memref<4x32x64xf32>
    memref.store %x, %out[%i, %j, %k] : memref<4x32x64xf32>
  }
  return
}

// Fewer rows than 64: only the row dim is parallel all the same.
// CHECK-LABEL: func.func @few_rows(
// CHECK: scf.parallel (%[[R:[^)]*]]) =
// CHECK:   scf.for
func.func @few_rows(%in: memref<8x4096xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c4096 = arith.constant 4096 : index
  scf.parallel (%r, %k) = (%c0, %c0) to (%c8, %c4096) step (%c1, %c1) {
    %x = memref.load %in[%r, %k] : memref<8x4096xf32>
    memref.store %x, %in[%r, %k] : memref<8x4096xf32>
  }
  return
}

// A large loop inside a loop of one iteration, which runs in order, keeps
// its team.
// CHECK-LABEL: func.func @under_one(
// CHECK: scf.for
// CHECK:   scf.parallel
func.func @under_one(%in: memref<1x65536xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %big = arith.constant 65536 : index
  scf.parallel (%i) = (%c0) to (%c1) step (%c1) {
    scf.parallel (%k) = (%c0) to (%big) step (%c1) {
      %x = memref.load %in[%i, %k] : memref<1x65536xf32>
      memref.store %x, %in[%i, %k] : memref<1x65536xf32>
    }
  }
  return
}
