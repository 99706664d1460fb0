// The VJP rules (TraceVJP.cpp) of trace.convolution and trace.reverse, as
// trace-autodiff emits them into @<op>_grad, in order. g is the cotangent.
// Numerics: test/Integration/CPU/grads/convolution.test.
// RUN: trace-opt %s --trace-autodiff --split-input-file | FileCheck %s

// Grouped (2 groups), stride 2, and a last window that leaves one row and
// column of the padded input unread (rem = (10 - 3) mod 2 = 1).
// dx: the kernel regrouped [6, 2] -> [4, 3] per group and reversed, g
// spread 2 apart (lhs_dilation), padded [3 - 1 - 1, 3 - 1 - 1 + rem].
// dw: x's batch and channels exchanged within each group, g transposed,
// the stride becoming the kernel's dilation, padding [1, 1 - rem].
// CHECK-LABEL: func @conv_grad
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<2x4x8x8xf32>, %[[W:[a-z0-9_]+]]: tensor<6x2x3x3xf32>, %[[G:[a-z0-9_]+]]: tensor<2x6x4x4xf32>
// CHECK:      trace.forward_end
// CHECK-NEXT: %[[WG:.*]] = trace.reshape %[[W]] : tensor<6x2x3x3xf32> -> tensor<2x3x2x3x3xf32>
// CHECK-NEXT: %[[WT:.*]] = trace.transpose %[[WG]], perm = [0, 2, 1, 3, 4] : tensor<2x3x2x3x3xf32> -> tensor<2x2x3x3x3xf32>
// CHECK-NEXT: %[[WR:.*]] = trace.reshape %[[WT]] : tensor<2x2x3x3x3xf32> -> tensor<4x3x3x3xf32>
// CHECK-NEXT: %[[WF:.*]] = trace.reverse %[[WR]] dims = [2, 3] : tensor<4x3x3x3xf32>
// CHECK-NEXT: %[[DX:.*]] = trace.convolution %[[G]], %[[WF]] strides = [1, 1] padding = [1, 2, 1, 2] lhs_dilation = [2, 2] rhs_dilation = [1, 1] groups = 2 : tensor<2x6x4x4xf32>, tensor<4x3x3x3xf32> -> tensor<2x4x8x8xf32>
// CHECK-NEXT: %[[XG:.*]] = trace.reshape %[[X]] : tensor<2x4x8x8xf32> -> tensor<2x2x2x8x8xf32>
// CHECK-NEXT: %[[XT:.*]] = trace.transpose %[[XG]], perm = [2, 1, 0, 3, 4]
// CHECK-NEXT: %[[XR:.*]] = trace.reshape %[[XT]] : tensor<2x2x2x8x8xf32> -> tensor<2x4x8x8xf32>
// CHECK-NEXT: %[[GT:.*]] = trace.transpose %[[G]], perm = [1, 0, 2, 3] : tensor<2x6x4x4xf32> -> tensor<6x2x4x4xf32>
// CHECK-NEXT: %[[DWT:.*]] = trace.convolution %[[XR]], %[[GT]] strides = [1, 1] padding = [1, 0, 1, 0] lhs_dilation = [1, 1] rhs_dilation = [2, 2] groups = 2 : tensor<2x4x8x8xf32>, tensor<6x2x4x4xf32> -> tensor<2x6x3x3xf32>
// CHECK-NEXT: %[[DW:.*]] = trace.transpose %[[DWT]], perm = [1, 0, 2, 3] : tensor<2x6x3x3xf32> -> tensor<6x2x3x3xf32>
// CHECK-NEXT: return %{{.*}}, %[[DX]], %[[DW]]
func.func @conv(%x: tensor<2x4x8x8xf32>, %w: tensor<6x2x3x3xf32>) -> tensor<2x6x4x4xf32> {
  %r = trace.convolution %x, %w strides = [2, 2] padding = [1, 1, 1, 1] lhs_dilation = [1, 1] rhs_dilation = [1, 1] groups = 2 : tensor<2x4x8x8xf32>, tensor<6x2x3x3xf32> -> tensor<2x6x4x4xf32>
  return %r : tensor<2x6x4x4xf32>
}

// -----

// One group: plain transposes of dims 0 and 1, no regrouping reshapes.
// CHECK-LABEL: func @conv1d_grad
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<2x3x10xf32>, %[[W:[a-z0-9_]+]]: tensor<4x3x5xf32>, %[[G:[a-z0-9_]+]]: tensor<2x4x4xf32>
// CHECK:      trace.forward_end
// CHECK-NEXT: %[[WT:.*]] = trace.transpose %[[W]], perm = [1, 0, 2] : tensor<4x3x5xf32> -> tensor<3x4x5xf32>
// CHECK-NEXT: %[[WF:.*]] = trace.reverse %[[WT]] dims = [2] : tensor<3x4x5xf32>
// CHECK-NEXT: %[[DX:.*]] = trace.convolution %[[G]], %[[WF]] strides = [1] padding = [3, 4] lhs_dilation = [2] rhs_dilation = [1] groups = 1
// CHECK-NEXT: %[[XT:.*]] = trace.transpose %[[X]], perm = [1, 0, 2] : tensor<2x3x10xf32> -> tensor<3x2x10xf32>
// CHECK-NEXT: %[[GT:.*]] = trace.transpose %[[G]], perm = [1, 0, 2] : tensor<2x4x4xf32> -> tensor<4x2x4xf32>
// CHECK-NEXT: %[[DWT:.*]] = trace.convolution %[[XT]], %[[GT]] strides = [1] padding = [1, 0] lhs_dilation = [1] rhs_dilation = [2] groups = 1 : tensor<3x2x10xf32>, tensor<4x2x4xf32> -> tensor<3x4x5xf32>
// CHECK-NEXT: %[[DW:.*]] = trace.transpose %[[DWT]], perm = [1, 0, 2]
// CHECK-NEXT: return %{{.*}}, %[[DX]], %[[DW]]
func.func @conv1d(%x: tensor<2x3x10xf32>, %w: tensor<4x3x5xf32>) -> tensor<2x4x4xf32> {
  %r = trace.convolution %x, %w strides = [2] padding = [1, 1] lhs_dilation = [1] rhs_dilation = [1] groups = 1 : tensor<2x3x10xf32>, tensor<4x3x5xf32> -> tensor<2x4x4xf32>
  return %r : tensor<2x4x4xf32>
}

// -----

// reverse: dx = reverse(g) over the same dims.
// CHECK-LABEL: func @reverse_grad
// CHECK-SAME: %[[G:[a-z0-9_]+]]: tensor<2x3xf32> {trace.name = "cot.result0"}
// CHECK:      trace.forward_end
// CHECK-NEXT: %[[DX:.*]] = trace.reverse %[[G]] dims = [1] : tensor<2x3xf32>
// CHECK-NEXT: return %{{.*}}, %[[DX]]
func.func @reverse(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %r = trace.reverse %x dims = [1] : tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}
