// f32/f64 matmuls on buffers become calls of the runtime's BLAS entry
// points; transposed operands go as strided views; other types stay. With
// runtime=cuda, trace_gpu.gemm ops (cuBLAS on the kernels' stream, once
// gpu-async-region gives them a dependency), and only for operands whose
// static strides cuBLAS can read.
// RUN: trace-opt %s -trace-linalg-to-blas -split-input-file | FileCheck %s
// RUN: trace-opt %s -trace-linalg-to-blas=runtime=cuda -split-input-file | FileCheck %s --check-prefix=CUDA
// RUN: not trace-opt %s -trace-linalg-to-blas=runtime=rocm -split-input-file 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: for the --runtime option: Cannot find option named 'rocm'!

// CHECK-LABEL: func.func private @trace_rt_matmul_f32(memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, f32) attributes {llvm.emit_c_interface}
// CHECK-LABEL: func @matmul
// CHECK-SAME: (%[[A:.*]]: memref<8x16xf32>, %[[B:.*]]: memref<16x4xf32>, %[[C:.*]]: memref<8x4xf32>)
// CHECK: %[[CA:.*]] = memref.cast %[[A]]
// CHECK: %[[CB:.*]] = memref.cast %[[B]]
// CHECK: %[[CC:.*]] = memref.cast %[[C]]
// CHECK: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK: call @trace_rt_matmul_f32(%[[CA]], %[[CB]], %[[CC]], %[[ONE]])
// CHECK-NOT: linalg.matmul
// CUDA-NOT: func.func private
// CUDA-LABEL: func @matmul
// CUDA-SAME: (%[[A:.*]]: memref<8x16xf32>, %[[B:.*]]: memref<16x4xf32>, %[[C:.*]]: memref<8x4xf32>)
// CUDA-NEXT: %{{.*}} = trace_gpu.gemm %[[A]], %[[B]], %[[C]] beta = 1.000000e+00 : memref<8x16xf32>, memref<16x4xf32>, memref<8x4xf32>
// CUDA-NOT: linalg.matmul
func.func @matmul(%a: memref<8x16xf32>, %b: memref<16x4xf32>, %c: memref<8x4xf32>) {
  linalg.matmul ins(%a, %b : memref<8x16xf32>, memref<16x4xf32>) outs(%c : memref<8x4xf32>)
  return
}

// -----

// CHECK-LABEL: func @transposed_weight
// CHECK-SAME: (%[[X:.*]]: memref<8x16xf64>, %[[W:.*]]: memref<32x16xf64>
// CHECK: %[[WT:.*]] = memref.transpose %[[W]] (d0, d1) -> (d1, d0)
// CHECK: %[[CW:.*]] = memref.cast %[[WT]]
// CHECK: call @trace_rt_matmul_f64(%{{.*}}, %[[CW]], %{{.*}}, %{{.*}})
// CUDA-LABEL: func @transposed_weight
// CUDA-SAME: (%[[X:.*]]: memref<8x16xf64>, %[[W:.*]]: memref<32x16xf64>, %[[C:.*]]: memref<8x32xf64>)
// CUDA: %[[WT:.*]] = memref.transpose %[[W]] (d0, d1) -> (d1, d0)
// CUDA: trace_gpu.gemm %[[X]], %[[WT]], %[[C]] beta = 1.000000e+00 : memref<8x16xf64>, memref<16x32xf64, strided<[1, 16]>>, memref<8x32xf64>
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
// CUDA-LABEL: func @batch
// CUDA: trace_gpu.gemm %{{.*}} : memref<2x8x16xf32>, memref<2x16x4xf32>, memref<2x8x4xf32>
func.func @batch(%a: memref<2x8x16xf32>, %b: memref<2x16x4xf32>, %c: memref<2x8x4xf32>) {
  linalg.batch_matmul ins(%a, %b : memref<2x8x16xf32>, memref<2x16x4xf32>) outs(%c : memref<2x8x4xf32>)
  return
}

// -----

// A fill of +0.0 of a fresh allocation right before the matmul
// (allocations and pure ops in between) becomes beta = 0 and goes; a fill
// of another value, of another buffer, or with a write in between stays
// (beta = 1), as does one whose buffer an input views (@zero_fill_aliased).
// So does a fill of an argument the matmul writes, an out-parameter
// (@zero_fill_out_param), unless an input is that argument.
// CHECK-LABEL: func @zero_fill
// CHECK-NOT: linalg.fill
// CHECK: memref.cast
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: call @trace_rt_matmul_f32(%{{.*}}, %{{.*}}, %{{.*}}, %[[ZERO]])
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%[[C2:.*]] : memref<8x4xf32>)
// CHECK: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK: call @trace_rt_matmul_f32(%{{.*}}, %{{.*}}, %{{.*}}, %[[ONE]])
// CHECK: linalg.fill
// CHECK: linalg.fill
// CHECK: call @trace_rt_matmul_f32(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}})
// CHECK: linalg.fill
// CHECK: memref.store
// CHECK: call @trace_rt_matmul_f32(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}})
// CUDA-LABEL: func @zero_fill
// CUDA-NOT: linalg.fill
// CUDA: trace_gpu.gemm %{{.*}} beta = 0.000000e+00
// CUDA: linalg.fill
// CUDA: trace_gpu.gemm %{{.*}} beta = 1.000000e+00
// CUDA-COUNT-2: linalg.fill
// CUDA: trace_gpu.gemm %{{.*}} beta = 1.000000e+00
// CUDA: linalg.fill
// CUDA: memref.store
// CUDA: trace_gpu.gemm %{{.*}} beta = 1.000000e+00
func.func @zero_fill(%a: memref<8x16xf32>, %b: memref<16x4xf32>, %c2: memref<8x4xf32>,
                     %d: memref<8x4xf32>) -> (memref<8x4xf32>, memref<8x4xf32>, memref<8x4xf32>) {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %i = arith.constant 0 : index
  %c = memref.alloc() : memref<8x4xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<8x4xf32>)
  %other = memref.alloc() : memref<8x4xf32>
  linalg.matmul ins(%a, %b : memref<8x16xf32>, memref<16x4xf32>) outs(%c : memref<8x4xf32>)
  linalg.fill ins(%one : f32) outs(%c2 : memref<8x4xf32>)
  linalg.matmul ins(%a, %b : memref<8x16xf32>, memref<16x4xf32>) outs(%c2 : memref<8x4xf32>)
  linalg.fill ins(%zero : f32) outs(%d : memref<8x4xf32>)
  linalg.fill ins(%zero : f32) outs(%other : memref<8x4xf32>)
  linalg.matmul ins(%a, %b : memref<8x16xf32>, memref<16x4xf32>) outs(%d : memref<8x4xf32>)
  linalg.fill ins(%zero : f32) outs(%other : memref<8x4xf32>)
  memref.store %one, %other[%i, %i] : memref<8x4xf32>
  linalg.matmul ins(%a, %b : memref<8x16xf32>, memref<16x4xf32>) outs(%other : memref<8x4xf32>)
  return %c, %d, %other : memref<8x4xf32>, memref<8x4xf32>, memref<8x4xf32>
}

