// trace-gpu-map-linalg's block reductions: a reduction over at least 32
// elements becomes one gpu.launch of one block per output element; each
// thread folds the elements tid, tid + threads, ... (consecutive threads
// read consecutive elements), gpu.all_reduce combines the partials (warp
// shuffles and shared memory once convert-gpu-to-nvvm lowers it), and
// thread 0 stores start (+) total. Anything else stays one thread per
// output element (gpu-map-linalg.mlir).
// RUN: trace-opt %s --split-input-file --trace-gpu-map-linalg --canonicalize | FileCheck %s
// RUN: trace-opt %s --split-input-file --trace-gpu-map-linalg="block-size=128" --canonicalize | FileCheck %s --check-prefix=B128
// RUN: trace-opt %s --split-input-file --trace-gpu-map-linalg="block-reductions=0" | FileCheck %s --check-prefix=OFF
// RUN: trace-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(trace-gpu-map-linalg), gpu-kernel-outlining, gpu.module(convert-gpu-to-nvvm))' | FileCheck %s --check-prefix=NVVM

// A softmax-style row maximum with its fill folded in (trace-lower-fusions'
// select at the first iteration) and a per-point output (the exp): 64
// blocks of 256 threads; the exp is stored at every point; the fill value
// -inf is the start, so max(-inf, total) is just the total.
// CHECK-LABEL: func @fold_fill
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C300:.*]] = arith.constant 300 : index
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG: %[[C256:.*]] = arith.constant 256 : index
// CHECK-DAG: %[[C64:.*]] = arith.constant 64 : index
// CHECK: gpu.launch blocks(%[[B:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %[[C64]], %{{.*}} = %[[C1]], %{{.*}} = %[[C1]]) threads(%[[T:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %[[C256]], %{{.*}} = %[[C1]], %{{.*}} = %[[C1]])
// CHECK:   %[[PART:.*]] = scf.for %[[R:.*]] = %[[T]] to %[[C300]] step %[[C256]] iter_args(%[[ACC:.*]] = %[[ZERO]]) -> (f32) {
// CHECK:     %[[X:.*]] = memref.load %arg0[%[[B]], %[[R]]]
// CHECK:     %[[E:.*]] = math.exp %[[X]] : f32
// CHECK:     memref.store %[[E]], %arg2[%[[B]], %[[R]]]
// CHECK:     %[[FIRST:.*]] = arith.cmpi eq, %[[R]], %[[T]] : index
// CHECK:     %[[M:.*]] = arith.maximumf %[[ACC]], %[[E]] : f32
// CHECK:     %[[NEXT:.*]] = arith.select %[[FIRST]], %[[E]], %[[M]] : f32
// CHECK:     scf.yield %[[NEXT]] : f32
// CHECK:   %[[TOTAL:.*]] = gpu.all_reduce maximumf %[[PART]] uniform
// CHECK:   %[[T0:.*]] = arith.cmpi eq, %[[T]], %[[C0]] : index
// CHECK:   scf.if %[[T0]] {
// CHECK-NEXT: memref.store %[[TOTAL]], %arg1[%[[B]]] : memref<64xf32>
// CHECK-NEXT: }
// CHECK-NEXT: gpu.terminator
// B128-LABEL: func @fold_fill
// B128: %[[C128:.*]] = arith.constant 128 : index
// B128: gpu.launch {{.*}} threads({{.*}}) in (%{{.*}} = %[[C128]],
// B128: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %[[C128]]
// OFF-LABEL: func @fold_fill
// OFF-NOT: gpu.launch
// OFF: scf.parallel
// NVVM-LABEL: gpu.module @fold_fill_kernel
// NVVM-COUNT-5: nvvm.shfl.sync bfly
// NVVM: nvvm.barrier
// NVVM: llvm.store {{.*}} !llvm.ptr<3>
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @fold_fill(%x: memref<64x300xf32>, %y: memref<64xf32>, %z: memref<64x300xf32>) {
  %c = arith.constant 0xFF800000 : f32
  linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<64x300xf32>) outs(%y, %z : memref<64xf32>, memref<64x300xf32>) {
  ^bb0(%in: f32, %acc: f32, %o: f32):
    %i = linalg.index 1 : index
    %c0 = arith.constant 0 : index
    %f = arith.cmpi eq, %i, %c0 : index
    %a = arith.select %f, %c, %acc : f32
    %e = math.exp %in : f32
    %m = arith.maximumf %a, %e : f32
    linalg.yield %m, %e : f32, f32
  }
  return
}

// -----

