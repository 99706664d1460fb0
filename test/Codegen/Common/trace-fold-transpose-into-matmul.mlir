// A transpose feeding a matmul operand becomes the matmul's indexing map.
// RUN: trace-opt %s -trace-fold-transpose-into-matmul -canonicalize -split-input-file | FileCheck %s

// CHECK-DAG: #[[A:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[BT:.*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-DAG: #[[C:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func @linear
// CHECK-SAME: (%[[X:.*]]: tensor<8x16xf32>, %[[W:.*]]: tensor<32x16xf32>
// CHECK-NOT: linalg.transpose
// CHECK: linalg.matmul indexing_maps = [#[[A]], #[[BT]], #[[C]]] ins(%[[X]], %[[W]] : tensor<8x16xf32>, tensor<32x16xf32>)
func.func @linear(%x: tensor<8x16xf32>, %w: tensor<32x16xf32>, %acc: tensor<8x32xf32>) -> tensor<8x32xf32> {
  %e = tensor.empty() : tensor<16x32xf32>
  %wt = linalg.transpose ins(%w : tensor<32x16xf32>) outs(%e : tensor<16x32xf32>) permutation = [1, 0]
  %m = linalg.matmul ins(%x, %wt : tensor<8x16xf32>, tensor<16x32xf32>) outs(%acc : tensor<8x32xf32>) -> tensor<8x32xf32>
  return %m : tensor<8x32xf32>
}

// -----

// Both operands of a batched matmul (q @ k^T has only the right one).
// CHECK-DAG: #[[AT:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d3, d1)>
// CHECK-DAG: #[[BT:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>
// CHECK-LABEL: func @batch_both
// CHECK-NOT: linalg.transpose
// CHECK: linalg.batch_matmul indexing_maps = [#[[AT]], #[[BT]], #{{.*}}]
func.func @batch_both(%a: tensor<4x16x8xf32>, %b: tensor<4x6x16xf32>, %acc: tensor<4x8x6xf32>) -> tensor<4x8x6xf32> {
  %ea = tensor.empty() : tensor<4x8x16xf32>
  %at = linalg.transpose ins(%a : tensor<4x16x8xf32>) outs(%ea : tensor<4x8x16xf32>) permutation = [0, 2, 1]
  %eb = tensor.empty() : tensor<4x16x6xf32>
  %bt = linalg.transpose ins(%b : tensor<4x6x16xf32>) outs(%eb : tensor<4x16x6xf32>) permutation = [0, 2, 1]
  %m = linalg.batch_matmul ins(%at, %bt : tensor<4x8x16xf32>, tensor<4x16x6xf32>) outs(%acc : tensor<4x8x6xf32>) -> tensor<4x8x6xf32>
  return %m : tensor<4x8x6xf32>
}

// -----

// A transpose that moves the batch dim is not a matmul transpose: kept.
// CHECK-LABEL: func @batch_dim_moved
// CHECK: linalg.transpose
// CHECK: linalg.batch_matmul ins(
func.func @batch_dim_moved(%a: tensor<8x4x16xf32>, %b: tensor<4x16x6xf32>, %acc: tensor<4x8x6xf32>) -> tensor<4x8x6xf32> {
  %ea = tensor.empty() : tensor<4x8x16xf32>
  %at = linalg.transpose ins(%a : tensor<8x4x16xf32>) outs(%ea : tensor<4x8x16xf32>) permutation = [1, 0, 2]
  %m = linalg.batch_matmul ins(%at, %b : tensor<4x8x16xf32>, tensor<4x16x6xf32>) outs(%acc : tensor<4x8x6xf32>) -> tensor<4x8x6xf32>
  return %m : tensor<4x8x6xf32>
}

// -----

// A 4-D attention operand: [B, H, T, T] transposed in its last two dims,
// then its batch dims merged for batch_matmul. The merge moves onto the
// transpose's input and the transpose into the map.
// CHECK-DAG: #[[PT:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d3, d1)>
// CHECK-LABEL: func @batch_merged
// CHECK-SAME: %[[P:[^:]*]]: tensor<2x3x8x8xf32>
// CHECK-NOT: linalg.transpose
// CHECK: %[[M:.*]] = tensor.collapse_shape %[[P]] {{\[\[}}0, 1], [2], [3]] : tensor<2x3x8x8xf32> into tensor<6x8x8xf32>
// CHECK: linalg.batch_matmul indexing_maps = [#[[PT]], #{{.*}}, #{{.*}}] ins(%[[M]],
func.func @batch_merged(%p: tensor<2x3x8x8xf32>, %g: tensor<6x8x4xf32>, %acc: tensor<6x8x4xf32>) -> tensor<6x8x4xf32> {
  %e = tensor.empty() : tensor<2x3x8x8xf32>
  %pt = linalg.transpose ins(%p : tensor<2x3x8x8xf32>) outs(%e : tensor<2x3x8x8xf32>) permutation = [0, 1, 3, 2]
  %c = tensor.collapse_shape %pt [[0, 1], [2], [3]] : tensor<2x3x8x8xf32> into tensor<6x8x8xf32>
  %m = linalg.batch_matmul ins(%c, %g : tensor<6x8x8xf32>, tensor<6x8x4xf32>) outs(%acc : tensor<6x8x4xf32>) -> tensor<6x8x4xf32>
  return %m : tensor<6x8x4xf32>
}

// -----

// A merge that reaches into the swapped dims is not a batch merge: kept.
// CHECK-LABEL: func @merge_into_matrix
// CHECK: linalg.transpose
// CHECK: tensor.collapse_shape
func.func @merge_into_matrix(%p: tensor<2x3x8x8xf32>, %g: tensor<2x8x4xf32>, %acc: tensor<2x24x4xf32>) -> tensor<2x24x4xf32> {
  %e = tensor.empty() : tensor<2x3x8x8xf32>
  %pt = linalg.transpose ins(%p : tensor<2x3x8x8xf32>) outs(%e : tensor<2x3x8x8xf32>) permutation = [0, 1, 3, 2]
  %c = tensor.collapse_shape %pt [[0], [1, 2], [3]] : tensor<2x3x8x8xf32> into tensor<2x24x8xf32>
  %m = linalg.batch_matmul ins(%c, %g : tensor<2x24x8xf32>, tensor<2x8x4xf32>) outs(%acc : tensor<2x24x4xf32>) -> tensor<2x24x4xf32>
  return %m : tensor<2x24x4xf32>
}
