// The VJP rules (TraceVJP.cpp) of the reductions and of matmul, as
// trace-autodiff emits them into @<op>_grad: x the operand, y the forward
// result, g the cotangent. Numerics: test/Integration/CPU/grads.
// RUN: trace-opt %s --trace-autodiff --split-input-file | FileCheck %s

// reduce_sum: g is broadcast back over the reduced dims. Without keepdim the
// kept dim 1 is the only one mapped, whatever the order of the reduced dims.
// CHECK-LABEL: func @reduce_sum_grad
// CHECK-SAME: %[[G:[a-z0-9_]+]]: tensor<3xf32> {trace.name = "cot.result0"}
// CHECK: %[[DX:.*]] = trace.broadcast_in_dim %[[G]], dims = [1] : tensor<3xf32> -> tensor<2x3x4xf32>
// CHECK: return %{{.*}}, %[[DX]]
func.func @reduce_sum(%x: tensor<2x3x4xf32>) -> tensor<3xf32> {
  %r = trace.reduce_sum %x dims = [2, 0] : tensor<2x3x4xf32> -> tensor<3xf32>
  return %r : tensor<3xf32>
}

// -----

// reduce_sum with keepdim: every dim of g is mapped, the size-1 ones
// stretched.
// CHECK-LABEL: func @reduce_sum_keepdim_grad
// CHECK-SAME: %[[G:[a-z0-9_]+]]: tensor<1x3x1xf32> {trace.name = "cot.result0"}
// CHECK: %[[DX:.*]] = trace.broadcast_in_dim %[[G]], dims = [0, 1, 2] : tensor<1x3x1xf32> -> tensor<2x3x4xf32>
// CHECK: return %{{.*}}, %[[DX]]
func.func @reduce_sum_keepdim(%x: tensor<2x3x4xf32>) -> tensor<1x3x1xf32> {
  %r = trace.reduce_sum %x dims = [0, 2] keepdim : tensor<2x3x4xf32> -> tensor<1x3x1xf32>
  return %r : tensor<1x3x1xf32>
}

// -----

// reduce_max (torch.amax's rule): g is shared evenly among the elements
// equal to the max: mask = (x == broadcast(y)) as floats, dx = mask *
// broadcast(g / sum(mask)).
// CHECK-LABEL: func @reduce_max_grad
// CHECK-SAME: (%[[X:[a-z0-9_]+]]: tensor<2x3x4xf32>, %[[G:[a-z0-9_]+]]: tensor<2x4xf32>
// CHECK-SAME: {
// CHECK-NEXT: %[[Y:.*]] = trace.reduce_max %[[X]] dims = [1] : tensor<2x3x4xf32> -> tensor<2x4xf32>
// CHECK-NEXT: trace.forward_end
// CHECK-NEXT: %[[YB:.*]] = trace.broadcast_in_dim %[[Y]], dims = [0, 2] : tensor<2x4xf32> -> tensor<2x3x4xf32>
// CHECK-NEXT: %[[EQ:.*]] = trace.compare eq, %[[X]], %[[YB]] : tensor<2x3x4xf32>
// CHECK-NEXT: %[[MASK:.*]] = trace.convert %[[EQ]] : tensor<2x3x4xi1> -> tensor<2x3x4xf32>
// CHECK-NEXT: %[[N:.*]] = trace.reduce_sum %[[MASK]] dims = [1] : tensor<2x3x4xf32> -> tensor<2x4xf32>
// CHECK-NEXT: %[[SHARE:.*]] = trace.div %[[G]], %[[N]] : tensor<2x4xf32>
// CHECK-NEXT: %[[SB:.*]] = trace.broadcast_in_dim %[[SHARE]], dims = [0, 2] : tensor<2x4xf32> -> tensor<2x3x4xf32>
// CHECK-NEXT: %[[DX:.*]] = trace.mul %[[MASK]], %[[SB]]
// CHECK-NEXT: return %[[Y]], %[[DX]]
func.func @reduce_max(%x: tensor<2x3x4xf32>) -> tensor<2x4xf32> {
  %r = trace.reduce_max %x dims = [1] : tensor<2x3x4xf32> -> tensor<2x4xf32>
  return %r : tensor<2x4xf32>
}

// -----

