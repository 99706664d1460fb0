// Elementwise producers fuse into consumers that read each element once;
// nothing is fused into a named op or duplicated under a broadcast, except
// pure copies (broadcasts) and cheap masks, which fuse into every reader,
// and cheap shared producers, copied into every reader within a bound.
// RUN: trace-opt %s -trace-to-linalg -trace-fuse-elementwise-linalg -canonicalize -split-input-file | FileCheck %s
// RUN: trace-opt %s -trace-to-linalg -trace-fuse-elementwise-linalg -canonicalize -split-input-file | FileCheck %s --check-prefix=SHARED
// RUN: trace-opt %s -trace-to-linalg -trace-fuse-elementwise-linalg=into-reductions=1 -canonicalize -split-input-file | FileCheck %s --check-prefix=REDUCE

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

// -----

// GELU and its gradient from one pre-activation (one trace.fusion with two
// results): x/2, tanh(...) and 1 + tanh(...) each feed both results. Each
// is computed in both nests rather than written to a buffer of its own:
// two loop nests, each reading only %h and %g.
// CHECK-LABEL: func @shared_recomputed
// CHECK-SAME: %[[H:[^:]*]]: tensor<64xf32>, %[[G:[^:]*]]: tensor<64xf32>
// CHECK: linalg.generic {{.*}} ins(%[[H]] : tensor<64xf32>)
// CHECK: math.tanh
// CHECK: linalg.generic {{.*}} ins(%[[G]], %[[H]] : tensor<64xf32>, tensor<64xf32>)
// CHECK: math.tanh
// CHECK: return
// SHARED-LABEL: func @shared_recomputed
// SHARED-COUNT-2: linalg.generic
// SHARED-NOT: linalg.generic
// SHARED: return
func.func @shared_recomputed(%h: tensor<64xf32>, %g: tensor<64xf32>) -> (tensor<64xf32>, tensor<64xf32>) {
  %half = trace.full 0.5 : tensor<64xf32>
  %one = trace.full 1.0 : tensor<64xf32>
  %a = trace.mul %h, %half : tensor<64xf32>
  %t = trace.tanh %h : tensor<64xf32>
  %c = trace.add %t, %one : tensor<64xf32>
  %y = trace.mul %a, %c : tensor<64xf32>
  %t2 = trace.mul %t, %t : tensor<64xf32>
  %d = trace.sub %one, %t2 : tensor<64xf32>
  %ga = trace.mul %g, %a : tensor<64xf32>
  %gd = trace.mul %ga, %d : tensor<64xf32>
  %gc = trace.mul %g, %c : tensor<64xf32>
  %gx = trace.add %gd, %gc : tensor<64xf32>
  return %y, %gx : tensor<64xf32>, tensor<64xf32>
}

// -----

