// Reductions -> linalg.reduce into a linalg.fill of the identity (0, -inf,
// INT_MIN), expanded back with keepdim; matmul -> linalg.matmul (rank 2) or
// linalg.batch_matmul (rank 3, and rank > 3 with the batch dims collapsed)
// into a linalg.fill of zero. f16/bf16 sums and matmuls accumulate in f32
// and round once, as PyTorch does.
// RUN: trace-opt %s --split-input-file --trace-to-linalg | FileCheck %s

// Dims in any order; linalg.reduce gets them sorted.
// CHECK-LABEL: func.func @reduce_sum
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>)
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[E:.*]] = tensor.empty() : tensor<3xf32>
// CHECK: %[[INIT:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[E]] : tensor<3xf32>)
// CHECK: %[[R:.*]] = linalg.reduce ins(%[[X]] : tensor<2x3x4xf32>) outs(%[[INIT]] : tensor<3xf32>) dimensions = [0, 2]
// CHECK-NEXT: (%[[IN:.*]]: f32, %[[ACC:.*]]: f32) {
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[IN]], %[[ACC]] : f32
// CHECK-NEXT: linalg.yield %[[S]] : f32
// CHECK: return %[[R]]
func.func @reduce_sum(%x: tensor<2x3x4xf32>) -> tensor<3xf32> {
  %0 = trace.reduce_sum %x dims = [2, 0] : tensor<2x3x4xf32> -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// CHECK-LABEL: func.func @reduce_max_keepdim
// CHECK: %[[NINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK: %[[INIT:.*]] = linalg.fill ins(%[[NINF]] : f32) outs(%{{.*}} : tensor<2xf32>)
// CHECK: %[[R:.*]] = linalg.reduce ins(%{{.*}} : tensor<2x3x4xf32>) outs(%[[INIT]] : tensor<2xf32>) dimensions = [1, 2]
// CHECK: arith.maximumf
// CHECK: %[[K:.*]] = tensor.expand_shape %[[R]] {{\[}}[0, 1, 2]] output_shape [2, 1, 1] : tensor<2xf32> into tensor<2x1x1xf32>
// CHECK: return %[[K]]
func.func @reduce_max_keepdim(%x: tensor<2x3x4xf32>) -> tensor<2x1x1xf32> {
  %0 = trace.reduce_max %x dims = [1, 2] keepdim : tensor<2x3x4xf32> -> tensor<2x1x1xf32>
  return %0 : tensor<2x1x1xf32>
}

// -----

// A leading reduced dim joins the first kept dim.
// CHECK-LABEL: func.func @reduce_max_int
// CHECK: %[[MIN:.*]] = arith.constant -2147483648 : i32
// CHECK: linalg.fill ins(%[[MIN]] : i32) outs(%{{.*}} : tensor<3xi32>)
// CHECK: linalg.reduce
// CHECK: arith.maxsi %{{.*}}, %{{.*}} : i32
// CHECK: tensor.expand_shape %{{.*}} {{\[}}[0, 1]] output_shape [1, 3] : tensor<3xi32> into tensor<1x3xi32>
// CHECK: %[[ZERO:.*]] = arith.constant 0 : i64
// CHECK: linalg.fill ins(%[[ZERO]] : i64) outs(%{{.*}} : tensor<2xi64>)
// CHECK: arith.addi %{{.*}}, %{{.*}} : i64
func.func @reduce_max_int(%i: tensor<2x3xi32>, %j: tensor<2x5xi64>) -> (tensor<1x3xi32>, tensor<2xi64>) {
  %0 = trace.reduce_max %i dims = [0] keepdim : tensor<2x3xi32> -> tensor<1x3xi32>
  %1 = trace.reduce_sum %j dims = [1] : tensor<2x5xi64> -> tensor<2xi64>
  return %0, %1 : tensor<1x3xi32>, tensor<2xi64>
}

// -----

// Reducing every dim gives rank 0; keepdim expands it with no groups. No
// dims is the operand itself.
// CHECK-LABEL: func.func @reduce_all
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf64>)
// CHECK: %[[R:.*]] = linalg.reduce ins(%[[X]] : tensor<2x3xf64>) outs(%{{.*}} : tensor<f64>) dimensions = [0, 1]
// CHECK: %[[K:.*]] = tensor.expand_shape %[[R]] [] output_shape [1, 1] : tensor<f64> into tensor<1x1xf64>
// CHECK: %[[M:.*]] = linalg.reduce ins(%[[X]] : tensor<2x3xf64>) outs(%{{.*}} : tensor<f64>) dimensions = [0, 1]
// CHECK: return %[[K]], %[[M]], %[[X]]
func.func @reduce_all(%x: tensor<2x3xf64>) -> (tensor<1x1xf64>, tensor<f64>, tensor<2x3xf64>) {
  %0 = trace.reduce_sum %x dims = [0, 1] keepdim : tensor<2x3xf64> -> tensor<1x1xf64>
  %1 = trace.reduce_max %x dims = [1, 0] : tensor<2x3xf64> -> tensor<f64>
  %2 = trace.reduce_sum %x dims = [] : tensor<2x3xf64> -> tensor<2x3xf64>
  return %0, %1, %2 : tensor<1x1xf64>, tensor<f64>, tensor<2x3xf64>
}

