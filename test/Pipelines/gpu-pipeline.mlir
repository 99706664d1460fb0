// trace-gpu-pipeline: trace ops to host code in the LLVM dialect that
// launches one kernel per loop nest (an elementwise chain is one), and one
// gpu.binary of PTX per kernel. No CUDA toolkit needed (format=isa); the
// PTX itself is assembled by test/Integration/PTX.
// RUN: trace-opt %s --trace-gpu-pipeline | FileCheck %s --implicit-check-not=gpu.module --implicit-check-not=func.func --implicit-check-not=memref. --implicit-check-not=linalg. --implicit-check-not=scf. --implicit-check-not=unrealized_conversion_cast
// RUN: trace-opt %s --trace-gpu-pipeline="chip=sm_80 block-size=128" | FileCheck %s --check-prefix=SM80
// RUN: trace-opt %s --trace-gpu-pipeline="kernel-bare-pointers=false" | FileCheck %s --check-prefix=DESC

// An elementwise chain: one kernel, 4000 elements, four per thread (one
// 16-byte vector load of each input and store of the output) on 4 blocks
// of 256 threads, on a stream created for the call and synchronized before
// it returns. The result is the caller's device buffer, the trailing
// argument, which the kernel writes. The kernel takes each buffer as one
// pointer (kernel-bare-pointers); without, as a memref descriptor.
// CHECK-LABEL: llvm.func @chain(
// CHECK-DAG: %[[C4:.*]] = llvm.mlir.constant(4 : index) : i64
// CHECK-DAG: %[[C256:.*]] = llvm.mlir.constant(256 : index) : i64
// CHECK-DAG: %[[C1:.*]] = llvm.mlir.constant(1 : index) : i64
// CHECK: %[[S:.*]] = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr
// CHECK-NOT: mgpuMemAlloc
// CHECK: gpu.launch_func <%[[S]] : !llvm.ptr> @chain_kernel::@chain_kernel blocks in (%[[C4]], %[[C1]], %[[C1]]) threads in (%[[C256]], %[[C1]], %[[C1]]) : i64 args(%arg1 : !llvm.ptr, %arg8 : !llvm.ptr, %arg15 : !llvm.ptr)
// CHECK-NOT: gpu.launch_func
// CHECK: llvm.call @mgpuStreamSynchronize(%[[S]]) : (!llvm.ptr) -> ()
// CHECK: llvm.call @mgpuStreamDestroy(%[[S]]) : (!llvm.ptr) -> ()
// CHECK: llvm.return
// CHECK: gpu.binary @chain_kernel  [#gpu.object<#nvvm.target<chip = "sm_90", features = "+ptx80">, {{.*}}assembly = "{{.*}}.version 8.0{{.*}}.target sm_90{{.*}}.visible .entry chain_kernel({{.*}}ld.global.v4.b32{{.*}}ld.global.v4.b32{{.*}}st.global.v4.b32
// SM80-LABEL: llvm.func @chain(
// SM80: gpu.launch_func
// SM80-SAME: @chain_kernel::@chain_kernel
// DESC-LABEL: llvm.func @chain(
// DESC: gpu.launch_func {{.*}} @chain_kernel::@chain_kernel {{.*}} args(%arg0 : !llvm.ptr, %arg1 : !llvm.ptr, %{{.*}} : i64, %{{.*}} : i64, %{{.*}} : i64, %arg7 : !llvm.ptr, %arg8 : !llvm.ptr, {{.*}}, %arg14 : !llvm.ptr, %arg15 : !llvm.ptr,
// SM80: gpu.binary @chain_kernel  [#gpu.object<#nvvm.target<chip = "sm_80", features = "+ptx80">, {{.*}}assembly = "{{.*}}.target sm_80{{.*}}.maxntid 128, 1, 1
func.func @chain(%x: tensor<4x1000xf32>, %y: tensor<4x1000xf32>) -> tensor<4x1000xf32> {
  %a = trace.exp %x : tensor<4x1000xf32>
  %b = trace.tanh %y : tensor<4x1000xf32>
  %c = trace.mul %a, %b : tensor<4x1000xf32>
  %d = trace.erf %c : tensor<4x1000xf32>
  %e = trace.log %d : tensor<4x1000xf32>
  return %e : tensor<4x1000xf32>
}

