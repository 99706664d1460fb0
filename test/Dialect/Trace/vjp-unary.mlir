// The VJP rules (VJPOpInterface::buildVJP, TraceVJP.cpp) of the unary
// elementwise ops as trace-autodiff emits them into @<op>_grad: one op per
// function, x the argument, y the forward result, g the cotangent. Their
// numerics against torch.autograd are test/Integration/CPU/grads.
//
// The order of two ops built as arguments of one C++ call is the compiler's
// (unspecified) evaluation order, so such siblings are CHECK-DAG.
// RUN: trace-opt %s --trace-autodiff --split-input-file | FileCheck %s

// neg: dx = -g.
// CHECK-LABEL: func @neg_grad
// CHECK-SAME: (%[[X:[a-z0-9_]+]]: tensor<4xf32>, %[[G:[a-z0-9_]+]]: tensor<4xf32> {trace.name = "cot.result0"})
// CHECK-SAME: -> (tensor<4xf32>, tensor<4xf32> {trace.name = "grad.arg0"})
// CHECK: %[[Y:.*]] = trace.neg %[[X]]
// CHECK: %[[DX:.*]] = trace.neg %[[G]]
// CHECK: return %[[Y]], %[[DX]]
func.func @neg(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = trace.neg %x : tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// abs: dx = x > 0 ? g : (x < 0 ? -g : 0), so sign(0) = 0 as torch's sgn.
// CHECK-LABEL: func @abs_grad
// CHECK-SAME: (%[[X:[a-z0-9_]+]]: tensor<4xf32>, %[[G:[a-z0-9_]+]]: tensor<4xf32>
// CHECK: %[[Y:.*]] = trace.abs %[[X]]
// CHECK-DAG: %[[NG:.*]] = trace.neg %[[G]]
// CHECK-DAG: %[[LT:.*]] = trace.compare lt, %[[X]], %[[Z1:.*]] : tensor<4xf32>
// CHECK-DAG: %[[Z1]] = trace.full 0.000000e+00 : tensor<4xf32>
// CHECK-DAG: %[[INNER:.*]] = trace.select %[[LT]], %[[NG]], %[[Z2:.*]] : tensor<4xi1>, tensor<4xf32>
// CHECK-DAG: %[[Z2]] = trace.full 0.000000e+00 : tensor<4xf32>
// CHECK-DAG: %[[GT:.*]] = trace.compare gt, %[[X]], %[[Z3:.*]] : tensor<4xf32>
// CHECK-DAG: %[[Z3]] = trace.full 0.000000e+00 : tensor<4xf32>
// CHECK: %[[DX:.*]] = trace.select %[[GT]], %[[G]], %[[INNER]]
// CHECK: return %[[Y]], %[[DX]]
func.func @abs(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = trace.abs %x : tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// exp: dx = g * y, from the forward result.
// CHECK-LABEL: func @exp_grad
// CHECK-SAME: (%[[X:[a-z0-9_]+]]: tensor<4xf32>, %[[G:[a-z0-9_]+]]: tensor<4xf32>
// CHECK: %[[Y:.*]] = trace.exp %[[X]]
// CHECK: %[[DX:.*]] = trace.mul %[[G]], %[[Y]]
// CHECK: return %[[Y]], %[[DX]]
func.func @exp(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = trace.exp %x : tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// log: dx = g / x.
// CHECK-LABEL: func @log_grad
// CHECK-SAME: (%[[X:[a-z0-9_]+]]: tensor<4xf32>, %[[G:[a-z0-9_]+]]: tensor<4xf32>
// CHECK: %[[Y:.*]] = trace.log %[[X]]
// CHECK: %[[DX:.*]] = trace.div %[[G]], %[[X]]
// CHECK: return %[[Y]], %[[DX]]
func.func @log(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = trace.log %x : tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// sin: dx = g * cos(x).
// CHECK-LABEL: func @sin_grad
// CHECK-SAME: (%[[X:[a-z0-9_]+]]: tensor<4xf32>, %[[G:[a-z0-9_]+]]: tensor<4xf32>
// CHECK: %[[Y:.*]] = trace.sin %[[X]]
// CHECK: %[[C:.*]] = trace.cos %[[X]]
// CHECK: %[[DX:.*]] = trace.mul %[[G]], %[[C]]
// CHECK: return %[[Y]], %[[DX]]
func.func @sin(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = trace.sin %x : tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// cos: dx = -(g * sin(x)).
// CHECK-LABEL: func @cos_grad
// CHECK-SAME: (%[[X:[a-z0-9_]+]]: tensor<4xf32>, %[[G:[a-z0-9_]+]]: tensor<4xf32>
// CHECK: %[[Y:.*]] = trace.cos %[[X]]
// CHECK: %[[S:.*]] = trace.sin %[[X]]
// CHECK: %[[GS:.*]] = trace.mul %[[G]], %[[S]]
// CHECK: %[[DX:.*]] = trace.neg %[[GS]]
// CHECK: return %[[Y]], %[[DX]]
func.func @cos(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = trace.cos %x : tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// tanh: dx = g * (1 - y^2), from the forward result.
// CHECK-LABEL: func @tanh_grad
// CHECK-SAME: (%[[X:[a-z0-9_]+]]: tensor<4xf32>, %[[G:[a-z0-9_]+]]: tensor<4xf32>
// CHECK: %[[Y:.*]] = trace.tanh %[[X]]
// CHECK-DAG: %[[Y2:.*]] = trace.mul %[[Y]], %[[Y]]
// CHECK-DAG: %[[ONE:.*]] = trace.full 1.000000e+00 : tensor<4xf32>
// CHECK: %[[D:.*]] = trace.sub %[[ONE]], %[[Y2]]
// CHECK: %[[DX:.*]] = trace.mul %[[G]], %[[D]]
// CHECK: return %[[Y]], %[[DX]]
func.func @tanh(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = trace.tanh %x : tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// sqrt: dx = g / (2 y), 2 y as y + y.
// CHECK-LABEL: func @sqrt_grad
// CHECK-SAME: (%[[X:[a-z0-9_]+]]: tensor<4xf32>, %[[G:[a-z0-9_]+]]: tensor<4xf32>
// CHECK: %[[Y:.*]] = trace.sqrt %[[X]]
// CHECK: %[[TWOY:.*]] = trace.add %[[Y]], %[[Y]]
// CHECK: %[[DX:.*]] = trace.div %[[G]], %[[TWOY]]
// CHECK: return %[[Y]], %[[DX]]
func.func @sqrt(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = trace.sqrt %x : tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// rsqrt: y = x^(-1/2), dy/dx = -1/2 x^(-3/2) = -1/2 y^3: dx = g * (-0.5 * y * y * y).
// CHECK-LABEL: func @rsqrt_grad
// CHECK-SAME: (%[[X:[a-z0-9_]+]]: tensor<4xf32>, %[[G:[a-z0-9_]+]]: tensor<4xf32>
// CHECK: %[[Y:.*]] = trace.rsqrt %[[X]]
// CHECK-DAG: %[[Y2:.*]] = trace.mul %[[Y]], %[[Y]]
// CHECK-DAG: %[[Y3:.*]] = trace.mul %[[Y]], %[[Y2]]
// CHECK-DAG: %[[HALF:.*]] = trace.full -5.000000e-01 : tensor<4xf32>
// CHECK: %[[D:.*]] = trace.mul %[[HALF]], %[[Y3]]
// CHECK: %[[DX:.*]] = trace.mul %[[G]], %[[D]]
// CHECK: return %[[Y]], %[[DX]]
func.func @rsqrt(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = trace.rsqrt %x : tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// erf: dx = g * 2/sqrt(pi) * exp(-x^2); 2/sqrt(pi) rounded to f32 prints as 1.12837923.
// CHECK-LABEL: func @erf_grad
// CHECK-SAME: (%[[X:[a-z0-9_]+]]: tensor<4xf32>, %[[G:[a-z0-9_]+]]: tensor<4xf32>
// CHECK: %[[Y:.*]] = trace.erf %[[X]]
// CHECK-DAG: %[[X2:.*]] = trace.mul %[[X]], %[[X]]
// CHECK-DAG: %[[NX2:.*]] = trace.neg %[[X2]]
// CHECK-DAG: %[[E:.*]] = trace.exp %[[NX2]]
// CHECK-DAG: %[[C:.*]] = trace.full 1.12837923 : tensor<4xf32>
// CHECK: %[[D:.*]] = trace.mul %[[C]], %[[E]]
// CHECK: %[[DX:.*]] = trace.mul %[[G]], %[[D]]
// CHECK: return %[[Y]], %[[DX]]
func.func @erf(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = trace.erf %x : tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// logistic: dx = g * y * (1 - y), from the forward result.
// CHECK-LABEL: func @logistic_grad
// CHECK-SAME: (%[[X:[a-z0-9_]+]]: tensor<4xf32>, %[[G:[a-z0-9_]+]]: tensor<4xf32>
// CHECK: %[[Y:.*]] = trace.logistic %[[X]]
// CHECK: %[[ONE:.*]] = trace.full 1.000000e+00 : tensor<4xf32>
// CHECK: %[[OMY:.*]] = trace.sub %[[ONE]], %[[Y]]
// CHECK: %[[D:.*]] = trace.mul %[[Y]], %[[OMY]]
// CHECK: %[[DX:.*]] = trace.mul %[[G]], %[[D]]
// CHECK: return %[[Y]], %[[DX]]
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
