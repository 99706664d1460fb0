// The VJP rules (TraceVJP.cpp) of the binary elementwise ops, select and
// convert, as trace-autodiff emits them into @<op>_grad: a and b the
// operands, y the forward result, g the cotangent. Broadcasting is explicit
// in the trace dialect (broadcast_in_dim), so a broadcast operand's gradient
// is reduced by broadcast_in_dim's rule; a value used twice gets the sum of
// its cotangents. Numerics: test/Integration/CPU/grads.
//
// Each rule creates one op per statement, so its ops come out in the
// rule's order whatever the compiler (TraceVJP.cpp); CHECK-NEXT pins that
// order, from the trace.forward_end that ends the forward to the return.
// RUN: trace-opt %s --trace-autodiff --split-input-file | FileCheck %s

// add: da = g, db = g (no op: the cotangent itself is returned twice).
// CHECK-LABEL: func @add_grad
// CHECK-SAME: (%[[A:[a-z0-9_]+]]: tensor<4xf32>, %[[B:[a-z0-9_]+]]: tensor<4xf32>, %[[G:[a-z0-9_]+]]: tensor<4xf32> {trace.name = "cot.result0"})
// CHECK-SAME: -> (tensor<4xf32>, tensor<4xf32> {trace.name = "grad.arg0"}, tensor<4xf32> {trace.name = "grad.arg1"})
// CHECK-NEXT: %[[Y:.*]] = trace.add %[[A]], %[[B]]
// CHECK-NEXT: trace.forward_end
// CHECK-NEXT: return %[[Y]], %[[G]], %[[G]]
func.func @add(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %r = trace.add %a, %b : tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// sub: da = g, db = -g.
// CHECK-LABEL: func @sub_grad
// CHECK-SAME: (%[[A:[a-z0-9_]+]]: tensor<4xf32>, %[[B:[a-z0-9_]+]]: tensor<4xf32>, %[[G:[a-z0-9_]+]]: tensor<4xf32>
// CHECK-SAME: {
// CHECK-NEXT: %[[Y:.*]] = trace.sub %[[A]], %[[B]]
// CHECK-NEXT: trace.forward_end
// CHECK-NEXT: %[[DB:.*]] = trace.neg %[[G]]
// CHECK-NEXT: return %[[Y]], %[[G]], %[[DB]]
func.func @sub(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %r = trace.sub %a, %b : tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// mul: da = g * b, db = g * a.
// CHECK-LABEL: func @mul_grad
// CHECK-SAME: (%[[A:[a-z0-9_]+]]: tensor<4xf32>, %[[B:[a-z0-9_]+]]: tensor<4xf32>, %[[G:[a-z0-9_]+]]: tensor<4xf32>
// CHECK-SAME: {
// CHECK-NEXT: %[[Y:.*]] = trace.mul %[[A]], %[[B]]
// CHECK-NEXT: trace.forward_end
// CHECK-NEXT: %[[DA:.*]] = trace.mul %[[G]], %[[B]]
// CHECK-NEXT: %[[DB:.*]] = trace.mul %[[G]], %[[A]]
// CHECK-NEXT: return %[[Y]], %[[DA]], %[[DB]]
func.func @mul(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %r = trace.mul %a, %b : tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// div: da = g / b, db = -g * a / b^2, written as -g * (y / b) (torch's form).
// CHECK-LABEL: func @div_grad
// CHECK-SAME: (%[[A:[a-z0-9_]+]]: tensor<4xf32>, %[[B:[a-z0-9_]+]]: tensor<4xf32>, %[[G:[a-z0-9_]+]]: tensor<4xf32>
// CHECK-SAME: {
// CHECK-NEXT: %[[Y:.*]] = trace.div %[[A]], %[[B]]
// CHECK-NEXT: trace.forward_end
// CHECK-NEXT: %[[DA:.*]] = trace.div %[[G]], %[[B]]
// CHECK-NEXT: %[[NG:.*]] = trace.neg %[[G]]
// CHECK-NEXT: %[[YB:.*]] = trace.div %[[Y]], %[[B]]
// CHECK-NEXT: %[[DB:.*]] = trace.mul %[[NG]], %[[YB]]
// CHECK-NEXT: return %[[Y]], %[[DA]], %[[DB]]
func.func @div(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %r = trace.div %a, %b : tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// pow, y = a^b (torch's pow_backward_self and pow_backward_exponent):
//   da = b == 0 ? 0 : g * (b * a^(b - 1))
//   db = a == 0 ? (b >= 0 ? 0 : g * (y * log(a))) : g * (y * log(a))
// CHECK-LABEL: func @pow_grad
// CHECK-SAME: (%[[A:[a-z0-9_]+]]: tensor<4xf32>, %[[B:[a-z0-9_]+]]: tensor<4xf32>, %[[G:[a-z0-9_]+]]: tensor<4xf32>
// CHECK-SAME: {
// CHECK-NEXT: %[[Y:.*]] = trace.pow %[[A]], %[[B]]
// CHECK-NEXT: trace.forward_end
// CHECK-NEXT: %[[Z:.*]] = trace.full 0.000000e+00 : tensor<4xf32>
// CHECK-NEXT: %[[ONE:.*]] = trace.full 1.000000e+00 : tensor<4xf32>
// CHECK-NEXT: %[[BM1:.*]] = trace.sub %[[B]], %[[ONE]]
// CHECK-NEXT: %[[PM1:.*]] = trace.pow %[[A]], %[[BM1]]
// CHECK-NEXT: %[[B0:.*]] = trace.compare eq, %[[B]], %[[Z]]
// CHECK-NEXT: %[[BP:.*]] = trace.mul %[[B]], %[[PM1]]
// CHECK-NEXT: %[[GBP:.*]] = trace.mul %[[G]], %[[BP]]
// CHECK-NEXT: %[[DA:.*]] = trace.select %[[B0]], %[[Z]], %[[GBP]]
// CHECK-NEXT: %[[LOG:.*]] = trace.log %[[A]]
// CHECK-NEXT: %[[YL:.*]] = trace.mul %[[Y]], %[[LOG]]
// CHECK-NEXT: %[[GYL:.*]] = trace.mul %[[G]], %[[YL]]
// CHECK-NEXT: %[[A0:.*]] = trace.compare eq, %[[A]], %[[Z]]
// CHECK-NEXT: %[[BGE:.*]] = trace.compare ge, %[[B]], %[[Z]]
// CHECK-NEXT: %[[AT0:.*]] = trace.select %[[BGE]], %[[Z]], %[[GYL]]
// CHECK-NEXT: %[[DB:.*]] = trace.select %[[A0]], %[[AT0]], %[[GYL]]
// CHECK-NEXT: return %[[Y]], %[[DA]], %[[DB]]
func.func @pow(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %r = trace.pow %a, %b : tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// atan2, y = atan2(a, b) (torch's atan2_backward): r = a * a + b * b,
//   da = g * (b / r), db = g * (-a / r)
// CHECK-LABEL: func @atan2_grad
// CHECK-SAME: (%[[A:[a-z0-9_]+]]: tensor<4xf32>, %[[B:[a-z0-9_]+]]: tensor<4xf32>, %[[G:[a-z0-9_]+]]: tensor<4xf32>
// CHECK-SAME: {
// CHECK-NEXT: %[[Y:.*]] = trace.atan2 %[[A]], %[[B]]
// CHECK-NEXT: trace.forward_end
// CHECK-NEXT: %[[AA:.*]] = trace.mul %[[A]], %[[A]]
// CHECK-NEXT: %[[BB:.*]] = trace.mul %[[B]], %[[B]]
// CHECK-NEXT: %[[R:.*]] = trace.add %[[AA]], %[[BB]]
// CHECK-NEXT: %[[BR:.*]] = trace.div %[[B]], %[[R]]
// CHECK-NEXT: %[[DA:.*]] = trace.mul %[[G]], %[[BR]]
// CHECK-NEXT: %[[NA:.*]] = trace.neg %[[A]]
// CHECK-NEXT: %[[AR:.*]] = trace.div %[[NA]], %[[R]]
// CHECK-NEXT: %[[DB:.*]] = trace.mul %[[G]], %[[AR]]
// CHECK-NEXT: return %[[Y]], %[[DA]], %[[DB]]
func.func @atan2(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %r = trace.atan2 %a, %b : tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// rem, y = fmod(a, b) (torch's fmod backward): q = a / b,
//   da = g, db = -(g * trunc(q)), trunc(q) = q < 0 ? ceil(q) : floor(q)
// CHECK-LABEL: func @rem_grad
// CHECK-SAME: (%[[A:[a-z0-9_]+]]: tensor<4xf32>, %[[B:[a-z0-9_]+]]: tensor<4xf32>, %[[G:[a-z0-9_]+]]: tensor<4xf32>
// CHECK-SAME: {
// CHECK-NEXT: %[[Y:.*]] = trace.rem %[[A]], %[[B]]
// CHECK-NEXT: trace.forward_end
// CHECK-NEXT: %[[Q:.*]] = trace.div %[[A]], %[[B]]
// CHECK-NEXT: %[[Z:.*]] = trace.full 0.000000e+00 : tensor<4xf32>
// CHECK-NEXT: %[[N:.*]] = trace.compare lt, %[[Q]], %[[Z]]
// CHECK-NEXT: %[[UP:.*]] = trace.ceil %[[Q]]
// CHECK-NEXT: %[[DOWN:.*]] = trace.floor %[[Q]]
// CHECK-NEXT: %[[T:.*]] = trace.select %[[N]], %[[UP]], %[[DOWN]]
// CHECK-NEXT: %[[S:.*]] = trace.mul %[[G]], %[[T]]
// CHECK-NEXT: %[[DB:.*]] = trace.neg %[[S]]
// CHECK-NEXT: return %[[Y]], %[[G]], %[[DB]]
func.func @rem(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %r = trace.rem %a, %b : tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// maximum (torch's rule): t = a == b ? g * 0.5 : g; the operand that loses
// gets 0: da = a < b ? 0 : t, db = a > b ? 0 : t. A tie halves g.
// CHECK-LABEL: func @maximum_grad
// CHECK-SAME: (%[[A:[a-z0-9_]+]]: tensor<4xf32>, %[[B:[a-z0-9_]+]]: tensor<4xf32>, %[[G:[a-z0-9_]+]]: tensor<4xf32>
// CHECK-SAME: {
// CHECK-NEXT: %[[Y:.*]] = trace.maximum %[[A]], %[[B]]
// CHECK-NEXT: trace.forward_end
// CHECK-NEXT: %[[Z:.*]] = trace.full 0.000000e+00
// CHECK-NEXT: %[[TIE:.*]] = trace.compare eq, %[[A]], %[[B]]
// CHECK-NEXT: %[[HALF:.*]] = trace.full 5.000000e-01
// CHECK-NEXT: %[[HG:.*]] = trace.mul %[[G]], %[[HALF]]
// CHECK-NEXT: %[[T:.*]] = trace.select %[[TIE]], %[[HG]], %[[G]]
// CHECK-NEXT: %[[LT:.*]] = trace.compare lt, %[[A]], %[[B]]
// CHECK-NEXT: %[[DA:.*]] = trace.select %[[LT]], %[[Z]], %[[T]]
// CHECK-NEXT: %[[GT:.*]] = trace.compare gt, %[[A]], %[[B]]
// CHECK-NEXT: %[[DB:.*]] = trace.select %[[GT]], %[[Z]], %[[T]]
// CHECK-NEXT: return %[[Y]], %[[DA]], %[[DB]]
func.func @maximum(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %r = trace.maximum %a, %b : tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// minimum: the same with the comparisons swapped: da = a > b ? 0 : t,
// db = a < b ? 0 : t.
// CHECK-LABEL: func @minimum_grad
// CHECK-SAME: (%[[A:[a-z0-9_]+]]: tensor<4xf32>, %[[B:[a-z0-9_]+]]: tensor<4xf32>, %[[G:[a-z0-9_]+]]: tensor<4xf32>
// CHECK-SAME: {
// CHECK-NEXT: %[[Y:.*]] = trace.minimum %[[A]], %[[B]]
// CHECK-NEXT: trace.forward_end
// CHECK-NEXT: %[[Z:.*]] = trace.full 0.000000e+00
// CHECK-NEXT: %[[TIE:.*]] = trace.compare eq, %[[A]], %[[B]]
// CHECK-NEXT: %[[HALF:.*]] = trace.full 5.000000e-01
// CHECK-NEXT: %[[HG:.*]] = trace.mul %[[G]], %[[HALF]]
// CHECK-NEXT: %[[T:.*]] = trace.select %[[TIE]], %[[HG]], %[[G]]
// CHECK-NEXT: %[[GT:.*]] = trace.compare gt, %[[A]], %[[B]]
// CHECK-NEXT: %[[DA:.*]] = trace.select %[[GT]], %[[Z]], %[[T]]
// CHECK-NEXT: %[[LT:.*]] = trace.compare lt, %[[A]], %[[B]]
// CHECK-NEXT: %[[DB:.*]] = trace.select %[[LT]], %[[Z]], %[[T]]
// CHECK-NEXT: return %[[Y]], %[[DA]], %[[DB]]
func.func @minimum(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %r = trace.minimum %a, %b : tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// A broadcast operand (torch's a * b with b: [5] against a: [3, 5]): mul's
// rule gives the broadcast value g * a, which broadcast_in_dim's rule sums
// over the new dim 0 back to b's shape.
// CHECK-LABEL: func @mul_broadcast_grad
// CHECK-SAME: (%[[A:[a-z0-9_]+]]: tensor<3x5xf32>, %[[B:[a-z0-9_]+]]: tensor<5xf32>, %[[G:[a-z0-9_]+]]: tensor<3x5xf32>
// CHECK-SAME: {
// CHECK-NEXT: %[[BB:.*]] = trace.broadcast_in_dim %[[B]], dims = [1] : tensor<5xf32> -> tensor<3x5xf32>
// CHECK-NEXT: %[[Y:.*]] = trace.mul %[[A]], %[[BB]]
// CHECK-NEXT: trace.forward_end
// CHECK-NEXT: %[[DA:.*]] = trace.mul %[[G]], %[[BB]]
// CHECK-NEXT: %[[DBB:.*]] = trace.mul %[[G]], %[[A]]
// CHECK-NEXT: %[[DB:.*]] = trace.reduce_sum %[[DBB]] dims = [0] : tensor<3x5xf32> -> tensor<5xf32>
// CHECK-NEXT: return %[[Y]], %[[DA]], %[[DB]]
func.func @mul_broadcast(%a: tensor<3x5xf32>, %b: tensor<5xf32>) -> tensor<3x5xf32> {
  %bb = trace.broadcast_in_dim %b, dims = [1] : tensor<5xf32> -> tensor<3x5xf32>
  %r = trace.mul %a, %bb : tensor<3x5xf32>
  return %r : tensor<3x5xf32>
}

// -----

// One value as both operands: d(a * a) = g * a + g * a, the two cotangents
// summed in operand order.
// CHECK-LABEL: func @mul_same_grad
// CHECK-SAME: (%[[A:[a-z0-9_]+]]: tensor<4xf32>, %[[G:[a-z0-9_]+]]: tensor<4xf32>
// CHECK-SAME: {
// CHECK-NEXT: %[[Y:.*]] = trace.mul %[[A]], %[[A]]
// CHECK-NEXT: trace.forward_end
// CHECK-NEXT: %[[D0:.*]] = trace.mul %[[G]], %[[A]]
// CHECK-NEXT: %[[D1:.*]] = trace.mul %[[G]], %[[A]]
// CHECK-NEXT: %[[DA:.*]] = trace.add %[[D0]], %[[D1]]
// CHECK-NEXT: return %[[Y]], %[[DA]]
func.func @mul_same(%a: tensor<4xf32>) -> tensor<4xf32> {
  %r = trace.mul %a, %a : tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// select: don_true = c ? g : 0, don_false = c ? 0 : g; the i1 condition, an
// argument here, has no gradient result.
// CHECK-LABEL: func @select_grad
// CHECK-SAME: (%[[C:[a-z0-9_]+]]: tensor<2x3xi1>, %[[A:[a-z0-9_]+]]: tensor<2x3xf32>, %[[B:[a-z0-9_]+]]: tensor<2x3xf32>, %[[G:[a-z0-9_]+]]: tensor<2x3xf32>
// CHECK-SAME: -> (tensor<2x3xf32>, tensor<2x3xf32> {trace.name = "grad.arg1"}, tensor<2x3xf32> {trace.name = "grad.arg2"})
// CHECK-SAME: {
// CHECK-NEXT: %[[Y:.*]] = trace.select %[[C]], %[[A]], %[[B]]
// CHECK-NEXT: trace.forward_end
// CHECK-NEXT: %[[Z:.*]] = trace.full 0.000000e+00 : tensor<2x3xf32>
// CHECK-NEXT: %[[DA:.*]] = trace.select %[[C]], %[[G]], %[[Z]]
// CHECK-NEXT: %[[DB:.*]] = trace.select %[[C]], %[[Z]], %[[G]]
// CHECK-NEXT: return %[[Y]], %[[DA]], %[[DB]]
func.func @select(%c: tensor<2x3xi1>, %a: tensor<2x3xf32>, %b: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %r = trace.select %c, %a, %b : tensor<2x3xi1>, tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// -----

// convert between float types: dx = g converted back to the operand's type.
// CHECK-LABEL: func @convert_grad
// CHECK-SAME: (%[[X:[a-z0-9_]+]]: tensor<4xf32>, %[[G:[a-z0-9_]+]]: tensor<4xf64>
// CHECK-SAME: -> (tensor<4xf64>, tensor<4xf32> {trace.name = "grad.arg0"})
// CHECK-SAME: {
// CHECK-NEXT: %[[Y:.*]] = trace.convert %[[X]] : tensor<4xf32> -> tensor<4xf64>
// CHECK-NEXT: trace.forward_end
// CHECK-NEXT: %[[DX:.*]] = trace.convert %[[G]] : tensor<4xf64> -> tensor<4xf32>
// CHECK-NEXT: return %[[Y]], %[[DX]]
func.func @convert(%x: tensor<4xf32>) -> tensor<4xf64> {
  %r = trace.convert %x : tensor<4xf32> -> tensor<4xf64>
  return %r : tensor<4xf64>
}
