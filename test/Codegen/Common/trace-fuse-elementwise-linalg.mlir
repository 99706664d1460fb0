// Elementwise producers fuse into consumers that read each element once;
// nothing is fused into a named op or duplicated under a broadcast, except
// pure copies (broadcasts) and cheap masks, which fuse into every reader.
// RUN: trace-opt %s -trace-to-linalg -trace-fuse-elementwise-linalg -canonicalize -split-input-file | FileCheck %s

// A chain of elementwise ops is one loop nest.
// CHECK-LABEL: func @chain
// CHECK-COUNT-1: linalg.generic
// CHECK-NOT: linalg.generic
// CHECK: math.tanh
// CHECK: math.exp
func.func @chain(%x: tensor<64xf32>) -> tensor<64xf32> {
  %a = trace.tanh %x : tensor<64xf32>
  %b = trace.exp %a : tensor<64xf32>
  %c = trace.mul %a, %b : tensor<64xf32>
  return %c : tensor<64xf32>
}

// -----

// The layer-norm-like producer stays outside the matmul.
// CHECK-LABEL: func @not_into_matmul
// CHECK: linalg.generic
// CHECK: linalg.matmul
func.func @not_into_matmul(%x: tensor<8x16xf32>, %w: tensor<16x4xf32>) -> tensor<8x4xf32> {
  %a = trace.tanh %x : tensor<8x16xf32>
  %m = trace.matmul %a, %w : tensor<8x16xf32>, tensor<16x4xf32> -> tensor<8x4xf32>
  return %m : tensor<8x4xf32>
}

// -----

// exp feeds a broadcast consumer that reads each element 8 times: not fused
// (it would compute exp 8 times per element).
// CHECK-LABEL: func @no_recompute_under_broadcast
// CHECK: linalg.generic
// CHECK: math.exp
// CHECK: linalg.generic
// CHECK-NOT: math.exp
func.func @no_recompute_under_broadcast(%x: tensor<4xf32>) -> tensor<8x4xf32> {
  %e = trace.exp %x : tensor<4xf32>
  %b = trace.broadcast_in_dim %e, dims = [1] : tensor<4xf32> -> tensor<8x4xf32>
  %t = trace.tanh %b : tensor<8x4xf32>
  return %t : tensor<8x4xf32>
}

// -----

// A broadcast read by two elementwise nests is fused into both (it is only
// indexing); the 4x1 row is what both read, the 4x8 broadcast is never
// written.
// CHECK-LABEL: func @broadcast_into_both
// CHECK-SAME: %[[S:[^:]*]]: tensor<4x1xf32>
// CHECK-COUNT-2: linalg.generic {{.*}} ins(%{{.*}}, %[[S]] : tensor<4x8xf32>, tensor<4x1xf32>)
// CHECK-NOT: linalg.generic
func.func @broadcast_into_both(%x: tensor<4x8xf32>, %s: tensor<4x1xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %b = trace.broadcast_in_dim %s, dims = [0, 1] : tensor<4x1xf32> -> tensor<4x8xf32>
  %d = trace.div %x, %b : tensor<4x8xf32>
  %m = trace.mul %x, %b : tensor<4x8xf32>
  return %d, %m : tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// A causal mask: a compare of a 1x1x4x4 buffer, read through a broadcast by
// two selects. The compare is recomputed in each (one compare per element)
// rather than stored as i1 bytes that vector code loads one at a time.
// CHECK-LABEL: func @mask_recomputed
// CHECK-NOT: tensor<1x1x4x4xi1>
// CHECK-COUNT-2: arith.cmpf oeq
// CHECK-NOT: linalg.generic
// CHECK: return
func.func @mask_recomputed(%tril: tensor<1x1x4x4xf32>, %x: tensor<2x3x4x4xf32>, %y: tensor<2x3x4x4xf32>) -> (tensor<2x3x4x4xf32>, tensor<2x3x4x4xf32>) {
  %zero = trace.full 0.0 : tensor<1x1x4x4xf32>
  %mask = trace.compare eq, %tril, %zero : tensor<1x1x4x4xf32>
  %mb = trace.broadcast_in_dim %mask, dims = [0, 1, 2, 3] : tensor<1x1x4x4xi1> -> tensor<2x3x4x4xi1>
  %ninf = trace.full 0xFF800000 : tensor<2x3x4x4xf32>
  %a = trace.select %mb, %ninf, %x : tensor<2x3x4x4xi1>, tensor<2x3x4x4xf32>
  %b = trace.select %mb, %ninf, %y : tensor<2x3x4x4xi1>, tensor<2x3x4x4xf32>
  return %a, %b : tensor<2x3x4x4xf32>, tensor<2x3x4x4xf32>
}
