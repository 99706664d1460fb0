// RUN: trace-opt %s --split-input-file --trace-outline-kernels | FileCheck %s
// RUN: trace-opt %s --split-input-file --trace-outline-kernels=dedupe=false | FileCheck %s --check-prefix=NODEDUPE

// Two layers of the same elementwise nest on different buffers, and a fill:
// the nests share one kernel (named after a hash of its body), the fill
// gets its own, and the host keeps a call per nest, in order.

#map = affine_map<(d0, d1) -> (d0, d1)>
func.func @step(%a: memref<4x8xf32>, %b: memref<4x8xf32>, %c: memref<4x8xf32>) {
  %cst = arith.constant 2.0 : f32
  linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<4x8xf32>) outs(%b : memref<4x8xf32>) {
  ^bb0(%x: f32, %y: f32):
    %m = arith.mulf %x, %cst : f32
    linalg.yield %m : f32
  }
  linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%b : memref<4x8xf32>) outs(%c : memref<4x8xf32>) {
  ^bb0(%x: f32, %y: f32):
    %m = arith.mulf %x, %cst : f32
    linalg.yield %m : f32
  }
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%a : memref<4x8xf32>)
  return
}

// CHECK-LABEL: func.func @step(
// CHECK-SAME: %[[A:.*]]: memref<4x8xf32>, %[[B:.*]]: memref<4x8xf32>, %[[C:.*]]: memref<4x8xf32>)
// CHECK-NEXT: call @[[MUL:trace_kernel_[0-9a-f]{16}]](%[[A]], %[[B]]) : (memref<4x8xf32>, memref<4x8xf32>) -> ()
// CHECK-NEXT: call @[[MUL]](%[[B]], %[[C]])
// CHECK-NEXT: call @[[FILL:trace_kernel_[0-9a-f]{16}]](%[[A]]) : (memref<4x8xf32>) -> ()
// CHECK-NEXT: return
// The constant the nest reads is cloned in, not passed.
// CHECK: func.func private @[[MUL]](%[[X:.*]]: memref<4x8xf32>, %[[Y:.*]]: memref<4x8xf32>) attributes {passthrough = ["noinline"]}
// CHECK-NEXT: %[[TWO:.*]] = arith.constant 2.000000e+00 : f32
// CHECK-NEXT: linalg.generic
// CHECK-SAME: ins(%[[X]] : memref<4x8xf32>) outs(%[[Y]] : memref<4x8xf32>)
// CHECK: arith.mulf %{{.*}}, %[[TWO]]
// CHECK: func.func private @[[FILL]](%[[Z:.*]]: memref<4x8xf32>)
// CHECK-NEXT: arith.constant 0.000000e+00 : f32
// CHECK-NEXT: linalg.fill
// CHECK-NOT: func.func

// Without dedupe, each nest has a kernel; the second's name gets a suffix.
// NODEDUPE-LABEL: func.func @step(
// NODEDUPE-NEXT: call @[[K0:trace_kernel_[0-9a-f]{16}]](
// NODEDUPE-NEXT: call @[[K0]]_0(
// NODEDUPE: func.func private @[[K0]](
// NODEDUPE: func.func private @[[K0]]_0(

// -----

// A nest that reads a non-constant scalar takes it as an argument; the same
// buffer passed twice is one argument, so aliasing stays visible.

func.func @scalar(%a: memref<16xf32>, %s: f32) {
  linalg.fill ins(%s : f32) outs(%a : memref<16xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%a : memref<16xf32>) outs(%a : memref<16xf32>) {
  ^bb0(%x: f32, %y: f32):
    %m = arith.addf %x, %s : f32
    linalg.yield %m : f32
  }
  return
}

// CHECK-LABEL: func.func @scalar(
// CHECK-SAME: %[[A:.*]]: memref<16xf32>, %[[S:.*]]: f32)
// CHECK-NEXT: call @{{.*}}(%[[S]], %[[A]]) : (f32, memref<16xf32>) -> ()
// CHECK-NEXT: call @{{.*}}(%[[A]], %[[S]]) : (memref<16xf32>, f32) -> ()

// -----

// Kernels of two layers with different shapes are different kernels.

func.func @shapes(%a: memref<4xf32>, %b: memref<8xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%a : memref<4xf32>)
  linalg.fill ins(%zero : f32) outs(%b : memref<8xf32>)
  linalg.fill ins(%zero : f32) outs(%a : memref<4xf32>)
  return
}

// CHECK-LABEL: func.func @shapes(
// CHECK-NEXT: call @[[K4:trace_kernel_[0-9a-f]+]](
// CHECK-NEXT: call @[[K8:trace_kernel_[0-9a-f]+]](
// CHECK-NEXT: call @[[K4]](
// CHECK-COUNT-2: func.func private @trace_kernel_
// CHECK-NOT: func.func

// -----

// On tensors (before bufferization) there is nothing to outline.

func.func @tensors(%a: tensor<4xf32>) -> tensor<4xf32> {
  %zero = arith.constant 0.0 : f32
  %f = linalg.fill ins(%zero : f32) outs(%a : tensor<4xf32>) -> tensor<4xf32>
  return %f : tensor<4xf32>
}

// CHECK-LABEL: func.func @tensors(
// CHECK: linalg.fill
// CHECK-NOT: call
