// Shape ops: broadcast_in_dim -> linalg.generic with a broadcasting input
// map, reshape -> tensor.collapse_shape / tensor.expand_shape, transpose ->
// linalg.transpose, slice -> tensor.extract_slice, concatenate ->
// tensor.concat.
// RUN: trace-opt %s --split-input-file --trace-to-linalg | FileCheck %s

// Operand dim k is read at result dim dims[k]; new dims are not read.
// CHECK: #[[ROW:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK: #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @broadcast_new_dim
// CHECK-SAME: (%[[X:.*]]: tensor<8xf32>)
// CHECK: %[[E:.*]] = tensor.empty() : tensor<4x8xf32>
// CHECK: %[[B:.*]] = linalg.generic {indexing_maps = [#[[ROW]], #[[ID]]], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME: ins(%[[X]] : tensor<8xf32>) outs(%[[E]] : tensor<4x8xf32>)
// CHECK-NEXT: ^bb0(%[[IN:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: linalg.yield %[[IN]] : f32
// CHECK: return %[[B]]
func.func @broadcast_new_dim(%x: tensor<8xf32>) -> tensor<4x8xf32> {
  %0 = trace.broadcast_in_dim %x, dims = [1] : tensor<8xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// A size-1 operand dim stretched over a larger result dim is read at 0; a
// size-1 dim kept at size 1 is read at its index.
// CHECK: #[[STRETCH:.*]] = affine_map<(d0, d1) -> (d0, 0)>
// CHECK-LABEL: func.func @broadcast_stretch
// CHECK: linalg.generic {indexing_maps = [#[[STRETCH]], #{{.*}}]
// CHECK-SAME: ins(%{{.*}} : tensor<8x1xf32>) outs(%{{.*}} : tensor<8x32xf32>)
// CHECK: linalg.generic {indexing_maps = [#[[STRETCH]], #{{.*}}]
// CHECK-SAME: ins(%{{.*}} : tensor<1x1xi32>) outs(%{{.*}} : tensor<1x5xi32>)
func.func @broadcast_stretch(%m: tensor<8x1xf32>, %o: tensor<1x1xi32>)
    -> (tensor<8x32xf32>, tensor<1x5xi32>) {
  %0 = trace.broadcast_in_dim %m, dims = [0, 1] : tensor<8x1xf32> -> tensor<8x32xf32>
  %1 = trace.broadcast_in_dim %o, dims = [0, 1] : tensor<1x1xi32> -> tensor<1x5xi32>
  return %0, %1 : tensor<8x32xf32>, tensor<1x5xi32>
}

// -----

// CHECK: #[[SCALAR:.*]] = affine_map<(d0, d1) -> ()>
// CHECK-LABEL: func.func @broadcast_scalar
// CHECK-SAME: (%[[S:.*]]: tensor<f32>, %[[X:.*]]: tensor<8xf32>)
// CHECK: %[[B:.*]] = linalg.generic {indexing_maps = [#[[SCALAR]], #{{.*}}]
// CHECK-SAME: ins(%[[S]] : tensor<f32>) outs(%{{.*}} : tensor<2x3xf32>)
// The identity broadcast is its operand.
// CHECK: return %[[B]], %[[X]]
func.func @broadcast_scalar(%s: tensor<f32>, %x: tensor<8xf32>) -> (tensor<2x3xf32>, tensor<8xf32>) {
  %0 = trace.broadcast_in_dim %s, dims = [] : tensor<f32> -> tensor<2x3xf32>
  %1 = trace.broadcast_in_dim %x, dims = [0] : tensor<8xf32> -> tensor<8xf32>
  return %0, %1 : tensor<2x3xf32>, tensor<8xf32>
}

// -----

// CHECK-LABEL: func.func @reshape
// CHECK-SAME: (%[[A:.*]]: tensor<2x3x4xf32>, %[[B:.*]]: tensor<6x4xf32>)
// CHECK: %[[C0:.*]] = tensor.collapse_shape %[[A]] {{\[}}[0, 1], [2]] : tensor<2x3x4xf32> into tensor<6x4xf32>
// CHECK: %[[E1:.*]] = tensor.expand_shape %[[B]] {{\[}}[0, 1], [2]] output_shape [2, 3, 4] : tensor<6x4xf32> into tensor<2x3x4xf32>
// CHECK: %[[C2:.*]] = tensor.collapse_shape %[[A]] {{\[}}[0], [1, 2]] : tensor<2x3x4xf32> into tensor<2x12xf32>
// CHECK: %[[C3:.*]] = tensor.collapse_shape %[[A]] {{\[}}[0, 1, 2]] : tensor<2x3x4xf32> into tensor<24xf32>
// Dims that do not group up go through 1-D.
// CHECK: %[[F:.*]] = tensor.collapse_shape %[[B]] {{\[}}[0, 1]] : tensor<6x4xf32> into tensor<24xf32>
// CHECK: %[[E4:.*]] = tensor.expand_shape %[[F]] {{\[}}[0, 1]] output_shape [4, 6] : tensor<24xf32> into tensor<4x6xf32>
// CHECK: return %[[C0]], %[[E1]], %[[C2]], %[[C3]], %[[E4]], %[[A]]
func.func @reshape(%a: tensor<2x3x4xf32>, %b: tensor<6x4xf32>)
    -> (tensor<6x4xf32>, tensor<2x3x4xf32>, tensor<2x12xf32>, tensor<24xf32>,
        tensor<4x6xf32>, tensor<2x3x4xf32>) {
  %0 = trace.reshape %a : tensor<2x3x4xf32> -> tensor<6x4xf32>
  %1 = trace.reshape %b : tensor<6x4xf32> -> tensor<2x3x4xf32>
  %2 = trace.reshape %a : tensor<2x3x4xf32> -> tensor<2x12xf32>
  %3 = trace.reshape %a : tensor<2x3x4xf32> -> tensor<24xf32>
  %4 = trace.reshape %b : tensor<6x4xf32> -> tensor<4x6xf32>
  %5 = trace.reshape %a : tensor<2x3x4xf32> -> tensor<2x3x4xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<6x4xf32>, tensor<2x3x4xf32>, tensor<2x12xf32>, tensor<24xf32>, tensor<4x6xf32>, tensor<2x3x4xf32>
}

// -----

// To and from rank 0, no dims are grouped.
// CHECK-LABEL: func.func @reshape_rank0
// CHECK-SAME: (%[[S:.*]]: tensor<f32>, %[[O:.*]]: tensor<1x1xf32>)
// CHECK: %[[E:.*]] = tensor.expand_shape %[[S]] [] output_shape [1, 1] : tensor<f32> into tensor<1x1xf32>
// CHECK: %[[C:.*]] = tensor.collapse_shape %[[O]] [] : tensor<1x1xf32> into tensor<f32>
// CHECK: %[[V:.*]] = tensor.expand_shape %[[S]] [] output_shape [1] : tensor<f32> into tensor<1xf32>
// CHECK: return %[[E]], %[[C]], %[[V]]
func.func @reshape_rank0(%s: tensor<f32>, %o: tensor<1x1xf32>)
    -> (tensor<1x1xf32>, tensor<f32>, tensor<1xf32>) {
  %0 = trace.reshape %s : tensor<f32> -> tensor<1x1xf32>
  %1 = trace.reshape %o : tensor<1x1xf32> -> tensor<f32>
  %2 = trace.reshape %s : tensor<f32> -> tensor<1xf32>
  return %0, %1, %2 : tensor<1x1xf32>, tensor<f32>, tensor<1xf32>
}

// -----

// CHECK-LABEL: func.func @transpose
// CHECK-SAME: (%[[A:.*]]: tensor<2x3x4xi64>)
// CHECK: %[[E:.*]] = tensor.empty() : tensor<4x2x3xi64>
// CHECK: %[[T:.*]] = linalg.transpose ins(%[[A]] : tensor<2x3x4xi64>) outs(%[[E]] : tensor<4x2x3xi64>) permutation = [2, 0, 1]
// CHECK: return %[[T]]
func.func @transpose(%a: tensor<2x3x4xi64>) -> tensor<4x2x3xi64> {
  %0 = trace.transpose %a, perm = [2, 0, 1] : tensor<2x3x4xi64> -> tensor<4x2x3xi64>
  return %0 : tensor<4x2x3xi64>
}

// -----

// CHECK-LABEL: func.func @slice
// CHECK-SAME: (%[[A:.*]]: tensor<2x3x8xf32>)
// CHECK: %[[S:.*]] = tensor.extract_slice %[[A]][0, 1, 1] [2, 2, 3] [1, 1, 3] : tensor<2x3x8xf32> to tensor<2x2x3xf32>
// CHECK: return %[[S]]
func.func @slice(%a: tensor<2x3x8xf32>) -> tensor<2x2x3xf32> {
  %0 = trace.slice %a [0:2, 1:3, 1:8:3] : tensor<2x3x8xf32> -> tensor<2x2x3xf32>
  return %0 : tensor<2x2x3xf32>
}

// -----

// An op whose result holds no element is an empty tensor: as an
// extract_slice, x[1:1] of a dim of 1 would have an offset its verifier
// rejects, and so would the inserts of a concatenation of empty tensors.
// CHECK-LABEL: func.func @empty_results
// CHECK-NOT: tensor.extract_slice
// CHECK-NOT: tensor.concat
// CHECK: %[[E:.*]] = tensor.empty() : tensor<0x3xf32>
// CHECK: %[[C:.*]] = tensor.empty() : tensor<7x0xf32>
// CHECK: return %[[E]], %[[C]]
func.func @empty_results(%a: tensor<1x3xf32>, %b: tensor<5x0xf32>, %c: tensor<1x0xf32>) -> (tensor<0x3xf32>, tensor<7x0xf32>) {
  %0 = trace.slice %a [1:1, 0:3] : tensor<1x3xf32> -> tensor<0x3xf32>
  %1 = trace.concatenate %c, %b, %c dim = 0 : (tensor<1x0xf32>, tensor<5x0xf32>, tensor<1x0xf32>) -> tensor<7x0xf32>
  return %0, %1 : tensor<0x3xf32>, tensor<7x0xf32>
}

// -----

// CHECK-LABEL: func.func @concatenate
// CHECK-SAME: (%[[A:.*]]: tensor<2x3x4xf32>, %[[B:.*]]: tensor<2x5x4xf32>)
// CHECK: %[[C:.*]] = tensor.concat dim(1) %[[A]], %[[B]], %[[A]] : (tensor<2x3x4xf32>, tensor<2x5x4xf32>, tensor<2x3x4xf32>) -> tensor<2x11x4xf32>
// One input is the input itself.
// CHECK: return %[[C]], %[[A]]
func.func @concatenate(%a: tensor<2x3x4xf32>, %b: tensor<2x5x4xf32>)
    -> (tensor<2x11x4xf32>, tensor<2x3x4xf32>) {
  %0 = trace.concatenate %a, %b, %a dim = 1 : (tensor<2x3x4xf32>, tensor<2x5x4xf32>, tensor<2x3x4xf32>) -> tensor<2x11x4xf32>
  %1 = trace.concatenate %a dim = 0 : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  return %0, %1 : tensor<2x11x4xf32>, tensor<2x3x4xf32>
}

// -----

// Inputs empty along the dim are dropped (tensor.concat would insert them
// past the end); with one input left, it is the result; an empty result
// is an empty tensor.
// CHECK-LABEL: func.func @concatenate_empty
// CHECK-SAME: (%[[A:.*]]: tensor<2x3xf32>, %[[E:.*]]: tensor<2x0xf32>)
// CHECK: %[[C:.*]] = tensor.concat dim(1) %[[A]], %[[A]] : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x6xf32>
// CHECK: %[[N:.*]] = tensor.empty() : tensor<2x0xf32>
// CHECK: return %[[C]], %[[A]], %[[N]]
func.func @concatenate_empty(%a: tensor<2x3xf32>, %e: tensor<2x0xf32>)
    -> (tensor<2x6xf32>, tensor<2x3xf32>, tensor<2x0xf32>) {
  %0 = trace.concatenate %e, %a, %e, %a, %e dim = 1 : (tensor<2x0xf32>, tensor<2x3xf32>, tensor<2x0xf32>, tensor<2x3xf32>, tensor<2x0xf32>) -> tensor<2x6xf32>
  %1 = trace.concatenate %a, %e dim = 1 : (tensor<2x3xf32>, tensor<2x0xf32>) -> tensor<2x3xf32>
  %2 = trace.concatenate %e, %e dim = 1 : (tensor<2x0xf32>, tensor<2x0xf32>) -> tensor<2x0xf32>
  return %0, %1, %2 : tensor<2x6xf32>, tensor<2x3xf32>, tensor<2x0xf32>
}
