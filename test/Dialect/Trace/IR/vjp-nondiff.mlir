// Where trace-autodiff passes no gradient: through the ops marked
// NonDifferentiable (compare, iota, random_uniform), into integer or bool
// values, and back through a float-to-integer convert. Such values get no
// cotangent, so no backward op is built for them and the rules' dead
// cotangent terms are removed; integer and bool arguments get no gradient
// result, and float arguments nothing reaches get zeros.
// RUN: trace-opt %s --trace-autodiff --split-input-file | FileCheck %s

// select on a compare-derived predicate: only the chosen sides get g; the
// predicate gets no cotangent, so nothing flows through the compare into x*x
// (no 2 * x * g term: the backward has no mul at all).
// CHECK-LABEL: func @select_compare_grad
// CHECK-SAME: (%[[X:[a-z0-9_]+]]: tensor<4xf32>, %[[Y:[a-z0-9_]+]]: tensor<4xf32>, %[[G:[a-z0-9_]+]]: tensor<4xf32>
// CHECK: %[[SQ:.*]] = trace.mul %[[X]], %[[X]]
// CHECK: %[[C:.*]] = trace.compare gt, %[[SQ]], %[[Y]]
// CHECK: %[[R:.*]] = trace.select %[[C]], %[[X]], %[[Y]]
// CHECK-NOT: trace.mul
// CHECK: %[[Z:.*]] = trace.full 0.000000e+00
// CHECK-NOT: trace.mul
// CHECK: %[[DX:.*]] = trace.select %[[C]], %[[G]], %[[Z]]
// CHECK-NOT: trace.mul
// CHECK: %[[DY:.*]] = trace.select %[[C]], %[[Z]], %[[G]]
// CHECK-NOT: trace.mul
// CHECK: return %[[R]], %[[DX]], %[[DY]]
func.func @select_compare(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %sq = trace.mul %x, %x : tensor<4xf32>
  %c = trace.compare gt, %sq, %y : tensor<4xf32>
  %r = trace.select %c, %x, %y : tensor<4xi1>, tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// A float iota is a constant to autodiff: d(x * iota) = g * iota, and the
// iota's cotangent g * x is dropped.
// CHECK-LABEL: func @iota_grad
// CHECK-SAME: (%[[X:[a-z0-9_]+]]: tensor<4xf32>, %[[G:[a-z0-9_]+]]: tensor<4xf32>
// CHECK: %[[I:.*]] = trace.iota dim = 0 : tensor<4xf32>
// CHECK: %[[R:.*]] = trace.mul %[[X]], %[[I]]
// CHECK: %[[DX:.*]] = trace.mul %[[G]], %[[I]]
// CHECK-NOT: trace.mul %[[G]], %[[X]]
// CHECK: return %[[R]], %[[DX]]
func.func @iota(%x: tensor<4xf32>) -> tensor<4xf32> {
  %i = trace.iota dim = 0 : tensor<4xf32>
  %r = trace.mul %x, %i : tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// Dropout-like scaling by random numbers: dx = g * u; the random op and its
// i64 seed get nothing (the seed has no gradient result).
// CHECK-LABEL: func @random_grad
// CHECK-SAME: (%[[X:[a-z0-9_]+]]: tensor<4xf32>, %[[S:[a-z0-9_]+]]: tensor<i64>, %[[G:[a-z0-9_]+]]: tensor<4xf32>
// CHECK-SAME: -> (tensor<4xf32>, tensor<4xf32> {trace.name = "grad.arg0"})
// CHECK: %[[U:.*]] = trace.random_uniform %[[S]], offset = 0 : tensor<4xf32>
// CHECK: %[[R:.*]] = trace.mul %[[X]], %[[U]]
// CHECK: %[[DX:.*]] = trace.mul %[[G]], %[[U]]
// CHECK-NOT: trace.mul %[[G]], %[[X]]
// CHECK: return %[[R]], %[[DX]]
func.func @random(%x: tensor<4xf32>, %seed: tensor<i64>) -> tensor<4xf32> {
  %u = trace.random_uniform %seed, offset = 0 : tensor<4xf32>
  %r = trace.mul %x, %u : tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// An integer argument gets no gradient: @f_grad returns one gradient, for
// the float argument; the integer add and the i32 -> f32 convert have no
// backward (no convert back to i32).
// CHECK-LABEL: func @int_arg_grad
// CHECK-SAME: (%[[I:[a-z0-9_]+]]: tensor<4xi32>, %[[X:[a-z0-9_]+]]: tensor<4xf32>, %[[G:[a-z0-9_]+]]: tensor<4xf32> {trace.name = "cot.result0"})
// CHECK-SAME: -> (tensor<4xf32>, tensor<4xf32> {trace.name = "grad.arg1"})
// CHECK: %[[J:.*]] = trace.add %[[I]], %[[I]] : tensor<4xi32>
// CHECK: %[[F:.*]] = trace.convert %[[J]] : tensor<4xi32> -> tensor<4xf32>
// CHECK: %[[R:.*]] = trace.mul %[[F]], %[[X]]
// CHECK-NOT: trace.convert
// CHECK: %[[DX:.*]] = trace.mul %[[G]], %[[F]]
// CHECK-NOT: trace.convert
// CHECK: return %[[R]], %[[DX]]
func.func @int_arg(%i: tensor<4xi32>, %x: tensor<4xf32>) -> tensor<4xf32> {
  %j = trace.add %i, %i : tensor<4xi32>
  %f = trace.convert %j : tensor<4xi32> -> tensor<4xf32>
  %r = trace.mul %f, %x : tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// Through a float -> i32 -> float round trip nothing flows: x's gradient is
// zeros, y's is g * the rounded values.
// CHECK-LABEL: func @to_int_grad
// CHECK-SAME: (%[[X:[a-z0-9_]+]]: tensor<4xf32>, %[[Y:[a-z0-9_]+]]: tensor<4xf32>, %[[G:[a-z0-9_]+]]: tensor<4xf32>
// CHECK-SAME: -> (tensor<4xf32>, tensor<4xf32> {trace.name = "grad.arg0"}, tensor<4xf32> {trace.name = "grad.arg1"})
// CHECK: %[[F:.*]] = trace.convert %{{.*}} : tensor<4xi32> -> tensor<4xf32>
// CHECK: %[[R:.*]] = trace.mul %[[F]], %[[Y]]
// CHECK: %[[DY:.*]] = trace.mul %[[G]], %[[F]]
// CHECK: %[[DX:.*]] = trace.full 0.000000e+00 : tensor<4xf32>
// CHECK: return %[[R]], %[[DX]], %[[DY]]
func.func @to_int(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %i = trace.convert %x : tensor<4xf32> -> tensor<4xi32>
  %f = trace.convert %i : tensor<4xi32> -> tensor<4xf32>
  %r = trace.mul %f, %y : tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// The i1 condition argument of a select gets no gradient result, and an i32
// argument converted to float gets none either.
// CHECK-LABEL: func @select_convert_grad
// CHECK-SAME: (%[[C:[a-z0-9_]+]]: tensor<4xi1>, %{{.*}}: tensor<4xi32>, %{{.*}}: tensor<4xf32>, %[[G:[a-z0-9_]+]]: tensor<4xf32>
// CHECK-SAME: -> (tensor<4xf32>, tensor<4xf32> {trace.name = "grad.arg2"})
// CHECK: %[[ZERO:.*]] = trace.full 0.000000e+00
// CHECK: %[[DX:.*]] = trace.select %[[C]], %[[ZERO]], %[[G]]
// CHECK: return %{{.*}}, %[[DX]]
func.func @select_convert(%c: tensor<4xi1>, %i: tensor<4xi32>, %x: tensor<4xf32>) -> tensor<4xf32> {
  %f = trace.convert %i : tensor<4xi32> -> tensor<4xf32>
  %r = trace.select %c, %f, %x : tensor<4xi1>, tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// floor, ceil and round are piecewise constant: no backward op, x gets
// zeros (torch's derivative of each).
// CHECK-LABEL: func @rounding_grad
// CHECK-SAME: (%[[X:[a-z0-9_]+]]: tensor<4xf32>, %[[G:[a-z0-9_]+]]: tensor<4xf32> {trace.name = "cot.result0"})
// CHECK:      trace.forward_end
// CHECK-NEXT: %[[Z:.*]] = trace.full 0.000000e+00 : tensor<4xf32>
// CHECK-NEXT: return %{{.*}}, %[[Z]]
func.func @rounding(%x: tensor<4xf32>) -> tensor<4xf32> {
  %f = trace.floor %x : tensor<4xf32>
  %c = trace.ceil %f : tensor<4xf32>
  %r = trace.round %c : tensor<4xf32>
  return %r : tensor<4xf32>
}