// -----

// CHECK-LABEL: func @zero_fill_aliased
// CHECK: linalg.fill
// CHECK: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK: call @trace_rt_matmul_f32(%{{.*}}, %{{.*}}, %{{.*}}, %[[ONE]])
func.func @zero_fill_aliased(%b: memref<4x4xf32>) -> memref<4x4xf32> {
  %zero = arith.constant 0.0 : f32
  %c = memref.alloc() : memref<4x4xf32>
  %view = memref.subview %c[0, 0] [4, 4] [1, 1] : memref<4x4xf32> to memref<4x4xf32, strided<[4, 1]>>
  linalg.fill ins(%zero : f32) outs(%c : memref<4x4xf32>)
  linalg.matmul ins(%view, %b : memref<4x4xf32, strided<[4, 1]>>, memref<4x4xf32>) outs(%c : memref<4x4xf32>)
  return %c : memref<4x4xf32>
}

// -----

// CHECK-LABEL: func @zero_fill_out_param
// CHECK-NOT: linalg.fill
// CHECK: memref.cast %arg2
// CHECK-NEXT: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: call @trace_rt_matmul_f32(%{{.*}}, %{{.*}}, %{{.*}}, %[[ZERO]])
// CHECK: linalg.fill
// CHECK: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK: call @trace_rt_matmul_f32(%{{.*}}, %{{.*}}, %{{.*}}, %[[ONE]])
// CUDA-LABEL: func @zero_fill_out_param
// CUDA-NOT: linalg.fill
// CUDA: trace_gpu.gemm %{{.*}} beta = 0.000000e+00
// CUDA: linalg.fill
// CUDA: trace_gpu.gemm %{{.*}} beta = 1.000000e+00
func.func @zero_fill_out_param(%a: memref<4x4xf32>, %b: memref<4x4xf32>, %out: memref<4x4xf32>, %acc: memref<4x4xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%out : memref<4x4xf32>)
  linalg.matmul ins(%a, %b : memref<4x4xf32>, memref<4x4xf32>) outs(%out : memref<4x4xf32>)
  linalg.fill ins(%zero : f32) outs(%acc : memref<4x4xf32>)
  linalg.matmul ins(%acc, %b : memref<4x4xf32>, memref<4x4xf32>) outs(%acc : memref<4x4xf32>)
  return
}

// -----

// Operands with a unit stride in neither of the last two dims: OpenBLAS's
// runtime loops over them, cuBLAS cannot take them (the matmul stays and
// becomes a kernel), nor a column-major output (cuBLAS writes C row-major
// here). A static unit dim's stride does not matter; a dynamic stride is
// not known to be 1.
// CHECK-LABEL: func @strided
// CHECK-COUNT-4: call @trace_rt_matmul_f32
// CUDA-LABEL: func @strided
// CUDA: linalg.matmul
// CUDA: trace_gpu.gemm
// CUDA: linalg.matmul
// CUDA: linalg.matmul
// CUDA-NOT: trace_gpu.gemm
func.func @strided(%a: memref<8x16xf32, strided<[32, 2]>>, %b: memref<16x4xf32>,
                   %c: memref<8x4xf32>, %row: memref<1x16xf32, strided<[64, 4]>>,
                   %c1: memref<1x4xf32>, %dyn: memref<8x16xf32, strided<[?, ?]>>,
                   %plain: memref<8x16xf32>, %ccol: memref<8x4xf32, strided<[1, 8]>>) {
  linalg.matmul ins(%a, %b : memref<8x16xf32, strided<[32, 2]>>, memref<16x4xf32>) outs(%c : memref<8x4xf32>)
  linalg.matmul ins(%row, %b : memref<1x16xf32, strided<[64, 4]>>, memref<16x4xf32>) outs(%c1 : memref<1x4xf32>)
  linalg.matmul ins(%dyn, %b : memref<8x16xf32, strided<[?, ?]>>, memref<16x4xf32>) outs(%c : memref<8x4xf32>)
  linalg.matmul ins(%plain, %b : memref<8x16xf32>, memref<16x4xf32>) outs(%ccol : memref<8x4xf32, strided<[1, 8]>>)
  return
}

// -----

// Half precision, mixed types, tensors and other maps are left alone.
// CHECK-LABEL: func @left_alone
// CHECK-NOT: call
// CUDA-LABEL: func @left_alone
// CUDA-NOT: call
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
