// The VJP rules (TraceVJP.cpp) of the shape ops, as trace-autodiff emits
// them into @<op>_grad: broadcast_in_dim, reshape, transpose, slice,
// concatenate. g is the cotangent. Numerics: test/Integration/CPU/grads.
// RUN: trace-opt %s --trace-autodiff --split-input-file | FileCheck %s

// broadcast_in_dim: sum over the new dim 0 and the stretched dim 2 (operand
// dim 1 has size 1), then reshape [3] to the operand's [3, 1].
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

// A size-1 operand dim that maps to a size-1 result dim is not summed: only
// the new dim 1 is, and the sum already has the operand's shape (no reshape).
// CHECK-LABEL: func @broadcast_keep_one_grad
// CHECK-SAME: %[[G:[a-z0-9_]+]]: tensor<1x3x4xf32> {trace.name = "cot.result0"}
// CHECK: %[[DX:.*]] = trace.reduce_sum %[[G]] dims = [1] : tensor<1x3x4xf32> -> tensor<1x4xf32>
// CHECK-NOT: trace.reshape
// CHECK: return %{{.*}}, %[[DX]]
func.func @broadcast_keep_one(%x: tensor<1x4xf32>) -> tensor<1x3x4xf32> {
  %r = trace.broadcast_in_dim %x, dims = [0, 2] : tensor<1x4xf32> -> tensor<1x3x4xf32>
  return %r : tensor<1x3x4xf32>
}

// -----