// A softmax: six kernels, in order: fill -inf, row max, x - max and exp
// (one elementwise group), fill 0, row sum, divide (one group). Each row
// buffer is freed on the stream after its last kernel. The exponentials go
// into the caller's buffer (the trailing argument's aligned pointer,
// %arg8), and the divide writes over them in place.
// CHECK-LABEL: llvm.func @softmax(
// CHECK: %[[S:.*]] = llvm.call @mgpuStreamCreate()
// CHECK: %[[MAX:.*]] = llvm.call @mgpuMemAlloc(%{{.*}}, %[[S]], %{{.*}})
// CHECK: gpu.launch_func <%[[S]] : !llvm.ptr> @softmax_kernel::@softmax_kernel
// CHECK: gpu.launch_func <%[[S]] : !llvm.ptr> @softmax_kernel_0::@softmax_kernel
// CHECK: gpu.launch_func <%[[S]] : !llvm.ptr> @softmax_kernel_1::@softmax_kernel
// CHECK-SAME: args(%arg1 : !llvm.ptr, %arg8 : !llvm.ptr, %[[MAX]] : !llvm.ptr)
// CHECK-NEXT: llvm.call @mgpuMemFree(%[[MAX]], %[[S]]) : (!llvm.ptr, !llvm.ptr) -> ()
// CHECK: %[[SUM:.*]] = llvm.call @mgpuMemAlloc(%{{.*}}, %[[S]], %{{.*}})
// CHECK: gpu.launch_func <%[[S]] : !llvm.ptr> @softmax_kernel_2::@softmax_kernel
// CHECK: gpu.launch_func <%[[S]] : !llvm.ptr> @softmax_kernel_3::@softmax_kernel
// CHECK-NOT: mgpuMemAlloc
// CHECK: gpu.launch_func <%[[S]] : !llvm.ptr> @softmax_kernel_4::@softmax_kernel
// CHECK-SAME: args(%arg8 : !llvm.ptr, %arg8 : !llvm.ptr, %[[SUM]] : !llvm.ptr)
// CHECK-NOT: gpu.launch_func
// CHECK: llvm.call @mgpuMemFree(%[[SUM]], %[[S]]) : (!llvm.ptr, !llvm.ptr) -> ()
// CHECK-NOT: mgpuMemFree
// CHECK: llvm.call @mgpuStreamSynchronize(%[[S]])
// CHECK: llvm.return
// CHECK-COUNT-6: gpu.binary @softmax_kernel
func.func @softmax(%x: tensor<8x128xf32>) -> tensor<8x128xf32> {
  %m = trace.reduce_max %x dims = [1] keepdim : tensor<8x128xf32> -> tensor<8x1xf32>
  %mb = trace.broadcast_in_dim %m, dims = [0, 1] : tensor<8x1xf32> -> tensor<8x128xf32>
  %d = trace.sub %x, %mb : tensor<8x128xf32>
  %e = trace.exp %d : tensor<8x128xf32>
  %s = trace.reduce_sum %e dims = [1] keepdim : tensor<8x128xf32> -> tensor<8x1xf32>
  %sb = trace.broadcast_in_dim %s, dims = [0, 1] : tensor<8x1xf32> -> tensor<8x128xf32>
  %y = trace.div %e, %sb : tensor<8x128xf32>
  return %y : tensor<8x128xf32>
}

// A donated argument (a value the forward saved, which the C API hands the
// backward to free) is freed on the stream right after the last kernel that
// reads it (the row sum), before the kernels that follow: a stream-ordered
// free of its allocated pointer, with no host wait.
// CHECK-LABEL: llvm.func @donated(
// CHECK-SAME: %[[ALLOCATED:[^:]*]]: !llvm.ptr, %[[ALIGNED:[^:]*]]: !llvm.ptr,
// CHECK: %[[S:.*]] = llvm.call @mgpuStreamCreate()
// (The fill and the row sum are the softmax's kernels: identical kernels
// are one gpu.module.)
// CHECK: gpu.launch_func <%[[S]] : !llvm.ptr>
// CHECK-NEXT: gpu.launch_func <%[[S]] : !llvm.ptr> {{.*}} args(%[[ALIGNED]] : !llvm.ptr,
// CHECK-NEXT: llvm.call @mgpuMemFree(%[[ALLOCATED]], %[[S]]) : (!llvm.ptr, !llvm.ptr) -> ()
// CHECK-NEXT: gpu.launch_func <%[[S]] : !llvm.ptr> @donated_kernel
// CHECK-NOT: mgpuMemFree
// CHECK: llvm.call @mgpuStreamSynchronize(%[[S]])
func.func @donated(%s: tensor<8x128xf32> {trace.donated}, %x: tensor<8x128xf32>) -> (tensor<8x1xf32>, tensor<8x128xf32>) {
  %r = trace.reduce_sum %s dims = [1] keepdim : tensor<8x128xf32> -> tensor<8x1xf32>
  %e = trace.exp %x : tensor<8x128xf32>
  return %r, %e : tensor<8x1xf32>, tensor<8x128xf32>
}

// The runtime functions the host code calls, as MLIR 22's gpu-to-llvm
// declares them (lib/Runtime/CUDA implements them).
// CHECK-DAG: llvm.func @mgpuStreamCreate() -> !llvm.ptr
// CHECK-DAG: llvm.func @mgpuMemAlloc(i64, !llvm.ptr, i8) -> !llvm.ptr
// CHECK-DAG: llvm.func @mgpuMemFree(!llvm.ptr, !llvm.ptr)
// CHECK-DAG: llvm.func @mgpuStreamSynchronize(!llvm.ptr)
// CHECK-DAG: llvm.func @mgpuStreamDestroy(!llvm.ptr)