// A chain where each value feeds two readers: copying shared producers is
// bounded (at most as many payload ops as the function has), so 24 levels
// compile in linear time instead of 2^24 copies, and every level is still
// computed.
// CHECK-LABEL: func @doubling_chain
// CHECK: math.tanh
// CHECK: return
func.func @doubling_chain(%x0: tensor<64xf32>) -> tensor<64xf32> {
  %t0 = trace.tanh %x0 : tensor<64xf32>
  %l0 = trace.logistic %x0 : tensor<64xf32>
  %x1 = trace.mul %t0, %l0 : tensor<64xf32>
  %t1 = trace.tanh %x1 : tensor<64xf32>
  %l1 = trace.logistic %x1 : tensor<64xf32>
  %x2 = trace.mul %t1, %l1 : tensor<64xf32>
  %t2 = trace.tanh %x2 : tensor<64xf32>
  %l2 = trace.logistic %x2 : tensor<64xf32>
  %x3 = trace.mul %t2, %l2 : tensor<64xf32>
  %t3 = trace.tanh %x3 : tensor<64xf32>
  %l3 = trace.logistic %x3 : tensor<64xf32>
  %x4 = trace.mul %t3, %l3 : tensor<64xf32>
  %t4 = trace.tanh %x4 : tensor<64xf32>
  %l4 = trace.logistic %x4 : tensor<64xf32>
  %x5 = trace.mul %t4, %l4 : tensor<64xf32>
  %t5 = trace.tanh %x5 : tensor<64xf32>
  %l5 = trace.logistic %x5 : tensor<64xf32>
  %x6 = trace.mul %t5, %l5 : tensor<64xf32>
  %t6 = trace.tanh %x6 : tensor<64xf32>
  %l6 = trace.logistic %x6 : tensor<64xf32>
  %x7 = trace.mul %t6, %l6 : tensor<64xf32>
  %t7 = trace.tanh %x7 : tensor<64xf32>
  %l7 = trace.logistic %x7 : tensor<64xf32>
  %x8 = trace.mul %t7, %l7 : tensor<64xf32>
  %t8 = trace.tanh %x8 : tensor<64xf32>
  %l8 = trace.logistic %x8 : tensor<64xf32>
  %x9 = trace.mul %t8, %l8 : tensor<64xf32>
  %t9 = trace.tanh %x9 : tensor<64xf32>
  %l9 = trace.logistic %x9 : tensor<64xf32>
  %x10 = trace.mul %t9, %l9 : tensor<64xf32>
  %t10 = trace.tanh %x10 : tensor<64xf32>
  %l10 = trace.logistic %x10 : tensor<64xf32>
  %x11 = trace.mul %t10, %l10 : tensor<64xf32>
  %t11 = trace.tanh %x11 : tensor<64xf32>
  %l11 = trace.logistic %x11 : tensor<64xf32>
  %x12 = trace.mul %t11, %l11 : tensor<64xf32>
  %t12 = trace.tanh %x12 : tensor<64xf32>
  %l12 = trace.logistic %x12 : tensor<64xf32>
  %x13 = trace.mul %t12, %l12 : tensor<64xf32>
  %t13 = trace.tanh %x13 : tensor<64xf32>
  %l13 = trace.logistic %x13 : tensor<64xf32>
  %x14 = trace.mul %t13, %l13 : tensor<64xf32>
  %t14 = trace.tanh %x14 : tensor<64xf32>
  %l14 = trace.logistic %x14 : tensor<64xf32>
  %x15 = trace.mul %t14, %l14 : tensor<64xf32>
  %t15 = trace.tanh %x15 : tensor<64xf32>
  %l15 = trace.logistic %x15 : tensor<64xf32>
  %x16 = trace.mul %t15, %l15 : tensor<64xf32>
  %t16 = trace.tanh %x16 : tensor<64xf32>
  %l16 = trace.logistic %x16 : tensor<64xf32>
  %x17 = trace.mul %t16, %l16 : tensor<64xf32>
  %t17 = trace.tanh %x17 : tensor<64xf32>
  %l17 = trace.logistic %x17 : tensor<64xf32>
  %x18 = trace.mul %t17, %l17 : tensor<64xf32>
  %t18 = trace.tanh %x18 : tensor<64xf32>
  %l18 = trace.logistic %x18 : tensor<64xf32>
  %x19 = trace.mul %t18, %l18 : tensor<64xf32>
  %t19 = trace.tanh %x19 : tensor<64xf32>
  %l19 = trace.logistic %x19 : tensor<64xf32>
  %x20 = trace.mul %t19, %l19 : tensor<64xf32>
  %t20 = trace.tanh %x20 : tensor<64xf32>
  %l20 = trace.logistic %x20 : tensor<64xf32>
  %x21 = trace.mul %t20, %l20 : tensor<64xf32>
  %t21 = trace.tanh %x21 : tensor<64xf32>
  %l21 = trace.logistic %x21 : tensor<64xf32>
  %x22 = trace.mul %t21, %l21 : tensor<64xf32>
  %t22 = trace.tanh %x22 : tensor<64xf32>
  %l22 = trace.logistic %x22 : tensor<64xf32>
  %x23 = trace.mul %t22, %l22 : tensor<64xf32>
  %t23 = trace.tanh %x23 : tensor<64xf32>
  %l23 = trace.logistic %x23 : tensor<64xf32>
  %x24 = trace.mul %t23, %l23 : tensor<64xf32>
  return %x24 : tensor<64xf32>
}

// -----

// into-reductions (the CPU pipeline): the row sum of a softmax becomes one
// generic reduction computing exp(x - max) in its payload, and the divide
// computes exp again: no exp buffer. Without the option the sum stays a
// linalg.reduce of a stored exp.
// REDUCE-LABEL: func @softmax_sum
// REDUCE: linalg.reduce
// REDUCE: linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]
// REDUCE: math.exp
// REDUCE: arith.addf
// REDUCE: linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]
// REDUCE: math.exp
// REDUCE: arith.divf
// REDUCE-NOT: linalg.reduce
// REDUCE: return
// CHECK-LABEL: func @softmax_sum
// CHECK: linalg.reduce
// CHECK: math.exp
// CHECK: linalg.reduce
func.func @softmax_sum(%x: tensor<4x32xf32>) -> tensor<4x32xf32> {
  %m = trace.reduce_max %x dims = [1] : tensor<4x32xf32> -> tensor<4xf32>
  %mb = trace.broadcast_in_dim %m, dims = [0] : tensor<4xf32> -> tensor<4x32xf32>
  %s = trace.sub %x, %mb : tensor<4x32xf32>
  %e = trace.exp %s : tensor<4x32xf32>
  %sum = trace.reduce_sum %e dims = [1] : tensor<4x32xf32> -> tensor<4xf32>
  %sb = trace.broadcast_in_dim %sum, dims = [0] : tensor<4xf32> -> tensor<4x32xf32>
  %d = trace.div %e, %sb : tensor<4x32xf32>
  return %d : tensor<4x32xf32>
}

// -----

// Not into a reduction that would read one of the producer's inputs other
// than per point or per row: the broadcast of %b along the reduced dim
// stays a copy of its own, which the reduction (the add fused in) reads at
// every point.
// REDUCE-LABEL: func @column_input
// REDUCE: linalg.generic {{.*}} ins(%{{.*}} : tensor<32xf32>) outs(%{{.*}} : tensor<32x32xf32>)
// REDUCE-NEXT: ^bb0
// REDUCE-NEXT: linalg.yield
// REDUCE: linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]
// REDUCE: arith.addf
// REDUCE: arith.addf
func.func @column_input(%x: tensor<32x32xf32>, %b: tensor<32xf32>) -> tensor<32xf32> {
  %bb = trace.broadcast_in_dim %b, dims = [1] : tensor<32xf32> -> tensor<32x32xf32>
  %h = trace.add %x, %bb : tensor<32x32xf32>
  %s = trace.reduce_sum %h dims = [1] : tensor<32x32xf32> -> tensor<32xf32>
  return %s : tensor<32xf32>
}
