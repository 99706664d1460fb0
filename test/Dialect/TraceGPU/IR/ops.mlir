// trace_gpu.gemm and trace_gpu.call: the printed form parses back to itself
// (2-D, batched, transposed strided views, with and without a dependency;
// a call with operands and without).
// RUN: trace-opt %s -split-input-file | trace-opt -split-input-file | FileCheck %s

// CHECK-LABEL: func @gemm
// CHECK-SAME: (%[[A:.*]]: memref<8x4xf32>, %[[B:.*]]: memref<4x6xf32>, %[[C:.*]]: memref<8x6xf32>)
// CHECK: %[[T0:.*]] = trace_gpu.gemm %[[A]], %[[B]], %[[C]] beta = 1.000000e+00 : memref<8x4xf32>, memref<4x6xf32>, memref<8x6xf32>
// CHECK: trace_gpu.gemm [%[[T0]]] %[[A]], %[[B]], %[[C]] beta = 0.000000e+00 : memref<8x4xf32>, memref<4x6xf32>, memref<8x6xf32>
func.func @gemm(%a: memref<8x4xf32>, %b: memref<4x6xf32>, %c: memref<8x6xf32>) {
  %t0 = trace_gpu.gemm %a, %b, %c beta = 1.0 : memref<8x4xf32>, memref<4x6xf32>, memref<8x6xf32>
  %t1 = trace_gpu.gemm [%t0] %a, %b, %c beta = 0.0 : memref<8x4xf32>, memref<4x6xf32>, memref<8x6xf32>
  return
}

// -----

// CHECK-LABEL: func @batched_transposed
// CHECK: trace_gpu.gemm %{{.*}}, %{{.*}}, %{{.*}} beta = 1.000000e+00 : memref<2x8x4xf64>, memref<2x4x?xf64, strided<[32, 1, 4]>>, memref<2x8x?xf64>
func.func @batched_transposed(%a: memref<2x8x4xf64>, %b: memref<2x4x?xf64, strided<[32, 1, 4]>>,
                              %c: memref<2x8x?xf64>) {
  %t = trace_gpu.gemm %a, %b, %c beta = 1.0 : memref<2x8x4xf64>, memref<2x4x?xf64, strided<[32, 1, 4]>>, memref<2x8x?xf64>
  return
}

// -----

// CHECK-LABEL: func @call
// CHECK: %[[T0:.*]] = trace_gpu.call @layer(%{{.*}}, %{{.*}}) : memref<8x4xf32>, index
// CHECK: %[[T1:.*]] = trace_gpu.call [%[[T0]]] @nothing()
// CHECK-NEXT: trace_gpu.call [%[[T0]], %[[T1]]] @nothing()
func.func private @layer(%stream: !llvm.ptr, %x: memref<8x4xf32>, %n: index)
func.func private @nothing(%stream: !llvm.ptr)
func.func @call(%x: memref<8x4xf32>, %n: index) {
  %t0 = trace_gpu.call @layer(%x, %n) : memref<8x4xf32>, index
  %t1 = trace_gpu.call [%t0] @nothing()
  %t2 = trace_gpu.call [%t0, %t1] @nothing()
  return
}
