// trace-gpu-pipeline's outline-repeats (on by default): the repeated
// layers of a step are one host function, called per layer, whose result
// is written into a buffer the caller allocates: the last layer's into the
// step's own out-parameter, the caller's buffer. Each call queues the layer's
// gemm and kernels on the caller's stream (trace-gpu-async-region): one
// stream for the step, and the host waits once, before the step returns,
// not around each call.
// RUN: trace-opt %s --trace-gpu-pipeline | FileCheck %s
// RUN: trace-opt %s --trace-gpu-pipeline="outline-repeats=false" | FileCheck %s --check-prefix=INLINE

// CHECK-LABEL: llvm.func @step(
// CHECK: %[[S:.*]] = llvm.call @mgpuStreamCreate()
// CHECK-NOT: mgpuStream
// CHECK: %[[OUT0:.*]] = llvm.call @mgpuMemAlloc(%{{.*}}, %[[S]],
// CHECK-NOT: mgpuStream
// CHECK: llvm.call @[[LAYER:step_blocks_0]](%[[S]], %arg0, {{.*}}, %[[OUT0]], %[[OUT0]],
// CHECK-NOT: mgpuStream
// CHECK: llvm.call @[[LAYER]](%[[S]],
// CHECK-NOT: mgpuStream
// CHECK: llvm.call @[[LAYER]](%[[S]], {{.*}}, %arg28, %arg29,
// CHECK-NOT: llvm.call @[[LAYER]](
// CHECK: llvm.call @mgpuStreamSynchronize(%[[S]])
// CHECK-NEXT: llvm.call @mgpuStreamDestroy(%[[S]])
// CHECK-NEXT: llvm.return{{$}}
// The layer: its gemm and fused kernel on the stream it is given, no
// stream of its own, no wait; nothing returned.
// CHECK: llvm.func @[[LAYER]](%[[LS:[^:]*]]: !llvm.ptr,
// CHECK-NOT: mgpuStream
// CHECK: llvm.call @trace_cuda_matmul_f32({{.*}}, %[[LS]])
// CHECK-NOT: mgpuStream
// CHECK: gpu.launch_func <%[[LS]] : !llvm.ptr>
// CHECK-NOT: mgpuStream
// CHECK: llvm.return{{$}}

// INLINE-LABEL: llvm.func @step(
// INLINE-NOT: llvm.call @step_blocks
// INLINE-NOT: llvm.func @step_blocks
func.func @step(%x: tensor<64x64xf32>, %w0: tensor<64x64xf32>, %w1: tensor<64x64xf32>, %w2: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %m0 = trace.matmul %x, %w0 : tensor<64x64xf32>, tensor<64x64xf32> -> tensor<64x64xf32> loc("blocks.0.fc")
  %a0 = trace.tanh %m0 : tensor<64x64xf32> loc("blocks.0.act")
  %b0 = trace.exp %a0 : tensor<64x64xf32> loc("blocks.0.act")
  %c0 = trace.mul %b0, %a0 : tensor<64x64xf32> loc("blocks.0.act")
  %d0 = trace.add %c0, %m0 : tensor<64x64xf32> loc("blocks.0.act")
  %e0 = trace.sin %d0 : tensor<64x64xf32> loc("blocks.0.act")
  %f0 = trace.cos %e0 : tensor<64x64xf32> loc("blocks.0.act")
  %g0 = trace.tanh %f0 : tensor<64x64xf32> loc("blocks.0.out")
  %m1 = trace.matmul %g0, %w1 : tensor<64x64xf32>, tensor<64x64xf32> -> tensor<64x64xf32> loc("blocks.1.fc")
  %a1 = trace.tanh %m1 : tensor<64x64xf32> loc("blocks.1.act")
  %b1 = trace.exp %a1 : tensor<64x64xf32> loc("blocks.1.act")
  %c1 = trace.mul %b1, %a1 : tensor<64x64xf32> loc("blocks.1.act")
  %d1 = trace.add %c1, %m1 : tensor<64x64xf32> loc("blocks.1.act")
  %e1 = trace.sin %d1 : tensor<64x64xf32> loc("blocks.1.act")
  %f1 = trace.cos %e1 : tensor<64x64xf32> loc("blocks.1.act")
  %g1 = trace.tanh %f1 : tensor<64x64xf32> loc("blocks.1.out")
  %m2 = trace.matmul %g1, %w2 : tensor<64x64xf32>, tensor<64x64xf32> -> tensor<64x64xf32> loc("blocks.2.fc")
  %a2 = trace.tanh %m2 : tensor<64x64xf32> loc("blocks.2.act")
  %b2 = trace.exp %a2 : tensor<64x64xf32> loc("blocks.2.act")
  %c2 = trace.mul %b2, %a2 : tensor<64x64xf32> loc("blocks.2.act")
  %d2 = trace.add %c2, %m2 : tensor<64x64xf32> loc("blocks.2.act")
  %e2 = trace.sin %d2 : tensor<64x64xf32> loc("blocks.2.act")
  %f2 = trace.cos %e2 : tensor<64x64xf32> loc("blocks.2.act")
  %g2 = trace.tanh %f2 : tensor<64x64xf32> loc("blocks.2.out")
  return %g2 : tensor<64x64xf32>
}