// reduce_max with keepdim: the same, with g, y and the count of shape [2, 1].
// CHECK-LABEL: func @reduce_max_keepdim_grad
// CHECK-SAME: (%[[X:[a-z0-9_]+]]: tensor<2x3xf32>, %[[G:[a-z0-9_]+]]: tensor<2x1xf32>
// CHECK-SAME: {
// CHECK-NEXT: %[[Y:.*]] = trace.reduce_max %[[X]] dims = [1] keepdim
// CHECK-NEXT: trace.forward_end
// CHECK-NEXT: %[[YB:.*]] = trace.broadcast_in_dim %[[Y]], dims = [0, 1] : tensor<2x1xf32> -> tensor<2x3xf32>
// CHECK-NEXT: %[[EQ:.*]] = trace.compare eq, %[[X]], %[[YB]]
// CHECK-NEXT: %[[MASK:.*]] = trace.convert %[[EQ]] : tensor<2x3xi1> -> tensor<2x3xf32>
// CHECK-NEXT: %[[N:.*]] = trace.reduce_sum %[[MASK]] dims = [1] keepdim : tensor<2x3xf32> -> tensor<2x1xf32>
// CHECK-NEXT: %[[SHARE:.*]] = trace.div %[[G]], %[[N]]
// CHECK-NEXT: %[[SB:.*]] = trace.broadcast_in_dim %[[SHARE]], dims = [0, 1] : tensor<2x1xf32> -> tensor<2x3xf32>
// CHECK-NEXT: %[[DX:.*]] = trace.mul %[[MASK]], %[[SB]]
// CHECK-NEXT: return %[[Y]], %[[DX]]
func.func @reduce_max_keepdim(%x: tensor<2x3xf32>) -> tensor<2x1xf32> {
  %r = trace.reduce_max %x dims = [1] keepdim : tensor<2x3xf32> -> tensor<2x1xf32>
  return %r : tensor<2x1xf32>
}

// -----

// matmul, [4, 6] x [6, 5]: da = g @ b^T ([4, 5] x [5, 6]), db = a^T @ g
// ([6, 4] x [4, 5]).
// CHECK-LABEL: func @matmul_grad
// CHECK-SAME: (%[[A:[a-z0-9_]+]]: tensor<4x6xf32>, %[[B:[a-z0-9_]+]]: tensor<6x5xf32>, %[[G:[a-z0-9_]+]]: tensor<4x5xf32>
// CHECK-SAME: {
// CHECK-NEXT: %[[Y:.*]] = trace.matmul %[[A]], %[[B]]
// CHECK-NEXT: trace.forward_end
// CHECK-NEXT: %[[BT:.*]] = trace.transpose %[[B]], perm = [1, 0] : tensor<6x5xf32> -> tensor<5x6xf32>
// CHECK-NEXT: %[[DA:.*]] = trace.matmul %[[G]], %[[BT]] : tensor<4x5xf32>, tensor<5x6xf32> -> tensor<4x6xf32>
// CHECK-NEXT: %[[AT:.*]] = trace.transpose %[[A]], perm = [1, 0] : tensor<4x6xf32> -> tensor<6x4xf32>
// CHECK-NEXT: %[[DB:.*]] = trace.matmul %[[AT]], %[[G]] : tensor<6x4xf32>, tensor<4x5xf32> -> tensor<6x5xf32>
// CHECK-NEXT: return %[[Y]], %[[DA]], %[[DB]]
func.func @matmul(%a: tensor<4x6xf32>, %b: tensor<6x5xf32>) -> tensor<4x5xf32> {
  %r = trace.matmul %a, %b : tensor<4x6xf32>, tensor<6x5xf32> -> tensor<4x5xf32>
  return %r : tensor<4x5xf32>
}

// -----

// Batched matmul: the transposes swap the last two dims only.
// CHECK-LABEL: func @batch_matmul_grad
// CHECK-SAME: (%[[A:[a-z0-9_]+]]: tensor<2x4x6xf32>, %[[B:[a-z0-9_]+]]: tensor<2x6x5xf32>, %[[G:[a-z0-9_]+]]: tensor<2x4x5xf32>
// CHECK: %[[BT:.*]] = trace.transpose %[[B]], perm = [0, 2, 1] : tensor<2x6x5xf32> -> tensor<2x5x6xf32>
// CHECK: %[[DA:.*]] = trace.matmul %[[G]], %[[BT]] : tensor<2x4x5xf32>, tensor<2x5x6xf32> -> tensor<2x4x6xf32>
// CHECK: %[[AT:.*]] = trace.transpose %[[A]], perm = [0, 2, 1] : tensor<2x4x6xf32> -> tensor<2x6x4xf32>
// CHECK: %[[DB:.*]] = trace.matmul %[[AT]], %[[G]] : tensor<2x6x4xf32>, tensor<2x4x5xf32> -> tensor<2x6x5xf32>
// CHECK: return %{{.*}}, %[[DA]], %[[DB]]
func.func @batch_matmul(%a: tensor<2x4x6xf32>, %b: tensor<2x6x5xf32>) -> tensor<2x4x5xf32> {
  %r = trace.matmul %a, %b : tensor<2x4x6xf32>, tensor<2x6x5xf32> -> tensor<2x4x5xf32>
  return %r : tensor<2x4x5xf32>
}
