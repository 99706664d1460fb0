// A fill shared by several destinations is cloned (with its tensor.empty)
// before each but the first; a fill read as an input keeps that use and
// every destination gets a clone; a fill with one use stays as it is;
// every use of a shared tensor.empty gets its own, right before its user.
// RUN: trace-opt %s -trace-unshare-fills -split-input-file | FileCheck %s
// RUN: trace-opt %s -trace-unshare-fills -split-input-file -one-shot-bufferize="bufferize-function-boundaries" | FileCheck %s --check-prefix=BUF

// CHECK-LABEL: func @two_matmuls
// CHECK: %[[E1:.*]] = tensor.empty() : tensor<8x4xf32>
// CHECK: %[[F1:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[E1]] : tensor<8x4xf32>)
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<8x16xf32>, tensor<16x4xf32>) outs(%[[F1]] : tensor<8x4xf32>)
// CHECK: %[[E2:.*]] = tensor.empty() : tensor<8x4xf32>
// CHECK: %[[F2:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[E2]] : tensor<8x4xf32>)
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<8x16xf32>, tensor<16x4xf32>) outs(%[[F2]] : tensor<8x4xf32>)
// Bufferized: two allocations, each filled and written in place, no copy.
// BUF-LABEL: func @two_matmuls
// BUF-NOT: memref.copy
// BUF-COUNT-2: linalg.fill
// BUF-NOT: memref.copy
func.func @two_matmuls(%a: tensor<8x16xf32>, %b: tensor<16x4xf32>, %c: tensor<16x4xf32>)
    -> (tensor<8x4xf32>, tensor<8x4xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<8x4xf32>) -> tensor<8x4xf32>
  %m1 = linalg.matmul ins(%a, %b : tensor<8x16xf32>, tensor<16x4xf32>) outs(%f : tensor<8x4xf32>) -> tensor<8x4xf32>
  %m2 = linalg.matmul ins(%a, %c : tensor<8x16xf32>, tensor<16x4xf32>) outs(%f : tensor<8x4xf32>) -> tensor<8x4xf32>
  return %m1, %m2 : tensor<8x4xf32>, tensor<8x4xf32>
}

// -----

// CHECK-LABEL: func @read_and_written
// CHECK: %[[F:.*]] = linalg.fill
// CHECK: %[[F2:.*]] = linalg.fill
// CHECK: linalg.matmul ins(%[[F]], %{{.*}} : tensor<4x4xf32>, tensor<4x4xf32>) outs(%[[F2]] : tensor<4x4xf32>)
func.func @read_and_written(%b: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  %m = linalg.matmul ins(%f, %b : tensor<4x4xf32>, tensor<4x4xf32>) outs(%f : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %m : tensor<4x4xf32>
}

// -----

// CHECK-LABEL: func @one_use
// CHECK-COUNT-1: linalg.fill
// CHECK-NOT: linalg.fill
func.func @one_use(%a: tensor<8x16xf32>, %b: tensor<16x4xf32>) -> tensor<8x4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<8x4xf32>) -> tensor<8x4xf32>
  %m = linalg.matmul ins(%a, %b : tensor<8x16xf32>, tensor<16x4xf32>) outs(%f : tensor<8x4xf32>) -> tensor<8x4xf32>
  return %m : tensor<8x4xf32>
}

// -----

// g1 is read after g2, so g2 cannot write into it: each gets an empty of
// its own (the arguments are the caller's, never a destination).
// CHECK-LABEL: func @shared_empty
// CHECK-NEXT: %[[E1:.*]] = tensor.empty() : tensor<4xf32>
// CHECK-NEXT: %[[G1:.*]] = linalg.generic {{.*}} ins(%{{.*}} : tensor<4xf32>) outs(%[[E1]] : tensor<4xf32>)
// CHECK: %[[E2:.*]] = tensor.empty() : tensor<4xf32>
// CHECK-NEXT: %[[G2:.*]] = linalg.generic {{.*}} ins(%[[G1]] : tensor<4xf32>) outs(%[[E2]] : tensor<4xf32>)
// CHECK: %[[E3:.*]] = tensor.empty() : tensor<4xf32>
// CHECK-NEXT: return %[[G1]], %[[G2]], %[[E3]]
// Bufferized: three buffers, no copy.
// BUF-LABEL: func @shared_empty
// BUF-COUNT-3: memref.alloc
// BUF-NOT: memref.copy
// BUF: return
#id = affine_map<(d0) -> (d0)>
func.func @shared_empty(%a: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %e = tensor.empty() : tensor<4xf32>
  %g1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%a : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = math.exp %x : f32
    linalg.yield %y : f32
  } -> tensor<4xf32>
  %g2 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%g1 : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = math.tanh %x : f32
    linalg.yield %y : f32
  } -> tensor<4xf32>
  return %g1, %g2, %e : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// g1 dies at g2, which writes into it; g3 reads its destination, so it
