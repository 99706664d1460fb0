// Folds and canonicalization patterns of trace ops, through the upstream
// canonicalizer (and CSE, for the random op's determinism).
// RUN: trace-opt %s -canonicalize -cse -split-input-file | FileCheck %s

// CHECK-LABEL: func @add_zero
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>)
// CHECK-NEXT: return %[[X]], %[[X]]
func.func @add_zero(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %z = trace.full 0.0 : tensor<4xf32>
  %0 = trace.add %x, %z : tensor<4xf32>
  // The constant moves to the right (add is commutative), then folds.
  %1 = trace.add %z, %x : tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// CHECK-LABEL: func @mul_one_div_one_sub_zero_pow_one
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>, %[[I:.*]]: tensor<4xi32>)
// CHECK-NEXT: return %[[X]], %[[X]], %[[X]], %[[X]], %[[I]]
func.func @mul_one_div_one_sub_zero_pow_one(%x: tensor<4xf32>, %i: tensor<4xi32>)
    -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xi32>) {
  %one = trace.constant dense<1.0> : tensor<4xf32>
  %zero = trace.full 0.0 : tensor<4xf32>
  %ione = trace.full 1 : tensor<4xi32>
  %0 = trace.mul %x, %one : tensor<4xf32>
  %1 = trace.div %x, %one : tensor<4xf32>
  %2 = trace.sub %x, %zero : tensor<4xf32>
  %3 = trace.pow %x, %one : tensor<4xf32>
  %4 = trace.mul %ione, %i : tensor<4xi32>
  return %0, %1, %2, %3, %4 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xi32>
}

// -----

