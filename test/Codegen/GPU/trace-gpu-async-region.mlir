// trace-gpu-async-region: upstream gpu-async-region, with the calls of
// functions that only queue GPU work on the caller's stream. @layer and
// @block (which only calls @layer) take the stream first; their calls are
// trace_gpu.call, chained like launches, with one host wait, before
// @step returns. @host_read reads a buffer on the host, and @public_layer
// may be called from outside: both keep func.call and upstream's waits.
// @queued, called by a trace_gpu.call in the input, is on the stream too.
// RUN: trace-opt %s --trace-gpu-async-region | FileCheck %s
// RUN: trace-opt %s --pass-pipeline='builtin.module(func.func(gpu-async-region))' | FileCheck %s --check-prefix=UPSTREAM

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @kernel(%x: memref<16xf32>) kernel { gpu.return }
  }

  // CHECK-LABEL: func.func @step(
  // CHECK: %[[T0:.*]] = gpu.wait async
  // CHECK-NEXT: %[[T1:.*]] = gpu.launch_func async [%[[T0]]] @kernels::@kernel
  // CHECK-NEXT: %[[T2:.*]] = trace_gpu.call [%[[T1]]] @layer(%arg0) : memref<16xf32>
  // CHECK-NEXT: %[[T3:.*]] = trace_gpu.call [%[[T2]]] @block(%arg0) : memref<16xf32>
  // CHECK-NEXT: %[[T4:.*]] = gpu.launch_func async [%[[T3]]] @kernels::@kernel
  // CHECK-NEXT: gpu.wait [%[[T4]]]
  // CHECK-NEXT: call @host_read(%arg0)
  // CHECK-NEXT: call @public_layer(%arg0)
  // CHECK-NEXT: return
  // UPSTREAM-LABEL: func.func @step(
  // UPSTREAM: gpu.launch_func async
  // UPSTREAM-NEXT: gpu.wait [
  // UPSTREAM-NEXT: call @layer(%arg0)
  // UPSTREAM-NEXT: call @block(%arg0)
  func.func @step(%x: memref<16xf32>) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @kernels::@kernel blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%x : memref<16xf32>)
    func.call @layer(%x) : (memref<16xf32>) -> ()
    func.call @block(%x) : (memref<16xf32>) -> ()
    gpu.launch_func @kernels::@kernel blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%x : memref<16xf32>)
    func.call @host_read(%x) : (memref<16xf32>) -> ()
    func.call @public_layer(%x) : (memref<16xf32>) -> ()
    return
  }

  // The stream is the argument: no stream of its own, no wait.
  // CHECK-LABEL: func.func private @layer(
  // CHECK-SAME: %[[S:.*]]: !llvm.ptr, %{{.*}}: memref<16xf32>)
  // CHECK-NOT: gpu.wait
  // CHECK: %[[T:.*]] = builtin.unrealized_conversion_cast %[[S]] : !llvm.ptr to !gpu.async.token
  // CHECK-NEXT: %[[A:.*]], %[[TA:.*]] = gpu.alloc async [%[[T]]] () : memref<16xf32>
  // CHECK-NEXT: %[[TL:.*]] = gpu.launch_func async [%[[TA]]] @kernels::@kernel
  // CHECK-NEXT: %{{.*}} = gpu.dealloc async [%[[TL]]] %[[A]]
  // CHECK-NOT: gpu.wait
  // CHECK: return
  func.func private @layer(%x: memref<16xf32>) {
    %c1 = arith.constant 1 : index
    %a = gpu.alloc () : memref<16xf32>
    gpu.launch_func @kernels::@kernel blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
    gpu.dealloc %a : memref<16xf32>
    return
  }

  // Only calls @layer: on the stream too, passing it on.
  // CHECK-LABEL: func.func private @block(
  // CHECK-SAME: %[[S:.*]]: !llvm.ptr, %[[X:.*]]: memref<16xf32>)
  // CHECK-NEXT: %[[T:.*]] = builtin.unrealized_conversion_cast %[[S]]
  // CHECK-NEXT: %[[T1:.*]] = trace_gpu.call [%[[T]]] @layer(%[[X]])
  // CHECK-NEXT: trace_gpu.call [%[[T1]]] @layer(%[[X]])
  // CHECK-NEXT: return
  func.func private @block(%x: memref<16xf32>) {
    func.call @layer(%x) : (memref<16xf32>) -> ()
    func.call @layer(%x) : (memref<16xf32>) -> ()
    return
  }

  // A host read: its function keeps its own stream and waits.
  // CHECK-LABEL: func.func private @host_read(
  // CHECK-SAME: %{{.*}}: memref<16xf32>)
  // CHECK: gpu.wait async
  // CHECK: gpu.wait [
  // CHECK-NEXT: memref.load
  func.func private @host_read(%x: memref<16xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    gpu.launch_func @kernels::@kernel blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%x : memref<16xf32>)
    %v = memref.load %x[%c0] : memref<16xf32>
    return
  }

  // A trace_gpu.call already in the input: its callee is on the caller's
  // stream too.
  // CHECK-LABEL: func.func @already(
  // CHECK: %[[T0:.*]] = gpu.wait async
  // CHECK-NEXT: %[[T1:.*]] = trace_gpu.call [%[[T0]]] @queued(%arg0)
  // CHECK-NEXT: gpu.wait [%[[T1]]]
  func.func @already(%x: memref<16xf32>) {
    %t = trace_gpu.call @queued(%x) : memref<16xf32>
    return
  }
  // CHECK-LABEL: func.func private @queued(
  // CHECK-SAME: %[[S:.*]]: !llvm.ptr,
  // CHECK-NOT: gpu.wait
  // CHECK: %[[T:.*]] = builtin.unrealized_conversion_cast %[[S]]
  // CHECK-NEXT: gpu.launch_func async [%[[T]]]
  // CHECK-NOT: gpu.wait
  // CHECK: return
  func.func private @queued(%s: !llvm.ptr, %x: memref<16xf32>) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @kernels::@kernel blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%x : memref<16xf32>)
    return
  }

  // CHECK-LABEL: func.func @public_layer(
  // CHECK-SAME: %{{.*}}: memref<16xf32>)
  // CHECK: gpu.wait async
  // CHECK: gpu.wait [
  // CHECK-NEXT: return
  func.func @public_layer(%x: memref<16xf32>) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @kernels::@kernel blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%x : memref<16xf32>)
    return
  }
}
