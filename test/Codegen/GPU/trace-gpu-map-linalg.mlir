// trace-gpu-map-linalg: each linalg op on buffers becomes one scf.parallel
// nest, collapsed to one dim and mapped onto a 1-D grid of blocks (x) and
// threads (x), ready for convert-parallel-loops-to-gpu.
// Block reductions (gpu-block-reduction.mlir) and vectorized elementwise
// kernels (gpu-vectorize.mlir), both on by default, are off here: one
// thread per iteration point.
// RUN: trace-opt %s --split-input-file --trace-gpu-map-linalg="block-reductions=0 vectorize=0" | FileCheck %s
// RUN: trace-opt %s --split-input-file --trace-gpu-map-linalg="block-size=128 vectorize=0" | FileCheck %s --check-prefix=B128
// RUN: trace-opt %s --split-input-file --trace-gpu-map-linalg="vectorize=0" --convert-parallel-loops-to-gpu --canonicalize | FileCheck %s --check-prefix=LAUNCH
// RUN: trace-opt %s --split-input-file --trace-gpu-map-linalg="vectorize=0 max-blocks=2" | FileCheck %s --check-prefix=STRIDE

// 4000 elements: tiled into blocks of 256 threads, the last one guarded;
// the linear index is split back into (row, column).
// CHECK-LABEL: func @elementwise
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG: %[[C1000:.*]] = arith.constant 1000 : index
// CHECK-DAG: %[[N:.*]] = arith.constant 4000 : index
// CHECK-DAG: %[[C256:.*]] = arith.constant 256 : index
// CHECK: scf.parallel (%[[B:.*]]) = (%[[C0]]) to (%[[N]]) step (%[[C256]]) {
// CHECK:   scf.parallel (%[[T:.*]]) = (%[[C0]]) to (%[[C256]]) step (%[[C1]]) {
// CHECK:     %[[I:.*]] = arith.addi %[[T]], %[[B]] : index
// CHECK:     %[[IN:.*]] = arith.cmpi ult, %{{.*}}, %[[N]] : index
// CHECK:     scf.if %[[IN]] {
// CHECK:       %[[COL:.*]] = arith.remsi %[[I]], %[[C1000]] : index
// CHECK:       %[[ROW:.*]] = arith.divsi %[[I]], %[[C1000]] : index
// CHECK:       %[[X:.*]] = memref.load %arg0[%[[ROW]], %[[COL]]]
// CHECK:       %[[E:.*]] = math.exp %[[X]] : f32
// CHECK:       memref.store %[[E]], %arg1[%[[ROW]], %[[COL]]]
// CHECK:   } {mapping = [#gpu.loop_dim_map<processor = thread_x, map = (d0) -> (d0), bound = (d0) -> (d0)>]}
// CHECK: } {mapping = [#gpu.loop_dim_map<processor = block_x, map = (d0) -> (d0), bound = (d0) -> (d0)>]}
// B128-LABEL: func @elementwise
// B128: scf.parallel (%{{.*}}) = (%{{.*}}) to (%{{.*}}) step (%[[S:.*]]) {
// B128:   scf.parallel (%{{.*}}) = (%{{.*}}) to (%[[S]]) step
// LAUNCH-LABEL: func @elementwise
// LAUNCH-DAG: %[[BLOCKS:.*]] = arith.constant 16 : index
// LAUNCH-DAG: %[[THREADS:.*]] = arith.constant 256 : index
// LAUNCH-DAG: %[[ONE:.*]] = arith.constant 1 : index
// LAUNCH: gpu.launch blocks(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %[[BLOCKS]], %{{.*}} = %[[ONE]], %{{.*}} = %[[ONE]]) threads(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %[[THREADS]], %{{.*}} = %[[ONE]], %{{.*}} = %[[ONE]])
// LAUNCH-NOT: gpu.launch
// LAUNCH: return
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @elementwise(%x: memref<4x1000xf32>, %y: memref<4x1000xf32>) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<4x1000xf32>) outs(%y : memref<4x1000xf32>) {
  ^bb0(%in: f32, %out: f32):
    %e = math.exp %in : f32
    linalg.yield %e : f32
  }
  return
}

// -----

// A copy is a kernel too; 32 elements fit one block, so no tiling.
// CHECK-LABEL: func @copy
// CHECK-NOT: memref.copy
// CHECK: %[[C32:.*]] = arith.constant 32 : index
// CHECK: scf.parallel (%[[I:.*]]) = (%{{.*}}) to (%[[C32]]) step (%{{.*}}) {
// CHECK:   %[[V:.*]] = memref.load %arg0[
// CHECK:   memref.store %[[V]], %arg1[
// CHECK: } {mapping = [#gpu.loop_dim_map<processor = thread_x
// CHECK-NOT: scf.parallel
// LAUNCH-LABEL: func @copy
// LAUNCH-DAG: %[[C32:.*]] = arith.constant 32 : index
// LAUNCH-DAG: %[[ONE:.*]] = arith.constant 1 : index
// LAUNCH: gpu.launch blocks({{.*}}) in (%{{.*}} = %[[ONE]], %{{.*}} = %[[ONE]], %{{.*}} = %[[ONE]]) threads({{.*}}) in (%{{.*}} = %[[C32]], %{{.*}} = %[[ONE]], %{{.*}} = %[[ONE]])
func.func @copy(%x: memref<8x4xf32>, %y: memref<8x4xf32>) {
  memref.copy %x, %y : memref<8x4xf32> to memref<8x4xf32>
  return
}