// -----

// CHECK-LABEL: func.func @matmul
// CHECK-SAME: (%[[A:.*]]: tensor<4x8xf64>, %[[B:.*]]: tensor<8x2xf64>)
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f64
// CHECK: %[[E:.*]] = tensor.empty() : tensor<4x2xf64>
// CHECK: %[[INIT:.*]] = linalg.fill ins(%[[ZERO]] : f64) outs(%[[E]] : tensor<4x2xf64>)
// CHECK: %[[M:.*]] = linalg.matmul ins(%[[A]], %[[B]] : tensor<4x8xf64>, tensor<8x2xf64>) outs(%[[INIT]] : tensor<4x2xf64>) -> tensor<4x2xf64>
// CHECK: return %[[M]]
func.func @matmul(%a: tensor<4x8xf64>, %b: tensor<8x2xf64>) -> tensor<4x2xf64> {
  %0 = trace.matmul %a, %b : tensor<4x8xf64>, tensor<8x2xf64> -> tensor<4x2xf64>
  return %0 : tensor<4x2xf64>
}

// -----

// CHECK-LABEL: func.func @matmul_bf16
// CHECK-SAME: (%[[A:.*]]: tensor<4x8xbf16>, %[[B:.*]]: tensor<8x2xbf16>)
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[INIT:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%{{.*}} : tensor<4x2xf32>)
// CHECK: %[[M:.*]] = linalg.matmul ins(%[[A]], %[[B]] : tensor<4x8xbf16>, tensor<8x2xbf16>) outs(%[[INIT]] : tensor<4x2xf32>) -> tensor<4x2xf32>
// CHECK: %[[R:.*]] = linalg.generic
// CHECK-SAME: ins(%[[M]] : tensor<4x2xf32>) outs(%{{.*}} : tensor<4x2xbf16>)
// CHECK: arith.truncf %{{.*}} : f32 to bf16
// CHECK: return %[[R]]
func.func @matmul_bf16(%a: tensor<4x8xbf16>, %b: tensor<8x2xbf16>) -> tensor<4x2xbf16> {
  %0 = trace.matmul %a, %b : tensor<4x8xbf16>, tensor<8x2xbf16> -> tensor<4x2xbf16>
  return %0 : tensor<4x2xbf16>
}

// -----

