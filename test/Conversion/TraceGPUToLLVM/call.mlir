// trace_gpu.call inside upstream's gpu-to-llvm: an llvm.call of the callee
// with the caller's stream first and each memref operand expanded as
// func-to-llvm passes it (allocated and aligned pointers, offset, sizes,
// strides). Its token is that stream, so the caller's final wait
// synchronizes the stream mgpuStreamCreate made, and the callee launches
// on the stream it is given. The callee may be converted before
// (func-to-llvm first, as trace-gpu-pipeline runs them) or in the same
// conversion.
// RUN: trace-opt %s --pass-pipeline='builtin.module(trace-gpu-async-region,convert-func-to-llvm,gpu-to-llvm,reconcile-unrealized-casts,canonicalize)' | FileCheck %s
// RUN: trace-opt %s --pass-pipeline='builtin.module(trace-gpu-async-region,gpu-to-llvm,reconcile-unrealized-casts,canonicalize)' | FileCheck %s
// Without its dependency (gpu-async-region's), the call does not lower.
// RUN: trace-opt %s --trace-gpu-async-region | sed -e 's/trace_gpu.call \[[^]]*\]/trace_gpu.call/' | not trace-opt --pass-pipeline='builtin.module(gpu-to-llvm)' 2>&1 | FileCheck %s --check-prefix=SYNC

module attributes {gpu.container_module} {
  gpu.module @kernels [#nvvm.target] {
    gpu.func @scale() kernel { gpu.return }
  }

  // CHECK-LABEL: llvm.func @step(
  // CHECK-SAME: %[[P:[^:]*]]: !llvm.ptr, %[[Q:[^:]*]]: !llvm.ptr, %[[O:[^:]*]]: i64, %[[N:[^:]*]]: i64, %[[ST:[^:]*]]: i64)
  // CHECK: %[[S:.*]] = llvm.call @mgpuStreamCreate()
  // CHECK-NEXT: llvm.call @layer(%[[S]], %[[P]], %[[Q]], %[[O]], %[[N]], %[[ST]]) : (!llvm.ptr, !llvm.ptr, !llvm.ptr, i64, i64, i64) -> ()
  // CHECK-NEXT: llvm.call @layer(%[[S]], %[[P]], %[[Q]], %[[O]], %[[N]], %[[ST]])
  // CHECK-NEXT: llvm.call @mgpuStreamSynchronize(%[[S]])
  // CHECK-NEXT: llvm.call @mgpuStreamDestroy(%[[S]])
  // CHECK-NEXT: llvm.return
  // SYNC: error: failed to legalize operation 'trace_gpu.call'
  func.func @step(%x: memref<8xf32>) {
    func.call @layer(%x) : (memref<8xf32>) -> ()
    func.call @layer(%x) : (memref<8xf32>) -> ()
    return
  }

  // CHECK-LABEL: llvm.func @layer(
  // CHECK-SAME: %[[S:[^:]*]]: !llvm.ptr,
  // CHECK-NOT: mgpuStream
  // CHECK: gpu.launch_func <%[[S]] : !llvm.ptr> @kernels::@scale
  // CHECK-NOT: mgpuStream
  // CHECK: llvm.return
  func.func private @layer(%x: memref<8xf32>) {
    %one = arith.constant 1 : index
    gpu.launch_func @kernels::@scale blocks in (%one, %one, %one)
        threads in (%one, %one, %one)
    return
  }
}
