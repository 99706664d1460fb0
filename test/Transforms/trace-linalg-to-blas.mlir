// f32/f64 matmuls on buffers become calls of the runtime's BLAS entry
// points; transposed operands go as strided views; other types stay.
// RUN: trace-opt %s -trace-linalg-to-blas -split-input-file | FileCheck %s

// CHECK-LABEL: func.func private @trace_rt_matmul_f32(memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>) attributes {llvm.emit_c_interface}
// CHECK-LABEL: func @matmul
// CHECK-SAME: (%[[A:.*]]: memref<8x16xf32>, %[[B:.*]]: memref<16x4xf32>, %[[C:.*]]: memref<8x4xf32>)
// CHECK: %[[CA:.*]] = memref.cast %[[A]]
// CHECK: %[[CB:.*]] = memref.cast %[[B]]
// CHECK: %[[CC:.*]] = memref.cast %[[C]]
// CHECK: call @trace_rt_matmul_f32(%[[CA]], %[[CB]], %[[CC]])
// CHECK-NOT: linalg.matmul
func.func @matmul(%a: memref<8x16xf32>, %b: memref<16x4xf32>, %c: memref<8x4xf32>) {
  linalg.matmul ins(%a, %b : memref<8x16xf32>, memref<16x4xf32>) outs(%c : memref<8x4xf32>)
  return
}

// -----

// CHECK-LABEL: func @transposed_weight
// CHECK-SAME: (%[[X:.*]]: memref<8x16xf64>, %[[W:.*]]: memref<32x16xf64>
// CHECK: %[[WT:.*]] = memref.transpose %[[W]] (d0, d1) -> (d1, d0)
// CHECK: %[[CW:.*]] = memref.cast %[[WT]]
// CHECK: call @trace_rt_matmul_f64(%{{.*}}, %[[CW]], %{{.*}})
func.func @transposed_weight(%x: memref<8x16xf64>, %w: memref<32x16xf64>, %c: memref<8x32xf64>) {
  linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>,
                                 affine_map<(d0, d1, d2) -> (d1, d2)>,
                                 affine_map<(d0, d1, d2) -> (d0, d1)>]
      ins(%x, %w : memref<8x16xf64>, memref<32x16xf64>) outs(%c : memref<8x32xf64>)
  return
}

// -----

// CHECK-LABEL: func @batch
// CHECK: call @trace_rt_batch_matmul_f32
func.func @batch(%a: memref<2x8x16xf32>, %b: memref<2x16x4xf32>, %c: memref<2x8x4xf32>) {
  linalg.batch_matmul ins(%a, %b : memref<2x8x16xf32>, memref<2x16x4xf32>) outs(%c : memref<2x8x4xf32>)
  return
}

// -----

// Half precision, mixed types, tensors and other maps are left alone.
// CHECK-LABEL: func @left_alone
// CHECK-NOT: call
// CHECK: linalg.matmul
// CHECK: linalg.matmul
// CHECK: linalg.matmul
func.func @left_alone(%a: memref<8x16xbf16>, %b: memref<16x4xbf16>, %c: memref<8x4xbf16>,
                      %acc: memref<8x4xf32>, %t: tensor<8x16xf32>, %u: tensor<16x4xf32>,
                      %v: tensor<8x4xf32>) -> tensor<8x4xf32> {
  linalg.matmul ins(%a, %b : memref<8x16xbf16>, memref<16x4xbf16>) outs(%c : memref<8x4xbf16>)
  linalg.matmul ins(%a, %b : memref<8x16xbf16>, memref<16x4xbf16>) outs(%acc : memref<8x4xf32>)
  %r = linalg.matmul ins(%t, %u : tensor<8x16xf32>, tensor<16x4xf32>) outs(%v : tensor<8x4xf32>) -> tensor<8x4xf32>
  return %r : tensor<8x4xf32>
}