// A scalar broadcast to [2, 3]: every dim is new, the sum is rank 0.
// CHECK-LABEL: func @broadcast_scalar_grad
// CHECK-SAME: %[[G:[a-z0-9_]+]]: tensor<2x3xf32> {trace.name = "cot.result0"}
// CHECK: %[[DX:.*]] = trace.reduce_sum %[[G]] dims = [0, 1] : tensor<2x3xf32> -> tensor<f32>
// CHECK: return %{{.*}}, %[[DX]]
func.func @broadcast_scalar(%x: tensor<f32>) -> tensor<2x3xf32> {
  %r = trace.broadcast_in_dim %x, dims = [] : tensor<f32> -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// -----

// A broadcast that changes nothing: g passes through unchanged.
// CHECK-LABEL: func @broadcast_identity_grad
// CHECK-SAME: %[[G:[a-z0-9_]+]]: tensor<2x3xf32> {trace.name = "cot.result0"}
// CHECK-NOT: trace.reduce_sum
// CHECK-NOT: trace.reshape
// CHECK: return %{{.*}}, %[[G]]
func.func @broadcast_identity(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %r = trace.broadcast_in_dim %x, dims = [0, 1] : tensor<2x3xf32> -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// -----

// reshape: dx = reshape(g) back to the operand's shape.
// CHECK-LABEL: func @reshape_grad
// CHECK-SAME: %[[G:[a-z0-9_]+]]: tensor<3x4xf32> {trace.name = "cot.result0"}
// CHECK: %[[DX:.*]] = trace.reshape %[[G]] : tensor<3x4xf32> -> tensor<2x6xf32>
// CHECK: return %{{.*}}, %[[DX]]
func.func @reshape(%x: tensor<2x6xf32>) -> tensor<3x4xf32> {
  %r = trace.reshape %x : tensor<2x6xf32> -> tensor<3x4xf32>
  return %r : tensor<3x4xf32>
}

// -----

// transpose: dx = transpose(g, inverse(perm)). perm = [2, 0, 1] is not its
// own inverse: result dim i is operand dim perm[i], so inverse = [1, 2, 0].
// CHECK-LABEL: func @transpose_grad
// CHECK-SAME: %[[G:[a-z0-9_]+]]: tensor<4x2x3xf32> {trace.name = "cot.result0"}
// CHECK: %[[DX:.*]] = trace.transpose %[[G]], perm = [1, 2, 0] : tensor<4x2x3xf32> -> tensor<2x3x4xf32>
// CHECK: return %{{.*}}, %[[DX]]
func.func @transpose(%x: tensor<2x3x4xf32>) -> tensor<4x2x3xf32> {
  %r = trace.transpose %x, perm = [2, 0, 1] : tensor<2x3x4xf32> -> tensor<4x2x3xf32>
  return %r : tensor<4x2x3xf32>
}

// -----

// Strided slice [2:9:4] (elements 2 and 6 of 9): each element of g is
// followed by 3 zeros ([2] -> [2, 1] -> [2, 4] -> [8]), the first 5 are
// kept, and 2 zeros go before and after (one zeros op for both).
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

// A 2-d slice [1:3, 0:6:2] of a [4, 6] tensor, one dim at a time. Dim 0
// (unit stride): one zero row before and one after, [2, 3] -> [4, 3]. Dim 1
// (stride 2, 3 elements): [4, 3] -> [4, 3, 1] -> [4, 3, 2] -> [4, 6], keep
// the first (3 - 1) * 2 + 1 = 5 columns, then one zero column after.
// CHECK-LABEL: func @slice_2d_grad
// CHECK-SAME: %[[G:[a-z0-9_]+]]: tensor<2x3xf32> {trace.name = "cot.result0"}
// CHECK: %[[ZR:.*]] = trace.full 0.000000e+00 : tensor<1x3xf32>
// CHECK: %[[ROWS:.*]] = trace.concatenate %[[ZR]], %[[G]], %[[ZR]] dim = 0 : (tensor<1x3xf32>, tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<4x3xf32>
// CHECK: %[[SPLIT:.*]] = trace.reshape %[[ROWS]] : tensor<4x3xf32> -> tensor<4x3x1xf32>
// CHECK: %[[ZS:.*]] = trace.full 0.000000e+00 : tensor<4x3x1xf32>
// CHECK: %[[PAIRS:.*]] = trace.concatenate %[[SPLIT]], %[[ZS]] dim = 2 : (tensor<4x3x1xf32>, tensor<4x3x1xf32>) -> tensor<4x3x2xf32>
// CHECK: %[[SPREAD:.*]] = trace.reshape %[[PAIRS]] : tensor<4x3x2xf32> -> tensor<4x6xf32>
// CHECK: %[[KEPT:.*]] = trace.slice %[[SPREAD]] [0:4, 0:5] : tensor<4x6xf32> -> tensor<4x5xf32>
// CHECK: %[[ZC:.*]] = trace.full 0.000000e+00 : tensor<4x1xf32>
// CHECK: %[[DX:.*]] = trace.concatenate %[[KEPT]], %[[ZC]] dim = 1 : (tensor<4x5xf32>, tensor<4x1xf32>) -> tensor<4x6xf32>
// CHECK: return %{{.*}}, %[[DX]]
func.func @slice_2d(%x: tensor<4x6xf32>) -> tensor<2x3xf32> {
  %r = trace.slice %x [1:3, 0:6:2] : tensor<4x6xf32> -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// -----

// concatenate: each input's cotangent is its slice of g along dim 1.
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

// Three inputs along dim 0: the offsets accumulate (0, 1, 3).
// CHECK-LABEL: func @concatenate3_grad
// CHECK-SAME: %[[G:[a-z0-9_]+]]: tensor<6x2xf32> {trace.name = "cot.result0"}
// CHECK: %[[D0:.*]] = trace.slice %[[G]] [0:1, 0:2] : tensor<6x2xf32> -> tensor<1x2xf32>
// CHECK: %[[D1:.*]] = trace.slice %[[G]] [1:3, 0:2] : tensor<6x2xf32> -> tensor<2x2xf32>
// CHECK: %[[D2:.*]] = trace.slice %[[G]] [3:6, 0:2] : tensor<6x2xf32> -> tensor<3x2xf32>
// CHECK: return %{{.*}}, %[[D0]], %[[D1]], %[[D2]]
func.func @concatenate3(%a: tensor<1x2xf32>, %b: tensor<2x2xf32>, %c: tensor<3x2xf32>) -> tensor<6x2xf32> {
  %r = trace.concatenate %a, %b, %c dim = 0 : (tensor<1x2xf32>, tensor<2x2xf32>, tensor<3x2xf32>) -> tensor<6x2xf32>
  return %r : tensor<6x2xf32>
}