// A folded fill of 1.0 under a sum over two reduction dims: the first
// iteration is where both indices are 0; thread 0 adds the start to the
// total. 50 elements: 32 threads (a multiple of 32, no more than the
// elements, so that every thread has one to start from).
// CHECK-LABEL: func @start_value
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-DAG: %[[C50:.*]] = arith.constant 50 : index
// CHECK-DAG: %[[C32:.*]] = arith.constant 32 : index
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : index
// CHECK: gpu.launch blocks(%[[B:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %[[C4]], {{.*}} threads(%[[T:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %[[C32]],
// CHECK:   scf.for %[[R:.*]] = %[[T]] to %[[C50]] step %[[C32]]
// CHECK:     %[[RI:.*]]:2 = affine.delinearize_index %[[R]] into (10, 5) : index, index
// CHECK:     memref.load %arg0[%[[B]], %[[RI]]#0, %[[RI]]#1]
// CHECK:   %[[TOTAL:.*]] = gpu.all_reduce add
// CHECK:   scf.if
// CHECK-NEXT: %[[SUM:.*]] = arith.addf %[[TOTAL]], %[[ONE]] : f32
// CHECK-NEXT: memref.store %[[SUM]], %arg1[%[[B]]]
#in3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#out3 = affine_map<(d0, d1, d2) -> (d0)>
func.func @start_value(%x: memref<4x10x5xf32>, %y: memref<4xf32>) {
  %one = arith.constant 1.0 : f32
  linalg.generic {indexing_maps = [#in3, #out3], iterator_types = ["parallel", "reduction", "reduction"]}
      ins(%x : memref<4x10x5xf32>) outs(%y : memref<4xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %i = linalg.index 1 : index
    %j = linalg.index 2 : index
    %c0 = arith.constant 0 : index
    %fi = arith.cmpi eq, %i, %c0 : index
    %fj = arith.cmpi eq, %j, %c0 : index
    %f = arith.andi %fi, %fj : i1
    %a = arith.select %f, %one, %acc : f32
    %s = arith.addf %in, %a : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A reduction over the leading dim (interchanged first) without a fill:
// one block per column; thread 0 adds the total to what the output held.
// CHECK-LABEL: func @leading
// CHECK-DAG: %[[C128:.*]] = arith.constant 128 : index
// CHECK-DAG: %[[C256:.*]] = arith.constant 256 : index
// CHECK: gpu.launch blocks(%[[B:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %[[C128]], {{.*}} threads(%[[T:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %[[C256]],
// CHECK:   scf.for %[[R:.*]] = %[[T]] to %[[C256]] step %[[C256]]
// CHECK:     memref.load %arg0[%[[R]], %[[B]]] : memref<256x128xf32>
// CHECK:   %[[TOTAL:.*]] = gpu.all_reduce add
// CHECK:   scf.if
// CHECK-NEXT: %[[OLD:.*]] = memref.load %arg1[%[[B]]] : memref<128xf32>
// CHECK-NEXT: %[[SUM:.*]] = arith.addf %[[TOTAL]], %[[OLD]] : f32
// CHECK-NEXT: memref.store %[[SUM]], %arg1[%[[B]]]
func.func @leading(%x: memref<256x128xf32>, %y: memref<128xf32>) {
  linalg.reduce ins(%x : memref<256x128xf32>) outs(%y : memref<128xf32>) dimensions = [0]
    (%in: f32, %init: f32) {
      %s = arith.addf %in, %init : f32
      linalg.yield %s : f32
    }
  return
}

// -----

// All dims of an f64 tensor: one block; the linear index is split into
// three; 64-bit values are shuffled as two 32-bit halves.
// CHECK-LABEL: func @full_f64
// CHECK-DAG: %[[C512:.*]] = arith.constant 512 : index
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK: gpu.launch blocks({{.*}}) in (%{{.*}} = %[[C1]], %{{.*}} = %[[C1]], %{{.*}} = %[[C1]]) threads
// CHECK:   scf.for %{{.*}} to %[[C512]]
// CHECK:     %[[I:.*]]:3 = affine.delinearize_index %{{.*}} into (4, 8, 16)
// CHECK:     memref.load %arg0[%[[I]]#0, %[[I]]#1, %[[I]]#2]
// CHECK:     arith.maximumf {{.*}} : f64
// CHECK:   gpu.all_reduce maximumf %{{.*}} uniform
// CHECK-NEXT: } : (f64) -> f64
// NVVM-LABEL: gpu.module @full_f64_kernel
// NVVM-COUNT-10: nvvm.shfl.sync bfly {{.*}} : i32 -> i32
func.func @full_f64(%x: memref<4x8x16xf64>, %y: memref<f64>) {
  linalg.reduce ins(%x : memref<4x8x16xf64>) outs(%y : memref<f64>) dimensions = [0, 1, 2]
    (%in: f64, %init: f64) {
      %s = arith.maximumf %in, %init : f64
      linalg.yield %s : f64
    }
  return
}

// -----

// Not block reductions: fewer than 32 elements, a recurrence (the
// accumulator is scaled at every step, so partial folds do not compose),
// an f16 accumulator (the all-reduce lowering shuffles 32 and 64 bits), a
// per-point output that reads the accumulator, and a matmul (cuBLAS's, or
// one thread per output element).
// CHECK-LABEL: func @stay
// CHECK-NOT: gpu.launch
// CHECK-COUNT-5: scf.parallel
// CHECK-NOT: gpu.launch
#m = affine_map<(d0, d1) -> (d0, d1)>
#r = affine_map<(d0, d1) -> (d0)>
func.func @stay(%small: memref<8x16xf32>, %ys: memref<8xf32>,
                %x: memref<8x64xf32>, %y: memref<8xf32>,
                %h: memref<8x64xf16>, %yh: memref<8xf16>, %z: memref<8x64xf32>,
                %a: memref<16x64xf32>, %b: memref<64x32xf32>, %c: memref<16x32xf32>) {
  linalg.reduce ins(%small : memref<8x16xf32>) outs(%ys : memref<8xf32>) dimensions = [1]
    (%in: f32, %init: f32) {
      %s = arith.addf %in, %init : f32
      linalg.yield %s : f32
    }
  %two = arith.constant 2.0 : f32
  linalg.generic {indexing_maps = [#m, #r], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<8x64xf32>) outs(%y : memref<8xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %d = arith.mulf %acc, %two : f32
    %s = arith.addf %d, %in : f32
    linalg.yield %s : f32
  }
  linalg.reduce ins(%h : memref<8x64xf16>) outs(%yh : memref<8xf16>) dimensions = [1]
    (%in: f16, %init: f16) {
      %s = arith.addf %in, %init : f16
      linalg.yield %s : f16
    }
  linalg.generic {indexing_maps = [#m, #r, #m], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<8x64xf32>) outs(%y, %z : memref<8xf32>, memref<8x64xf32>) {
  ^bb0(%in: f32, %acc: f32, %o: f32):
    %s = arith.addf %in, %acc : f32
    linalg.yield %s, %s : f32, f32
  }
  linalg.matmul ins(%a, %b : memref<16x64xf32>, memref<64x32xf32>) outs(%c : memref<16x32xf32>)
  return
}

// -----

// Sibling reductions of one operand (a layer norm's sum and sum of
// squares): one loop carries both partials; both totals are formed before
// thread 0 stores them (after adding the fill value 0.0: x + 0.0 is not x
// for x = -0.0, so canonicalization keeps it).
// CHECK-LABEL: func @siblings
// CHECK: %[[P:.*]]:2 = scf.for {{.*}} -> (f32, f32)
// CHECK: %[[S:.*]] = gpu.all_reduce add %[[P]]#0 uniform
// CHECK: %[[Q:.*]] = gpu.all_reduce add %[[P]]#1 uniform
// CHECK: scf.if
// CHECK-NEXT: %[[S1:.*]] = arith.addf %[[S]], %{{.*}} : f32
// CHECK-NEXT: memref.store %[[S1]], %arg1
// CHECK-NEXT: %[[Q1:.*]] = arith.addf %[[Q]], %{{.*}} : f32
// CHECK-NEXT: memref.store %[[Q1]], %arg2
#x2 = affine_map<(d0, d1) -> (d0, d1)>
#o2 = affine_map<(d0, d1) -> (d0)>
func.func @siblings(%x: memref<16x128xf32>, %s: memref<16xf32>, %q: memref<16xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.generic {indexing_maps = [#x2, #o2, #o2], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<16x128xf32>) outs(%s, %q : memref<16xf32>, memref<16xf32>) {
  ^bb0(%in: f32, %a: f32, %b: f32):
    %i = linalg.index 1 : index
    %c0 = arith.constant 0 : index
    %f = arith.cmpi eq, %i, %c0 : index
    %a0 = arith.select %f, %zero, %a : f32
    %b0 = arith.select %f, %zero, %b : f32
    %sq = arith.mulf %in, %in : f32
    %s1 = arith.addf %a0, %in : f32
    %q1 = arith.addf %b0, %sq : f32
    linalg.yield %s1, %q1 : f32, f32
  }
  return
}
