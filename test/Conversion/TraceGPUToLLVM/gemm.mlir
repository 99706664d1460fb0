// trace_gpu.gemm inside upstream's gpu-to-llvm (through the dialect's
// convert-to-LLVM interface): after gpu-async-region, kernels and gemms
// share one stream; each gemm is a call of the CUDA runtime with its
// descriptors in entry-block stack slots and that stream last, and the
// host waits once, before the return, not around each gemm.
// RUN: trace-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(gpu-async-region),gpu-to-llvm,reconcile-unrealized-casts)' | FileCheck %s
// RUN: not trace-opt %s -split-input-file --pass-pipeline='builtin.module(gpu-to-llvm)' 2>&1 | FileCheck %s --check-prefix=SYNC

module attributes {gpu.container_module} {
  gpu.module @kernels [#nvvm.target] {
    gpu.func @scale() kernel { gpu.return }
  }

  // CHECK-DAG: llvm.func @trace_cuda_matmul_f32(!llvm.ptr, !llvm.ptr, !llvm.ptr, f32, !llvm.ptr)
  // CHECK-DAG: llvm.func @trace_cuda_batch_matmul_f64(!llvm.ptr, !llvm.ptr, !llvm.ptr, f64, !llvm.ptr)
  // CHECK-LABEL: llvm.func @chain
  // CHECK-COUNT-6: llvm.alloca %{{.*}} x !llvm.struct<(ptr, ptr, i64, array<{{[23]}} x i64>, array<{{[23]}} x i64>)>
  // CHECK: %[[S:.*]] = llvm.call @mgpuStreamCreate()
  // CHECK-NOT: mgpuStreamSynchronize
  // CHECK: gpu.launch_func <%[[S]] : !llvm.ptr> @kernels::@scale
  // CHECK-NOT: mgpuStreamSynchronize
  // CHECK: llvm.store %{{.*}}, %[[A:.*]] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>, !llvm.ptr
  // CHECK: llvm.store %{{.*}}, %[[B:.*]] : !llvm.struct
  // CHECK: llvm.store %{{.*}}, %[[C:.*]] : !llvm.struct
  // CHECK: %[[ZERO:.*]] = llvm.mlir.constant(0.000000e+00 : f32) : f32
  // CHECK: llvm.call @trace_cuda_matmul_f32(%[[A]], %[[B]], %[[C]], %[[ZERO]], %[[S]])
  // CHECK-NOT: mgpuStreamSynchronize
  // CHECK: gpu.launch_func <%[[S]] : !llvm.ptr> @kernels::@scale
  // CHECK-NOT: mgpuStreamSynchronize
  // CHECK: %[[ONE:.*]] = llvm.mlir.constant(1.000000e+00 : f64) : f64
  // CHECK: llvm.call @trace_cuda_batch_matmul_f64(%{{.*}}, %{{.*}}, %{{.*}}, %[[ONE]], %[[S]])
  // CHECK: llvm.call @mgpuStreamSynchronize(%[[S]])
  // CHECK: llvm.call @mgpuStreamDestroy(%[[S]])
  // CHECK-NEXT: llvm.return
  // SYNC: error: failed to legalize operation 'trace_gpu.gemm'
  func.func @chain(%a: memref<8x16xf32>, %b: memref<16x4xf32>, %c: memref<8x4xf32>,
                   %q: memref<2x8x4xf64>, %k: memref<2x4x8xf64, strided<[32, 1, 4]>>,
                   %s: memref<2x8x8xf64>) {
    %one = arith.constant 1 : index
    gpu.launch_func @kernels::@scale blocks in (%one, %one, %one)
        threads in (%one, %one, %one)
    %t0 = trace_gpu.gemm %a, %b, %c beta = 0.0 : memref<8x16xf32>, memref<16x4xf32>, memref<8x4xf32>
    gpu.launch_func @kernels::@scale blocks in (%one, %one, %one)
        threads in (%one, %one, %one)
    %t1 = trace_gpu.gemm %q, %k, %s beta = 1.0 : memref<2x8x4xf64>, memref<2x4x8xf64, strided<[32, 1, 4]>>, memref<2x8x8xf64>
    return
  }
}

// -----

// A gemm in a loop keeps its stack slots in the entry block.
// CHECK-LABEL: llvm.func @in_loop
// CHECK-COUNT-3: llvm.alloca
// CHECK-NOT: llvm.alloca
// CHECK: llvm.call @trace_cuda_matmul_f32
func.func @in_loop(%a: memref<8x16xf32>, %b: memref<16x4xf32>, %c: memref<8x4xf32>, %n: index) {
  %zero = arith.constant 0 : index
  %one = arith.constant 1 : index
  scf.for %i = %zero to %n step %one {
    %t = trace_gpu.gemm %a, %b, %c beta = 1.0 : memref<8x16xf32>, memref<16x4xf32>, memref<8x4xf32>
  }
  return
}
