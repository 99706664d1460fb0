// trace-gpu-map-linalg's vectorized elementwise kernels: each iteration of
// the 1-D loop handles W consecutive elements, W = 16 bytes / the widest
// element read or written in order; when all those buffers are 16-byte
// aligned at run time they move with one vector load or store each,
// otherwise element by element; operands read through another map are
// loaded per element. The loop is then mapped onto blocks and threads.
// RUN: trace-opt %s --split-input-file --trace-gpu-map-linalg --convert-parallel-loops-to-gpu --canonicalize | FileCheck %s
// RUN: trace-opt %s --split-input-file --trace-gpu-map-linalg="vectorize=0" | FileCheck %s --check-prefix=OFF

// A bias add and tanh over 64x128 f32: 2048 iterations of four elements
// (8 blocks of 256 threads); x and y are seen as 1-D; the bias is read per
// element at column (i mod 128).
// CHECK-LABEL: func @bias_tanh
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : index
// CHECK-DAG: %[[C8:.*]] = arith.constant 8 : index
// CHECK-DAG: %[[C16:.*]] = arith.constant 16 : index
// CHECK-DAG: %[[C256:.*]] = arith.constant 256 : index
// CHECK: %[[X:.*]] = memref.collapse_shape %arg0 {{\[}}[0, 1]] : memref<64x128xf32> into memref<8192xf32>
// CHECK: %[[Y:.*]] = memref.collapse_shape %arg2 {{\[}}[0, 1]] : memref<64x128xf32> into memref<8192xf32>
// CHECK: gpu.launch blocks({{.*}}) in (%{{.*}} = %[[C8]], {{.*}} threads({{.*}}) in (%{{.*}} = %[[C256]],
// CHECK:   %[[BASE:.*]] = arith.muli %{{.*}}, %[[C4]] : index
// CHECK:   %[[PX:.*]] = memref.extract_aligned_pointer_as_index %[[X]]
// CHECK:   %[[PY:.*]] = memref.extract_aligned_pointer_as_index %[[Y]]
// CHECK:   %[[OR:.*]] = arith.ori %[[PX]], %[[PY]] : index
// CHECK:   %[[REM:.*]] = arith.remui %[[OR]], %[[C16]] : index
// CHECK:   %[[ALIGNED:.*]] = arith.cmpi eq, %[[REM]], %{{.*}} : index
// CHECK:   scf.if %[[ALIGNED]] {
// CHECK:     %[[V:.*]] = vector.load %[[X]][%[[BASE]]] {alignment = 16 : i64} : memref<8192xf32>, vector<4xf32>
// CHECK:     %[[E0:.*]] = vector.extract %[[V]][0]
// CHECK:     %[[P0:.*]]:2 = affine.delinearize_index %[[BASE]] into (64, 128) : index, index
// CHECK:     %[[B0:.*]] = memref.load %arg1[%[[P0]]#1] : memref<128xf32>
// CHECK:     arith.addf %[[E0]], %[[B0]] : f32
// CHECK-COUNT-3: vector.extract %[[V]]
// CHECK:     %[[R:.*]] = vector.from_elements %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : vector<4xf32>
// CHECK:     vector.store %[[R]], %[[Y]][%[[BASE]]] {alignment = 16 : i64} : memref<8192xf32>, vector<4xf32>
// CHECK:   } else {
// CHECK-NOT:   vector.
// CHECK-COUNT-4: memref.store %{{.*}}, %[[Y]][
// CHECK:   }
// OFF-LABEL: func @bias_tanh
// OFF-NOT: vector.
#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
func.func @bias_tanh(%x: memref<64x128xf32>, %b: memref<128xf32>, %y: memref<64x128xf32>) {
  linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %b : memref<64x128xf32>, memref<128xf32>) outs(%y : memref<64x128xf32>) {
  ^bb0(%in: f32, %bias: f32, %out: f32):
    %s = arith.addf %in, %bias : f32
    %e = math.tanh %s : f32
    linalg.yield %e : f32
  }
  return
}

// -----

// f64 in, f16 out: W follows the widest element (two f64 per 16 bytes);
// the f16 pair is stored as one 4-byte vector.
// CHECK-LABEL: func @narrow
// CHECK: vector.load %{{.*}} {alignment = 16 : i64} : memref<1024xf64>, vector<2xf64>
// CHECK: vector.store %{{.*}} {alignment = 4 : i64} : memref<1024xf16>, vector<2xf16>
#i1 = affine_map<(d0) -> (d0)>
func.func @narrow(%x: memref<1024xf64>, %y: memref<1024xf16>) {
  linalg.generic {indexing_maps = [#i1, #i1], iterator_types = ["parallel"]}
      ins(%x : memref<1024xf64>) outs(%y : memref<1024xf16>) {
  ^bb0(%in: f64, %out: f16):
    %t = arith.truncf %in : f64 to f16
    linalg.yield %t : f16
  }
  return
}

// -----

// linalg.index in the body: each element's own (row, column).
// CHECK-LABEL: func @iota
// CHECK: scf.if
// CHECK: %[[L1:.*]] = arith.addi %[[BASE:.*]], %c1 : index
// CHECK: %[[P1:.*]]:2 = affine.delinearize_index %[[L1]] into (8, 256)
// CHECK: arith.addi %[[P1]]#0, %[[P1]]#1 : index
// CHECK: vector.store
#i2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @iota(%y: memref<8x256xi32>) {
  linalg.generic {indexing_maps = [#i2], iterator_types = ["parallel", "parallel"]}
      outs(%y : memref<8x256xi32>) {
  ^bb0(%out: i32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %s = arith.addi %i, %j : index
    %c = arith.index_cast %s : index to i32
    linalg.yield %c : i32
  }
  return
}

// -----

// Not vectorized: a transposed output, an element count that is no
// multiple of four, too few elements, a boolean output.
// CHECK-LABEL: func @stay
// CHECK-NOT: vector.
#t = affine_map<(d0, d1) -> (d1, d0)>
#s = affine_map<(d0, d1) -> (d0, d1)>
func.func @stay(%x: memref<64x128xf32>, %xt: memref<128x64xf32>,
                %odd: memref<3x1001xf32>, %odd2: memref<3x1001xf32>,
                %tiny: memref<64xf32>, %tiny2: memref<64xf32>,
                %mask: memref<64x128xi1>) {
  linalg.generic {indexing_maps = [#s, #t], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<64x128xf32>) outs(%xt : memref<128x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  linalg.generic {indexing_maps = [#s, #s], iterator_types = ["parallel", "parallel"]}
      ins(%odd : memref<3x1001xf32>) outs(%odd2 : memref<3x1001xf32>) {
  ^bb0(%in: f32, %out: f32):
    %n = arith.negf %in : f32
    linalg.yield %n : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%tiny : memref<64xf32>) outs(%tiny2 : memref<64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %n = arith.negf %in : f32
    linalg.yield %n : f32
  }
  %zero = arith.constant 0.0 : f32
  linalg.generic {indexing_maps = [#s, #s], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<64x128xf32>) outs(%mask : memref<64x128xi1>) {
  ^bb0(%in: f32, %out: i1):
    %m = arith.cmpf ogt, %in, %zero : f32
    linalg.yield %m : i1
  }
  return
}