// x * 0 is not folded for floats (NaN * 0 is NaN), nor is 0 - x.
// CHECK-LABEL: func @no_unsafe_folds
// CHECK: trace.mul
// CHECK: trace.sub
func.func @no_unsafe_folds(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %z = trace.full 0.0 : tensor<4xf32>
  %0 = trace.mul %x, %z : tensor<4xf32>
  %1 = trace.sub %z, %x : tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// CHECK-LABEL: func @constant_fold_float
// CHECK-DAG: %[[A:.*]] = trace.constant dense<5.000000e+00> : tensor<2x2xf32>
// CHECK-DAG: %[[B:.*]] = trace.constant dense<[2.000000e+00, 1.000000e+00]> : tensor<2xf32>
// CHECK-DAG: %[[E:.*]] = trace.constant dense<1.000000e+00> : tensor<3xf32>
// CHECK-DAG: %[[N:.*]] = trace.constant dense<-3.000000e+00> : tensor<2x2xf32>
// CHECK: return %[[A]], %[[B]], %[[E]], %[[N]]
func.func @constant_fold_float() -> (tensor<2x2xf32>, tensor<2xf32>, tensor<3xf32>, tensor<2x2xf32>) {
  %a = trace.full 2.0 : tensor<2x2xf32>
  %b = trace.full 3.0 : tensor<2x2xf32>
  %0 = trace.add %a, %b : tensor<2x2xf32>
  %c = trace.constant dense<[4.0, 2.0]> : tensor<2xf32>
  %d = trace.constant dense<[2.0, 2.0]> : tensor<2xf32>
  %1 = trace.div %c, %d : tensor<2xf32>
  %z = trace.full 0.0 : tensor<3xf32>
  %2 = trace.exp %z : tensor<3xf32>
  %3 = trace.neg %b : tensor<2x2xf32>
  return %0, %1, %2, %3 : tensor<2x2xf32>, tensor<2xf32>, tensor<3xf32>, tensor<2x2xf32>
}

// -----

// atan2 of constants folds in double: atan2(1, -1) = 3 pi / 4.
// CHECK-LABEL: func @constant_fold_atan2
// CHECK: %[[R:.*]] = trace.constant dense<[2.35619449{{[0-9]*}}, 0.000000e+00]> : tensor<2xf64>
// CHECK: return %[[R]]
func.func @constant_fold_atan2() -> tensor<2xf64> {
  %a = trace.constant dense<[1.0, 0.0]> : tensor<2xf64>
  %b = trace.constant dense<[-1.0, 2.0]> : tensor<2xf64>
  %0 = trace.atan2 %a, %b : tensor<2xf64>
  return %0 : tensor<2xf64>
}

// -----

// rem of constants is exact fmod: fmod(5, 0.1) is 0.0999..97, not 0 as
// 5 - trunc(5 / 0.1) * 0.1 would give; fmod(-7, 2) keeps -7's sign.
// CHECK-LABEL: func @constant_fold_rem
// CHECK: %[[R:.*]] = trace.constant dense<[0.0999999999999997{{[0-9]*}}, -1.000000e+00]> : tensor<2xf64>
// CHECK: return %[[R]]
func.func @constant_fold_rem() -> tensor<2xf64> {
  %a = trace.constant dense<[5.0, -7.0]> : tensor<2xf64>
  %b = trace.constant dense<[0.1, 2.0]> : tensor<2xf64>
  %0 = trace.rem %a, %b : tensor<2xf64>
  return %0 : tensor<2xf64>
}

// -----

// CHECK-LABEL: func @constant_fold_int
// CHECK-DAG: trace.constant dense<[3, -3]> : tensor<2xi32>
// CHECK-DAG: trace.constant dense<[true, false]> : tensor<2xi1>
// CHECK-DAG: trace.constant dense<[7, 2]> : tensor<2xi32>
// Integer division by zero is left for run time.
// CHECK: trace.div
func.func @constant_fold_int() -> (tensor<2xi32>, tensor<2xi1>, tensor<2xi32>, tensor<2xi32>) {
  %a = trace.constant dense<[7, -7]> : tensor<2xi32>
  %b = trace.constant dense<[2, 2]> : tensor<2xi32>
  %0 = trace.div %a, %b : tensor<2xi32>
  %1 = trace.compare gt, %a, %b : tensor<2xi32>
  %2 = trace.maximum %a, %b : tensor<2xi32>
  %z = trace.full 0 : tensor<2xi32>
  %3 = trace.div %a, %z : tensor<2xi32>
  return %0, %1, %2, %3 : tensor<2xi32>, tensor<2xi1>, tensor<2xi32>, tensor<2xi32>
}

// -----

// NaN propagates through maximum; ne is true for NaN, lt false.
// CHECK-LABEL: func @nan_semantics
// CHECK-DAG: trace.constant dense<0x7FC00000> : tensor<2xf32>
// CHECK-DAG: trace.constant dense<true> : tensor<2xi1>
// CHECK-DAG: trace.constant dense<false> : tensor<2xi1>
func.func @nan_semantics() -> (tensor<2xf32>, tensor<2xi1>, tensor<2xi1>) {
  %nan = trace.full 0x7FC00000 : tensor<2xf32>
  %one = trace.full 1.0 : tensor<2xf32>
  %0 = trace.maximum %nan, %one : tensor<2xf32>
  %1 = trace.compare ne, %nan, %nan : tensor<2xf32>
  %2 = trace.compare lt, %nan, %one : tensor<2xf32>
  return %0, %1, %2 : tensor<2xf32>, tensor<2xi1>, tensor<2xi1>
}

// -----

// CHECK-LABEL: func @convert_constants
// CHECK-DAG: trace.constant dense<[1, -2, 0]> : tensor<3xi32>
// CHECK-DAG: trace.constant dense<[true, true, false]> : tensor<3xi1>
// CHECK-DAG: trace.constant dense<1.000000e+00> : tensor<2xbf16>
func.func @convert_constants() -> (tensor<3xi32>, tensor<3xi1>, tensor<2xbf16>) {
  %f = trace.constant dense<[1.7, -2.9, 0.0]> : tensor<3xf32>
  // Float to integer truncates toward zero; anything to i1 is x != 0.
  %0 = trace.convert %f : tensor<3xf32> -> tensor<3xi32>
  %1 = trace.convert %f : tensor<3xf32> -> tensor<3xi1>
  %t = trace.full true : tensor<2xi1>
  %2 = trace.convert %t : tensor<2xi1> -> tensor<2xbf16>
  return %0, %1, %2 : tensor<3xi32>, tensor<3xi1>, tensor<2xbf16>
}

// -----

// CHECK-LABEL: func @identities
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>, %[[C:.*]]: tensor<4x8xi1>)
// CHECK-NEXT: return %[[X]], %[[X]], %[[X]], %[[X]], %[[X]], %[[X]], %[[X]], %[[X]], %[[X]], %[[X]]
func.func @identities(%x: tensor<4x8xf32>, %c: tensor<4x8xi1>)
    -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>,
        tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %0 = trace.reshape %x : tensor<4x8xf32> -> tensor<4x8xf32>
  %1 = trace.transpose %x, perm = [0, 1] : tensor<4x8xf32> -> tensor<4x8xf32>
  %t = trace.transpose %x, perm = [1, 0] : tensor<4x8xf32> -> tensor<8x4xf32>
  %2 = trace.transpose %t, perm = [1, 0] : tensor<8x4xf32> -> tensor<4x8xf32>
  %3 = trace.broadcast_in_dim %x, dims = [0, 1] : tensor<4x8xf32> -> tensor<4x8xf32>
  %4 = trace.slice %x [0:4, 0:8] : tensor<4x8xf32> -> tensor<4x8xf32>
  %5 = trace.concatenate %x dim = 0 : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %6 = trace.reduce_sum %x dims = [] : tensor<4x8xf32> -> tensor<4x8xf32>
  %7 = trace.select %c, %x, %x : tensor<4x8xi1>, tensor<4x8xf32>
  %n = trace.neg %x : tensor<4x8xf32>
  %8 = trace.neg %n : tensor<4x8xf32>
  %r = trace.reshape %x : tensor<4x8xf32> -> tensor<32xf32>
  %9 = trace.reshape %r : tensor<32xf32> -> tensor<4x8xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9 : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>,
      tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>,
      tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// CHECK-LABEL: func @compose
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>, %[[V:.*]]: tensor<8xf32>)
// CHECK-NEXT: %[[T:.*]] = trace.transpose %[[X]], perm = [1, 2, 0] : tensor<2x3x4xf32> -> tensor<3x4x2xf32>
// CHECK-NEXT: %[[R:.*]] = trace.reshape %[[X]] : tensor<2x3x4xf32> -> tensor<24xf32>
// CHECK-NEXT: %[[B:.*]] = trace.broadcast_in_dim %[[V]], dims = [2] : tensor<8xf32> -> tensor<2x4x8xf32>
// CHECK-NEXT: return %[[T]], %[[R]], %[[B]]
func.func @compose(%x: tensor<2x3x4xf32>, %v: tensor<8xf32>) -> (tensor<3x4x2xf32>, tensor<24xf32>, tensor<2x4x8xf32>) {
  %t1 = trace.transpose %x, perm = [1, 0, 2] : tensor<2x3x4xf32> -> tensor<3x2x4xf32>
  %t2 = trace.transpose %t1, perm = [0, 2, 1] : tensor<3x2x4xf32> -> tensor<3x4x2xf32>
  %r1 = trace.reshape %x : tensor<2x3x4xf32> -> tensor<6x4xf32>
  %r2 = trace.reshape %r1 : tensor<6x4xf32> -> tensor<24xf32>
  %b1 = trace.broadcast_in_dim %v, dims = [1] : tensor<8xf32> -> tensor<4x8xf32>
  %b2 = trace.broadcast_in_dim %b1, dims = [1, 2] : tensor<4x8xf32> -> tensor<2x4x8xf32>
  return %t2, %r2, %b2 : tensor<3x4x2xf32>, tensor<24xf32>, tensor<2x4x8xf32>
}

