// The VJP rules (VJPOpInterface::buildVJP, TraceVJP.cpp) of the unary
// elementwise ops as trace-autodiff emits them into @<op>_grad: one op per
// function, x the argument, y the forward result, g the cotangent. Their
// numerics against torch.autograd are test/Integration/CPU/grads.
//
// Each rule creates one op per statement, so its ops come out in the
// rule's order whatever the compiler (TraceVJP.cpp); CHECK-NEXT pins that
// order, from the trace.forward_end that ends the forward to the return.
// RUN: trace-opt %s --trace-autodiff --split-input-file | FileCheck %s

// neg: dx = -g.
// CHECK-LABEL: func @neg_grad
// CHECK-SAME: (%[[X:[a-z0-9_]+]]: tensor<4xf32>, %[[G:[a-z0-9_]+]]: tensor<4xf32> {trace.name = "cot.result0"})
// CHECK-SAME: -> (tensor<4xf32>, tensor<4xf32> {trace.name = "grad.arg0"})
// CHECK-NEXT: %[[Y:.*]] = trace.neg %[[X]]
// CHECK-NEXT: trace.forward_end
// CHECK-NEXT: %[[DX:.*]] = trace.neg %[[G]]
// CHECK-NEXT: return %[[Y]], %[[DX]]
func.func @neg(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = trace.neg %x : tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// abs: dx = x > 0 ? g : (x < 0 ? -g : 0), so sign(0) = 0 as torch's sgn.
// CHECK-LABEL: func @abs_grad
// CHECK-SAME: (%[[X:[a-z0-9_]+]]: tensor<4xf32>, %[[G:[a-z0-9_]+]]: tensor<4xf32>
// CHECK-SAME: {
// CHECK-NEXT: %[[Y:.*]] = trace.abs %[[X]]
// CHECK-NEXT: trace.forward_end
// CHECK-NEXT: %[[Z:.*]] = trace.full 0.000000e+00 : tensor<4xf32>
// CHECK-NEXT: %[[GT:.*]] = trace.compare gt, %[[X]], %[[Z]] : tensor<4xf32>
// CHECK-NEXT: %[[LT:.*]] = trace.compare lt, %[[X]], %[[Z]] : tensor<4xf32>
// CHECK-NEXT: %[[NG:.*]] = trace.neg %[[G]]
// CHECK-NEXT: %[[INNER:.*]] = trace.select %[[LT]], %[[NG]], %[[Z]] : tensor<4xi1>, tensor<4xf32>
// CHECK-NEXT: %[[DX:.*]] = trace.select %[[GT]], %[[G]], %[[INNER]]
// CHECK-NEXT: return %[[Y]], %[[DX]]
func.func @abs(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = trace.abs %x : tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// exp: dx = g * y, from the forward result.
// CHECK-LABEL: func @exp_grad
// CHECK-SAME: (%[[X:[a-z0-9_]+]]: tensor<4xf32>, %[[G:[a-z0-9_]+]]: tensor<4xf32>
// CHECK-SAME: {
// CHECK-NEXT: %[[Y:.*]] = trace.exp %[[X]]
// CHECK-NEXT: trace.forward_end
// CHECK-NEXT: %[[DX:.*]] = trace.mul %[[G]], %[[Y]]
// CHECK-NEXT: return %[[Y]], %[[DX]]
func.func @exp(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = trace.exp %x : tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// log: dx = g / x.
// CHECK-LABEL: func @log_grad
// CHECK-SAME: (%[[X:[a-z0-9_]+]]: tensor<4xf32>, %[[G:[a-z0-9_]+]]: tensor<4xf32>
// CHECK-SAME: {
// CHECK-NEXT: %[[Y:.*]] = trace.log %[[X]]
// CHECK-NEXT: trace.forward_end
// CHECK-NEXT: %[[DX:.*]] = trace.div %[[G]], %[[X]]
// CHECK-NEXT: return %[[Y]], %[[DX]]
func.func @log(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = trace.log %x : tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// sin: dx = g * cos(x).
// CHECK-LABEL: func @sin_grad
// CHECK-SAME: (%[[X:[a-z0-9_]+]]: tensor<4xf32>, %[[G:[a-z0-9_]+]]: tensor<4xf32>
// CHECK-SAME: {
// CHECK-NEXT: %[[Y:.*]] = trace.sin %[[X]]
// CHECK-NEXT: trace.forward_end
// CHECK-NEXT: %[[C:.*]] = trace.cos %[[X]]
// CHECK-NEXT: %[[DX:.*]] = trace.mul %[[G]], %[[C]]
// CHECK-NEXT: return %[[Y]], %[[DX]]
func.func @sin(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = trace.sin %x : tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// cos: dx = -(g * sin(x)).
// CHECK-LABEL: func @cos_grad
// CHECK-SAME: (%[[X:[a-z0-9_]+]]: tensor<4xf32>, %[[G:[a-z0-9_]+]]: tensor<4xf32>
// CHECK-SAME: {
// CHECK-NEXT: %[[Y:.*]] = trace.cos %[[X]]
// CHECK-NEXT: trace.forward_end
// CHECK-NEXT: %[[S:.*]] = trace.sin %[[X]]
// CHECK-NEXT: %[[GS:.*]] = trace.mul %[[G]], %[[S]]
// CHECK-NEXT: %[[DX:.*]] = trace.neg %[[GS]]
// CHECK-NEXT: return %[[Y]], %[[DX]]
func.func @cos(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = trace.cos %x : tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// tanh: dx = g * (1 - y^2), from the forward result.
// CHECK-LABEL: func @tanh_grad
// CHECK-SAME: (%[[X:[a-z0-9_]+]]: tensor<4xf32>, %[[G:[a-z0-9_]+]]: tensor<4xf32>
// CHECK-SAME: {
// CHECK-NEXT: %[[Y:.*]] = trace.tanh %[[X]]
// CHECK-NEXT: trace.forward_end
// CHECK-NEXT: %[[ONE:.*]] = trace.full 1.000000e+00 : tensor<4xf32>
// CHECK-NEXT: %[[Y2:.*]] = trace.mul %[[Y]], %[[Y]]
// CHECK-NEXT: %[[D:.*]] = trace.sub %[[ONE]], %[[Y2]]
// CHECK-NEXT: %[[DX:.*]] = trace.mul %[[G]], %[[D]]
// CHECK-NEXT: return %[[Y]], %[[DX]]
func.func @tanh(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = trace.tanh %x : tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// sqrt: dx = g / (2 y), 2 y as y + y.
// CHECK-LABEL: func @sqrt_grad
// CHECK-SAME: (%[[X:[a-z0-9_]+]]: tensor<4xf32>, %[[G:[a-z0-9_]+]]: tensor<4xf32>
// CHECK-SAME: {
// CHECK-NEXT: %[[Y:.*]] = trace.sqrt %[[X]]
// CHECK-NEXT: trace.forward_end
// CHECK-NEXT: %[[TWOY:.*]] = trace.add %[[Y]], %[[Y]]
// CHECK-NEXT: %[[DX:.*]] = trace.div %[[G]], %[[TWOY]]
// CHECK-NEXT: return %[[Y]], %[[DX]]
func.func @sqrt(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = trace.sqrt %x : tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// rsqrt: y = x^(-1/2), dy/dx = -1/2 x^(-3/2) = -1/2 y^3: dx = g * (-0.5 * y * y * y).
// CHECK-LABEL: func @rsqrt_grad
// CHECK-SAME: (%[[X:[a-z0-9_]+]]: tensor<4xf32>, %[[G:[a-z0-9_]+]]: tensor<4xf32>
// CHECK-SAME: {
// CHECK-NEXT: %[[Y:.*]] = trace.rsqrt %[[X]]
// CHECK-NEXT: trace.forward_end
// CHECK-NEXT: %[[HALF:.*]] = trace.full -5.000000e-01 : tensor<4xf32>
// CHECK-NEXT: %[[Y2:.*]] = trace.mul %[[Y]], %[[Y]]
// CHECK-NEXT: %[[Y3:.*]] = trace.mul %[[Y]], %[[Y2]]
// CHECK-NEXT: %[[D:.*]] = trace.mul %[[HALF]], %[[Y3]]
// CHECK-NEXT: %[[DX:.*]] = trace.mul %[[G]], %[[D]]
// CHECK-NEXT: return %[[Y]], %[[DX]]
func.func @rsqrt(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = trace.rsqrt %x : tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// erf: dx = g * 2/sqrt(pi) * exp(-x^2); 2/sqrt(pi) rounded to f32 prints as 1.12837923.
// CHECK-LABEL: func @erf_grad
// CHECK-SAME: (%[[X:[a-z0-9_]+]]: tensor<4xf32>, %[[G:[a-z0-9_]+]]: tensor<4xf32>
// CHECK-SAME: {
// CHECK-NEXT: %[[Y:.*]] = trace.erf %[[X]]
// CHECK-NEXT: trace.forward_end
// CHECK-NEXT: %[[C:.*]] = trace.full 1.12837923 : tensor<4xf32>
// CHECK-NEXT: %[[X2:.*]] = trace.mul %[[X]], %[[X]]
// CHECK-NEXT: %[[NX2:.*]] = trace.neg %[[X2]]
// CHECK-NEXT: %[[E:.*]] = trace.exp %[[NX2]]
// CHECK-NEXT: %[[D:.*]] = trace.mul %[[C]], %[[E]]
// CHECK-NEXT: %[[DX:.*]] = trace.mul %[[G]], %[[D]]
// CHECK-NEXT: return %[[Y]], %[[DX]]
func.func @erf(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = trace.erf %x : tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// logistic: dx = g * y * (1 - y), from the forward result.
// CHECK-LABEL: func @logistic_grad
// CHECK-SAME: (%[[X:[a-z0-9_]+]]: tensor<4xf32>, %[[G:[a-z0-9_]+]]: tensor<4xf32>
// CHECK-SAME: {
// CHECK-NEXT: %[[Y:.*]] = trace.logistic %[[X]]
// CHECK-NEXT: trace.forward_end
// CHECK-NEXT: %[[ONE:.*]] = trace.full 1.000000e+00 : tensor<4xf32>
// CHECK-NEXT: %[[OMY:.*]] = trace.sub %[[ONE]], %[[Y]]
// CHECK-NEXT: %[[D:.*]] = trace.mul %[[Y]], %[[OMY]]
// CHECK-NEXT: %[[DX:.*]] = trace.mul %[[G]], %[[D]]
// CHECK-NEXT: return %[[Y]], %[[DX]]
func.func @logistic(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = trace.logistic %x : tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// f64: the constants of a rule take the element type (erf's 2/sqrt(pi) to
// 17 digits), and the gradient is f64.
// CHECK-LABEL: func @erf_f64_grad
// CHECK-SAME: -> (tensor<2x3xf64>, tensor<2x3xf64> {trace.name = "grad.arg0"})
// CHECK: trace.full 1.1283791670955126 : tensor<2x3xf64>
func.func @erf_f64(%x: tensor<2x3xf64>) -> tensor<2x3xf64> {
  %r = trace.erf %x : tensor<2x3xf64>
  return %r : tensor<2x3xf64>
}

// -----

// log1p: dx = g / (x + 1).
// CHECK-LABEL: func @log1p_grad
// CHECK-SAME: (%[[X:[a-z0-9_]+]]: tensor<4xf32>, %[[G:[a-z0-9_]+]]: tensor<4xf32> {trace.name = "cot.result0"})
// CHECK-NEXT: %[[Y:.*]] = trace.log1p %[[X]]
// CHECK-NEXT: trace.forward_end
// CHECK-NEXT: %[[ONE:.*]] = trace.full 1.000000e+00 : tensor<4xf32>
// CHECK-NEXT: %[[XP:.*]] = trace.add %[[X]], %[[ONE]]
// CHECK-NEXT: %[[DX:.*]] = trace.div %[[G]], %[[XP]]
// CHECK-NEXT: return %[[Y]], %[[DX]]
func.func @log1p(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = trace.log1p %x : tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// expm1: dx = g * (y + 1).
// CHECK-LABEL: func @expm1_grad
// CHECK-SAME: (%[[X:[a-z0-9_]+]]: tensor<4xf32>, %[[G:[a-z0-9_]+]]: tensor<4xf32> {trace.name = "cot.result0"})
// CHECK-NEXT: %[[Y:.*]] = trace.expm1 %[[X]]
// CHECK-NEXT: trace.forward_end
// CHECK-NEXT: %[[ONE:.*]] = trace.full 1.000000e+00 : tensor<4xf32>
// CHECK-NEXT: %[[YP:.*]] = trace.add %[[Y]], %[[ONE]]
// CHECK-NEXT: %[[DX:.*]] = trace.mul %[[G]], %[[YP]]
// CHECK-NEXT: return %[[Y]], %[[DX]]
func.func @expm1(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = trace.expm1 %x : tensor<4xf32>
  return %r : tensor<4xf32>
}