// -----

// A reduction over the leading dim is interchanged: one thread per output
// element loops over the reduced dim (reading consecutive columns across
// threads), instead of a host loop around one kernel per row.
// CHECK-LABEL: func @leading_reduction
// CHECK-DAG: %[[C8:.*]] = arith.constant 8 : index
// CHECK-DAG: %[[C64:.*]] = arith.constant 64 : index
// CHECK: scf.parallel (%[[J:.*]]) = (%{{.*}}) to (%[[C8]])
// CHECK:   scf.for %[[I:.*]] = %{{.*}} to %[[C64]]
// CHECK:     memref.load %arg0[%[[I]], %[[J]]] : memref<64x8xf32>
// CHECK:     arith.addf
// CHECK:     memref.store %{{.*}}, %arg1[%[[J]]]
// CHECK: } {mapping = [#gpu.loop_dim_map<processor = thread_x
func.func @leading_reduction(%x: memref<64x8xf32>, %y: memref<8xf32>) {
  linalg.reduce ins(%x : memref<64x8xf32>) outs(%y : memref<8xf32>) dimensions = [0]
    (%in: f32, %init: f32) {
      %s = arith.addf %in, %init : f32
      linalg.yield %s : f32
    }
  return
}

// -----

// Ops without parallel dims run as one-thread kernels, not on the host.
// CHECK-LABEL: func @full_reduction
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK: scf.parallel (%{{.*}}) = (%[[C0]]) to (%[[C1]]) step (%[[C1]]) {
// CHECK:   memref.store %{{.*}}, %arg1[] : memref<f32>
// CHECK: } {mapping = [#gpu.loop_dim_map<processor = thread_x
// CHECK: scf.parallel (%{{.*}}) = (%[[C0]]) to (%[[C1]]) step (%[[C1]]) {
// CHECK:   scf.for
// CHECK:     scf.for
// CHECK:       arith.maximumf
// CHECK: } {mapping = [#gpu.loop_dim_map<processor = thread_x
// CHECK-NEXT: return
func.func @full_reduction(%x: memref<4x8xf32>, %y: memref<f32>) {
  %c = arith.constant 0.0 : f32
  linalg.fill ins(%c : f32) outs(%y : memref<f32>)
  linalg.reduce ins(%x : memref<4x8xf32>) outs(%y : memref<f32>) dimensions = [0, 1]
    (%in: f32, %init: f32) {
      %s = arith.maximumf %in, %init : f32
      linalg.yield %s : f32
    }
  return
}

// -----

// Matmuls are loops on the GPU too: one thread per output element, the
// contraction a loop inside it.
// CHECK-LABEL: func @matmul
// CHECK: %[[N:.*]] = arith.constant 512 : index
// CHECK: scf.parallel (%{{.*}}) = (%{{.*}}) to (%[[N]]) step
// CHECK:   scf.parallel
// CHECK:     scf.if
// CHECK:       scf.for
// CHECK:         arith.mulf
// CHECK:         arith.addf
func.func @matmul(%a: memref<16x8xf32>, %b: memref<8x32xf32>, %c: memref<16x32xf32>) {
  linalg.matmul ins(%a, %b : memref<16x8xf32>, memref<8x32xf32>) outs(%c : memref<16x32xf32>)
  return
}

// -----

// Beyond block-size x max-blocks iterations, a grid-stride loop: 2 blocks
// of 256 threads, each thread from its global index to 4000 by 512.
// STRIDE-LABEL: func @grid_stride
// STRIDE-DAG: %[[C2:.*]] = arith.constant 2 : index
// STRIDE-DAG: %[[C256:.*]] = arith.constant 256 : index
// STRIDE-DAG: %[[C512:.*]] = arith.constant 512 : index
// STRIDE-DAG: %[[N:.*]] = arith.constant 4000 : index
// STRIDE: scf.parallel (%[[B:.*]]) = (%{{.*}}) to (%[[C2]]) step
// STRIDE:   scf.parallel (%[[T:.*]]) = (%{{.*}}) to (%[[C256]]) step
// STRIDE:     %[[BB:.*]] = arith.muli %[[B]], %[[C256]] : index
// STRIDE:     %[[I0:.*]] = arith.addi %[[BB]], %[[T]] : index
// STRIDE:     scf.for %[[I:.*]] = %[[I0]] to %[[N]] step %[[C512]] {
// STRIDE:       math.exp
// STRIDE:   } {mapping = [#gpu.loop_dim_map<processor = thread_x
// STRIDE: } {mapping = [#gpu.loop_dim_map<processor = block_x
func.func @grid_stride(%x: memref<4x1000xf32>, %y: memref<4x1000xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<4x1000xf32>) outs(%y : memref<4x1000xf32>) {
  ^bb0(%in: f32, %out: f32):
    %e = math.exp %in : f32
    linalg.yield %e : f32
  }
  return
}
