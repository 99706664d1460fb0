// The VJP rules (VJPOpInterface::buildVJP, TraceVJP.cpp) as trace-autodiff
// emits them: the IR of a few rules, one op per function. Their numerics
// against torch.autograd are test/Integration/CPU/grads.
// RUN: trace-opt %s --trace-autodiff --split-input-file | FileCheck %s

// tanh: dx = g * (1 - y^2), from the saved result y.
// CHECK-LABEL: func @tanh_grad
// CHECK-SAME: (%[[X:[a-z0-9_]+]]: tensor<4xf32>, %[[G:[a-z0-9_]+]]: tensor<4xf32> {trace.name = "cot.result0"})
// CHECK: %[[Y:.*]] = trace.tanh %[[X]]
// CHECK: %[[Y2:.*]] = trace.mul %[[Y]], %[[Y]]
// CHECK: %[[ONE:.*]] = trace.full 1.000000e+00
// CHECK: %[[D:.*]] = trace.sub %[[ONE]], %[[Y2]]
// CHECK: %[[DX:.*]] = trace.mul %[[G]], %[[D]]
// CHECK: return %[[Y]], %[[DX]]
func.func @tanh(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = trace.tanh %x : tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// mul: da = g * b, db = g * a.
// CHECK-LABEL: func @mul_grad
// CHECK-SAME: (%[[A:[a-z0-9_]+]]: tensor<4xf32>, %[[B:[a-z0-9_]+]]: tensor<4xf32>, %[[G:[a-z0-9_]+]]: tensor<4xf32>
// CHECK: %[[DA:.*]] = trace.mul %[[G]], %[[B]]
// CHECK: %[[DB:.*]] = trace.mul %[[G]], %[[A]]
// CHECK: return %{{.*}}, %[[DA]], %[[DB]]
func.func @mul(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %r = trace.mul %a, %b : tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// broadcast_in_dim: sum over the new dim 0 and the stretched dim 2, then
// reshape to the operand's shape.
// CHECK-LABEL: func @broadcast_grad
// CHECK-SAME: %[[G:[a-z0-9_]+]]: tensor<2x3x4xf32> {trace.name = "cot.result0"}
// CHECK: %[[S:.*]] = trace.reduce_sum %[[G]] dims = [0, 2] : tensor<2x3x4xf32> -> tensor<3xf32>
// CHECK: %[[DX:.*]] = trace.reshape %[[S]] : tensor<3xf32> -> tensor<3x1xf32>
// CHECK: return %{{.*}}, %[[DX]]
func.func @broadcast(%x: tensor<3x1xf32>) -> tensor<2x3x4xf32> {
  %r = trace.broadcast_in_dim %x, dims = [1, 2] : tensor<3x1xf32> -> tensor<2x3x4xf32>
  return %r : tensor<2x3x4xf32>
}

// -----

// reduce_sum: the cotangent is broadcast back over the reduced dims.
// CHECK-LABEL: func @reduce_sum_grad
// CHECK-SAME: %[[G:[a-z0-9_]+]]: tensor<3xf32> {trace.name = "cot.result0"}
// CHECK: %[[DX:.*]] = trace.broadcast_in_dim %[[G]], dims = [1] : tensor<3xf32> -> tensor<2x3x4xf32>
// CHECK: return %{{.*}}, %[[DX]]
func.func @reduce_sum(%x: tensor<2x3x4xf32>) -> tensor<3xf32> {
  %r = trace.reduce_sum %x dims = [0, 2] : tensor<2x3x4xf32> -> tensor<3xf32>
  return %r : tensor<3xf32>
}

// -----

// reduce_max (keepdim): g is shared among the elements equal to the max.
// CHECK-LABEL: func @reduce_max_grad
// CHECK-SAME: (%[[X:[a-z0-9_]+]]: tensor<2x3xf32>, %[[G:[a-z0-9_]+]]: tensor<2x1xf32>
// CHECK: %[[Y:.*]] = trace.reduce_max %[[X]] dims = [1] keepdim
// CHECK: %[[YB:.*]] = trace.broadcast_in_dim %[[Y]], dims = [0, 1] : tensor<2x1xf32> -> tensor<2x3xf32>
// CHECK: %[[EQ:.*]] = trace.compare eq, %[[X]], %[[YB]]
// CHECK: %[[MASK:.*]] = trace.convert %[[EQ]] : tensor<2x3xi1> -> tensor<2x3xf32>
// CHECK: %[[N:.*]] = trace.reduce_sum %[[MASK]] dims = [1] keepdim
// CHECK: %[[SHARE:.*]] = trace.div %[[G]], %[[N]]
// CHECK: %[[SB:.*]] = trace.broadcast_in_dim %[[SHARE]], dims = [0, 1]
// CHECK: %[[DX:.*]] = trace.mul %[[MASK]], %[[SB]]
// CHECK: return %[[Y]], %[[DX]]
func.func @reduce_max(%x: tensor<2x3xf32>) -> tensor<2x1xf32> {
  %r = trace.reduce_max %x dims = [1] keepdim : tensor<2x3xf32> -> tensor<2x1xf32>
  return %r : tensor<2x1xf32>
}

// -----

// Batched matmul: da = g @ b^T, db = a^T @ g, transposing the last two dims.
// CHECK-LABEL: func @matmul_grad
// CHECK-SAME: (%[[A:[a-z0-9_]+]]: tensor<2x4x6xf32>, %[[B:[a-z0-9_]+]]: tensor<2x6x5xf32>, %[[G:[a-z0-9_]+]]: tensor<2x4x5xf32>
// CHECK: %[[BT:.*]] = trace.transpose %[[B]], perm = [0, 2, 1] : tensor<2x6x5xf32> -> tensor<2x5x6xf32>
// CHECK: %[[DA:.*]] = trace.matmul %[[G]], %[[BT]] : tensor<2x4x5xf32>, tensor<2x5x6xf32> -> tensor<2x4x6xf32>
// CHECK: %[[AT:.*]] = trace.transpose %[[A]], perm = [0, 2, 1] : tensor<2x4x6xf32> -> tensor<2x6x4xf32>
// CHECK: %[[DB:.*]] = trace.matmul %[[AT]], %[[G]] : tensor<2x6x4xf32>, tensor<2x4x5xf32> -> tensor<2x6x5xf32>
// CHECK: return %{{.*}}, %[[DA]], %[[DB]]
func.func @matmul(%a: tensor<2x4x6xf32>, %b: tensor<2x6x5xf32>) -> tensor<2x4x5xf32> {
  %r = trace.matmul %a, %b : tensor<2x4x6xf32>, tensor<2x6x5xf32> -> tensor<2x4x5xf32>
  return %r : tensor<2x4x5xf32>
}

// -----

// Strided slice [2:9:4] (elements 2 and 6 of 9): each element of g is
// followed by 3 zeros ([2] -> [2, 1] -> [2, 4] -> [8]), the first 5 are
// kept, and 2 zeros go before and after.
// CHECK-LABEL: func @slice_grad
// CHECK-SAME: %[[G:[a-z0-9_]+]]: tensor<2xf32> {trace.name = "cot.result0"}
// CHECK: %[[COL:.*]] = trace.reshape %[[G]] : tensor<2xf32> -> tensor<2x1xf32>
// CHECK: %[[Z3:.*]] = trace.full 0.000000e+00 : tensor<2x3xf32>
// CHECK: %[[ROWS:.*]] = trace.concatenate %[[COL]], %[[Z3]] dim = 1 : (tensor<2x1xf32>, tensor<2x3xf32>) -> tensor<2x4xf32>
// CHECK: %[[FLAT:.*]] = trace.reshape %[[ROWS]] : tensor<2x4xf32> -> tensor<8xf32>
// CHECK: %[[SPREAD:.*]] = trace.slice %[[FLAT]] [0:5] : tensor<8xf32> -> tensor<5xf32>
// CHECK: %[[Z2:.*]] = trace.full 0.000000e+00 : tensor<2xf32>
// CHECK: %[[DX:.*]] = trace.concatenate %[[Z2]], %[[SPREAD]], %[[Z2]] dim = 0 : (tensor<2xf32>, tensor<5xf32>, tensor<2xf32>) -> tensor<9xf32>
// CHECK: return %{{.*}}, %[[DX]]
func.func @slice(%x: tensor<9xf32>) -> tensor<2xf32> {
  %r = trace.slice %x [2:9:4] : tensor<9xf32> -> tensor<2xf32>
  return %r : tensor<2xf32>
}

// -----

// concatenate: each input's cotangent is its slice of g.
// CHECK-LABEL: func @concatenate_grad
// CHECK-SAME: %[[G:[a-z0-9_]+]]: tensor<2x5xf32> {trace.name = "cot.result0"}
// CHECK: %[[D0:.*]] = trace.slice %[[G]] [0:2, 0:3] : tensor<2x5xf32> -> tensor<2x3xf32>
// CHECK: %[[D1:.*]] = trace.slice %[[G]] [0:2, 3:5] : tensor<2x5xf32> -> tensor<2x2xf32>
// CHECK: return %{{.*}}, %[[D0]], %[[D1]]
func.func @concatenate(%a: tensor<2x3xf32>, %b: tensor<2x2xf32>) -> tensor<2x5xf32> {
  %r = trace.concatenate %a, %b dim = 1 : (tensor<2x3xf32>, tensor<2x2xf32>) -> tensor<2x5xf32>
  return %r : tensor<2x5xf32>
}

// -----

// maximum: a tie halves g; the smaller operand gets 0 (torch's rule).
// CHECK-LABEL: func @maximum_grad
// CHECK-SAME: (%[[A:[a-z0-9_]+]]: tensor<4xf32>, %[[B:[a-z0-9_]+]]: tensor<4xf32>, %[[G:[a-z0-9_]+]]: tensor<4xf32>
// CHECK-DAG: %[[ZERO:.*]] = trace.full 0.000000e+00
// CHECK-DAG: %[[HALF:.*]] = trace.full 5.000000e-01
// CHECK: %[[HG:.*]] = trace.mul %[[G]], %[[HALF]]
// CHECK: %[[TIE:.*]] = trace.compare eq, %[[A]], %[[B]]
// CHECK: %[[T:.*]] = trace.select %[[TIE]], %[[HG]], %[[G]]
// CHECK: %[[LT:.*]] = trace.compare lt, %[[A]], %[[B]]
// CHECK: %[[DA:.*]] = trace.select %[[LT]], %[[ZERO]], %[[T]]
// CHECK: %[[GT:.*]] = trace.compare gt, %[[A]], %[[B]]
// CHECK: %[[DB:.*]] = trace.select %[[GT]], %[[ZERO]], %[[T]]
// CHECK: return %{{.*}}, %[[DA]], %[[DB]]
func.func @maximum(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %r = trace.maximum %a, %b : tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// select passes g to the chosen side; the i1 condition and the i32 input of
// the convert get no gradient (no result for them).
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
