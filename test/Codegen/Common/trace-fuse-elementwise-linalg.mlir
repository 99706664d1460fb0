// Elementwise producers fuse into consumers that read each element once;
// nothing is fused into a named op or duplicated under a broadcast.
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