// keeps its empty.
// CHECK-LABEL: func @dying_input
// CHECK: %[[G1:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<4xf32>)
// CHECK-NEXT: ^
// CHECK: %[[G2:.*]] = linalg.generic {{.*}} ins(%[[G1]] : tensor<4xf32>) outs(%[[G1]] : tensor<4xf32>)
// CHECK: %[[E3:.*]] = tensor.empty() : tensor<4xf32>
// CHECK-NEXT: linalg.generic {{.*}} ins(%[[G2]] : tensor<4xf32>) outs(%[[E3]] : tensor<4xf32>)
// Bufferized: g1 and g2 share one buffer.
// BUF-LABEL: func @dying_input
// BUF-COUNT-2: memref.alloc
// BUF-NOT: memref.alloc
// BUF-NOT: memref.copy
// BUF: return
#id = affine_map<(d0) -> (d0)>
func.func @dying_input(%a: tensor<4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %g1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%a : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = math.exp %x : f32
    linalg.yield %y : f32
  } -> tensor<4xf32>
  %g2 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%g1 : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = math.tanh %x : f32
    linalg.yield %y : f32
  } -> tensor<4xf32>
  %g3 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%g2 : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = arith.addf %x, %o : f32
    linalg.yield %y : f32
  } -> tensor<4xf32>
  return %g3 : tensor<4xf32>
}

// -----

// A reshape of an argument dies at the add, but its buffer is the caller's:
// writing into it would copy it first, so the add keeps its empty.
// CHECK-LABEL: func @argument_view
// CHECK: %[[V:.*]] = tensor.expand_shape
// CHECK: %[[E:.*]] = tensor.empty() : tensor<2x4xf32>
// CHECK-NEXT: linalg.generic {{.*}} ins(%[[V]] : tensor<2x4xf32>) outs(%[[E]] : tensor<2x4xf32>)
// BUF-LABEL: func @argument_view
// BUF-NOT: memref.copy
// BUF: return
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @argument_view(%a: tensor<8xf32>) -> tensor<2x4xf32> {
  %v = tensor.expand_shape %a [[0, 1]] output_shape [2, 4] : tensor<8xf32> into tensor<2x4xf32>
  %e = tensor.empty() : tensor<2x4xf32>
  %g = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%v : tensor<2x4xf32>) outs(%e : tensor<2x4xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = math.exp %x : f32
    linalg.yield %y : f32
  } -> tensor<2x4xf32>
  return %g : tensor<2x4xf32>
}

// -----

// g2 reads g1 through a reshape, and g1 is read again after g2: g2 must
// not write into that buffer (bufferization would copy the reshape).
// CHECK-LABEL: func @source_read_later
// CHECK: %[[G1:.*]] = linalg.generic
// CHECK: %[[V:.*]] = tensor.expand_shape %[[G1]]
// CHECK: %[[E:.*]] = tensor.empty() : tensor<2x4xf32>
// CHECK-NEXT: %[[G2:.*]] = linalg.generic {{.*}} ins(%[[V]] : tensor<2x4xf32>) outs(%[[E]] : tensor<2x4xf32>)
// CHECK: return %[[G2]], %[[G1]]
// BUF-LABEL: func @source_read_later
// BUF-NOT: memref.copy
// BUF: return
#id1 = affine_map<(d0) -> (d0)>
#id2b = affine_map<(d0, d1) -> (d0, d1)>
func.func @source_read_later(%a: tensor<8xf32>) -> (tensor<2x4xf32>, tensor<8xf32>) {
  %e1 = tensor.empty() : tensor<8xf32>
  %g1 = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]}
      ins(%a : tensor<8xf32>) outs(%e1 : tensor<8xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = math.exp %x : f32
    linalg.yield %y : f32
  } -> tensor<8xf32>
  %v = tensor.expand_shape %g1 [[0, 1]] output_shape [2, 4] : tensor<8xf32> into tensor<2x4xf32>
  %e2 = tensor.empty() : tensor<2x4xf32>
  %g2 = linalg.generic {indexing_maps = [#id2b, #id2b], iterator_types = ["parallel", "parallel"]}
      ins(%v : tensor<2x4xf32>) outs(%e2 : tensor<2x4xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = math.tanh %x : f32
    linalg.yield %y : f32
  } -> tensor<2x4xf32>
  return %g2, %g1 : tensor<2x4xf32>, tensor<8xf32>
}

// -----

// g1 is made once outside the loop and read by every iteration: the nest
// in the loop keeps its empty.
// CHECK-LABEL: func @loop
// CHECK: scf.for
// CHECK: %[[E:.*]] = tensor.empty() : tensor<4xf32>
// CHECK-NEXT: linalg.generic {{.*}} outs(%[[E]] : tensor<4xf32>)
#id1b = affine_map<(d0) -> (d0)>
func.func @loop(%a: tensor<4xf32>, %n: index) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %e1 = tensor.empty() : tensor<4xf32>
  %g1 = linalg.generic {indexing_maps = [#id1b, #id1b], iterator_types = ["parallel"]}
      ins(%a : tensor<4xf32>) outs(%e1 : tensor<4xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = math.exp %x : f32
    linalg.yield %y : f32
  } -> tensor<4xf32>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %a) -> tensor<4xf32> {
    %e2 = tensor.empty() : tensor<4xf32>
    %g2 = linalg.generic {indexing_maps = [#id1b, #id1b], iterator_types = ["parallel"]}
        ins(%g1 : tensor<4xf32>) outs(%e2 : tensor<4xf32>) {
    ^bb0(%x: f32, %o: f32):
      %y = math.tanh %x : f32
      linalg.yield %y : f32
    } -> tensor<4xf32>
    %s = tensor.insert_slice %g2 into %acc[0] [4] [1] : tensor<4xf32> into tensor<4xf32>
    scf.yield %s : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}