// CHECK-LABEL: func.func @reduce_sum_f16
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[INIT:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%{{.*}} : tensor<2xf32>)
// CHECK: %[[R:.*]] = linalg.reduce ins(%{{.*}} : tensor<2x3xf16>) outs(%[[INIT]] : tensor<2xf32>) dimensions = [1]
// CHECK-NEXT: (%[[IN:.*]]: f16, %[[ACC:.*]]: f32) {
// CHECK-NEXT: %[[W:.*]] = arith.extf %[[IN]] : f16 to f32
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[W]], %[[ACC]] : f32
// CHECK-NEXT: linalg.yield %[[S]] : f32
// CHECK: %[[N:.*]] = linalg.generic
// CHECK-SAME: ins(%[[R]] : tensor<2xf32>) outs(%{{.*}} : tensor<2xf16>)
// CHECK: arith.truncf %{{.*}} : f32 to f16
// CHECK: %[[K:.*]] = tensor.expand_shape %[[N]] {{\[}}[0, 1]] output_shape [2, 1] : tensor<2xf16> into tensor<2x1xf16>
// A maximum is exact in f16: no widening.
// CHECK: %[[NINF:.*]] = arith.constant 0xFC00 : f16
// CHECK: linalg.fill ins(%[[NINF]] : f16)
// CHECK: arith.maximumf %{{.*}}, %{{.*}} : f16
// CHECK: return %[[K]]
func.func @reduce_sum_f16(%x: tensor<2x3xf16>) -> (tensor<2x1xf16>, tensor<3xf16>) {
  %0 = trace.reduce_sum %x dims = [1] keepdim : tensor<2x3xf16> -> tensor<2x1xf16>
  %1 = trace.reduce_max %x dims = [0] : tensor<2x3xf16> -> tensor<3xf16>
  return %0, %1 : tensor<2x1xf16>, tensor<3xf16>
}

// -----

// CHECK-LABEL: func.func @batch_matmul
// CHECK-SAME: (%[[A:.*]]: tensor<3x4x8xi64>, %[[B:.*]]: tensor<3x8x5xi64>)
// CHECK: %[[ZERO:.*]] = arith.constant 0 : i64
// CHECK: %[[INIT:.*]] = linalg.fill ins(%[[ZERO]] : i64) outs(%{{.*}} : tensor<3x4x5xi64>)
// CHECK: %[[M:.*]] = linalg.batch_matmul ins(%[[A]], %[[B]] : tensor<3x4x8xi64>, tensor<3x8x5xi64>) outs(%[[INIT]] : tensor<3x4x5xi64>)
// CHECK: return %[[M]]
func.func @batch_matmul(%a: tensor<3x4x8xi64>, %b: tensor<3x8x5xi64>) -> tensor<3x4x5xi64> {
  %0 = trace.matmul %a, %b : tensor<3x4x8xi64>, tensor<3x8x5xi64> -> tensor<3x4x5xi64>
  return %0 : tensor<3x4x5xi64>
}

// -----

// CHECK-LABEL: func.func @matmul_rank5
// CHECK-SAME: (%[[A:.*]]: tensor<2x3x2x4x8xf32>, %[[B:.*]]: tensor<2x3x2x8x5xf32>)
// CHECK: %[[CA:.*]] = tensor.collapse_shape %[[A]] {{\[}}[0, 1, 2], [3], [4]] : tensor<2x3x2x4x8xf32> into tensor<12x4x8xf32>
// CHECK: %[[CB:.*]] = tensor.collapse_shape %[[B]] {{\[}}[0, 1, 2], [3], [4]] : tensor<2x3x2x8x5xf32> into tensor<12x8x5xf32>
// CHECK: %[[INIT:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<12x4x5xf32>)
// CHECK: %[[M:.*]] = linalg.batch_matmul ins(%[[CA]], %[[CB]] : tensor<12x4x8xf32>, tensor<12x8x5xf32>) outs(%[[INIT]] : tensor<12x4x5xf32>)
// CHECK: %[[R:.*]] = tensor.expand_shape %[[M]] {{\[}}[0, 1, 2], [3], [4]] output_shape [2, 3, 2, 4, 5] : tensor<12x4x5xf32> into tensor<2x3x2x4x5xf32>
// CHECK: return %[[R]]
func.func @matmul_rank5(%a: tensor<2x3x2x4x8xf32>, %b: tensor<2x3x2x8x5xf32>) -> tensor<2x3x2x4x5xf32> {
  %0 = trace.matmul %a, %b : tensor<2x3x2x4x8xf32>, tensor<2x3x2x8x5xf32> -> tensor<2x3x2x4x5xf32>
  return %0 : tensor<2x3x2x4x5xf32>
}