// -----

// Splat constants keep their value under shape ops; select on a constant
// condition picks a side.
// CHECK-LABEL: func @splat_shapes
// CHECK-SAME: (%[[A:.*]]: tensor<4xf32>, %[[B:.*]]: tensor<4xf32>)
// CHECK-DAG: %[[S:.*]] = trace.constant dense<2.000000e+00> : tensor<3x4xf32>
// CHECK-DAG: %[[T:.*]] = trace.constant dense<2.000000e+00> : tensor<4x3xf32>
// CHECK: return %[[S]], %[[T]], %[[B]]
func.func @splat_shapes(%a: tensor<4xf32>, %b: tensor<4xf32>) -> (tensor<3x4xf32>, tensor<4x3xf32>, tensor<4xf32>) {
  %c = trace.full 2.0 : tensor<4xf32>
  %0 = trace.broadcast_in_dim %c, dims = [1] : tensor<4xf32> -> tensor<3x4xf32>
  %1 = trace.transpose %0, perm = [1, 0] : tensor<3x4xf32> -> tensor<4x3xf32>
  %f = trace.full false : tensor<4xi1>
  %2 = trace.select %f, %a, %b : tensor<4xi1>, tensor<4xf32>
  return %0, %1, %2 : tensor<3x4xf32>, tensor<4x3xf32>, tensor<4xf32>
}

// -----

// Large non-splat constants are not folded (the result would be as large).
// CHECK-LABEL: func @no_large_fold
// CHECK: trace.exp
func.func @no_large_fold(%x: tensor<8192xf32>) -> tensor<8192xf32> {
  %c = trace.iota dim = 0 : tensor<8192xf32>
  %0 = trace.exp %c : tensor<8192xf32>
  return %0 : tensor<8192xf32>
}

// -----

// Unused pure ops, random numbers included, are removed; the random op is
// deterministic in (seed, offset), so two identical ones are one value.
// CHECK-LABEL: func @dce_and_cse_random
// CHECK-COUNT-1: trace.random_uniform
// CHECK-NOT: trace.random_uniform
// CHECK-NOT: trace.exp
func.func @dce_and_cse_random(%seed: tensor<i64>, %x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = trace.exp %x : tensor<4xf32>
  %1 = trace.random_uniform %seed, offset = 0 : tensor<4xf32>
  %2 = trace.random_uniform %seed, offset = 0 : tensor<4xf32>
  return %1, %2 : tensor<4xf32>, tensor<4xf32>
}

// -----

// reverse: over size-1 dims only it is the operand; reversed twice over the
// same dims (in any order) it is the operand; over other dims it stays.
// CHECK-LABEL: func @reverse
// CHECK-SAME: (%[[X:.*]]: tensor<1x4x3xf32>)
// CHECK-NEXT: %[[R:.*]] = trace.reverse %[[X]] dims = [1] : tensor<1x4x3xf32>
// CHECK-NEXT: %[[S:.*]] = trace.reverse %[[R]] dims = [2] : tensor<1x4x3xf32>
// CHECK-NEXT: return %[[X]], %[[X]], %[[S]]
func.func @reverse(%x: tensor<1x4x3xf32>) -> (tensor<1x4x3xf32>, tensor<1x4x3xf32>, tensor<1x4x3xf32>) {
  %0 = trace.reverse %x dims = [0] : tensor<1x4x3xf32>
  %a = trace.reverse %x dims = [1, 2] : tensor<1x4x3xf32>
  %1 = trace.reverse %a dims = [2, 1] : tensor<1x4x3xf32>
  %b = trace.reverse %x dims = [1] : tensor<1x4x3xf32>
  %2 = trace.reverse %b dims = [2] : tensor<1x4x3xf32>
  return %0, %1, %2 : tensor<1x4x3xf32>, tensor<1x4x3xf32>, tensor<1x4x3xf32>
}
