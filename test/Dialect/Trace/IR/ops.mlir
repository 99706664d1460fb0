// Round trip of every trace op, in the custom form and through the generic
// form: what is printed parses back to the same IR.
// RUN: trace-opt %s | trace-opt | FileCheck %s
// RUN: trace-opt %s --mlir-print-op-generic | trace-opt | FileCheck %s

// CHECK-LABEL: func @unary
func.func @unary(%x: tensor<2x3xf32>, %i: tensor<4xi32>, %h: tensor<2xbf16>) {
  // CHECK: trace.neg %{{.*}} : tensor<2x3xf32>
  %0 = trace.neg %x : tensor<2x3xf32>
  // CHECK: trace.neg %{{.*}} : tensor<4xi32>
  %1 = trace.neg %i : tensor<4xi32>
  // CHECK: trace.abs %{{.*}} : tensor<4xi32>
  %2 = trace.abs %i : tensor<4xi32>
  // CHECK: trace.exp %{{.*}} : tensor<2x3xf32>
  %3 = trace.exp %x : tensor<2x3xf32>
  // CHECK: trace.log %{{.*}} : tensor<2x3xf32>
  %4 = trace.log %x : tensor<2x3xf32>
  // CHECK: trace.sin %{{.*}} : tensor<2x3xf32>
  %5 = trace.sin %x : tensor<2x3xf32>
  // CHECK: trace.cos %{{.*}} : tensor<2x3xf32>
  %6 = trace.cos %x : tensor<2x3xf32>
  // CHECK: trace.tanh %{{.*}} : tensor<2xbf16>
  %7 = trace.tanh %h : tensor<2xbf16>
  // CHECK: trace.sqrt %{{.*}} : tensor<2x3xf32>
  %8 = trace.sqrt %x : tensor<2x3xf32>
  // CHECK: trace.rsqrt %{{.*}} : tensor<2x3xf32>
  %9 = trace.rsqrt %x : tensor<2x3xf32>
  // CHECK: trace.erf %{{.*}} : tensor<2x3xf32>
  %10 = trace.erf %x : tensor<2x3xf32>
  // CHECK: trace.logistic %{{.*}} : tensor<2x3xf32>
  %11 = trace.logistic %x : tensor<2x3xf32>
  // CHECK: trace.abs %{{.*}} : tensor<2x3xf32>
  %12 = trace.abs %x : tensor<2x3xf32>
  return
}

// CHECK-LABEL: func @binary
// CHECK-SAME: (%[[A:.*]]: tensor<4xf16>, %[[B:.*]]: tensor<4xf16>, %[[I:.*]]: tensor<3xi64>)
func.func @binary(%a: tensor<4xf16>, %b: tensor<4xf16>, %i: tensor<3xi64>) {
  // CHECK: trace.add %[[A]], %[[B]] : tensor<4xf16>
  %0 = trace.add %a, %b : tensor<4xf16>
  // CHECK: trace.sub %[[A]], %[[B]] : tensor<4xf16>
  %1 = trace.sub %a, %b : tensor<4xf16>
  // CHECK: trace.mul %[[A]], %[[B]] : tensor<4xf16>
  %2 = trace.mul %a, %b : tensor<4xf16>
  // CHECK: trace.div %[[A]], %[[B]] : tensor<4xf16>
  %3 = trace.div %a, %b : tensor<4xf16>
  // CHECK: trace.pow %[[A]], %[[B]] : tensor<4xf16>
  %4 = trace.pow %a, %b : tensor<4xf16>
  // CHECK: trace.maximum %[[A]], %[[B]] : tensor<4xf16>
  %5 = trace.maximum %a, %b : tensor<4xf16>
  // CHECK: trace.minimum %[[A]], %[[B]] : tensor<4xf16>
  %6 = trace.minimum %a, %b : tensor<4xf16>
  // CHECK: trace.div %[[I]], %[[I]] : tensor<3xi64>
  %7 = trace.div %i, %i : tensor<3xi64>
  return
}

// CHECK-LABEL: func @compare_select_convert
func.func @compare_select_convert(%a: tensor<2x2xf32>, %b: tensor<2x2xf32>, %i: tensor<2x2xi32>) -> tensor<2x2xf32> {
  // CHECK: %[[EQ:.*]] = trace.compare eq, %{{.*}}, %{{.*}} : tensor<2x2xf32>
  %eq = trace.compare eq, %a, %b : tensor<2x2xf32>
  // CHECK: trace.compare ne, %{{.*}}, %{{.*}} : tensor<2x2xf32>
  %ne = trace.compare ne, %a, %b : tensor<2x2xf32>
  // CHECK: trace.compare lt, %{{.*}}, %{{.*}} : tensor<2x2xi32>
  %lt = trace.compare lt, %i, %i : tensor<2x2xi32>
  // CHECK: trace.compare le, %{{.*}}, %{{.*}} : tensor<2x2xf32>
  %le = trace.compare le, %a, %b : tensor<2x2xf32>
  // CHECK: trace.compare gt, %{{.*}}, %{{.*}} : tensor<2x2xf32>
  %gt = trace.compare gt, %a, %b : tensor<2x2xf32>
  // CHECK: trace.compare ge, %{{.*}}, %{{.*}} : tensor<2x2xi1>
  %ge = trace.compare ge, %eq, %ne : tensor<2x2xi1>
  // CHECK: %[[S:.*]] = trace.select %[[EQ]], %{{.*}}, %{{.*}} : tensor<2x2xi1>, tensor<2x2xf32>
  %s = trace.select %eq, %a, %b : tensor<2x2xi1>, tensor<2x2xf32>
  // CHECK: trace.convert %[[S]] : tensor<2x2xf32> -> tensor<2x2xbf16>
  %c = trace.convert %s : tensor<2x2xf32> -> tensor<2x2xbf16>
  // CHECK: trace.convert %{{.*}} : tensor<2x2xi1> -> tensor<2x2xf32>
  %m = trace.convert %lt : tensor<2x2xi1> -> tensor<2x2xf32>
  return %m : tensor<2x2xf32>
}

// CHECK-LABEL: func @sources
func.func @sources(%seed: tensor<i64>) {
  // CHECK: trace.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
  %0 = trace.constant dense<[1.0, 2.0]> : tensor<2xf32>
  // CHECK: trace.constant dense<7> : tensor<2x2xi64>
  %1 = trace.constant dense<7> : tensor<2x2xi64>
  // CHECK: trace.full 0.000000e+00 : tensor<4x8xf32>
  %2 = trace.full 0.0 : tensor<4x8xf32>
  // CHECK: trace.full -2.500000e+00 : tensor<3xbf16>
  %3 = trace.full -2.5 : tensor<3xbf16>
  // CHECK: trace.full 0xFF800000 : tensor<3xf32>
  %4 = trace.full 0xFF800000 : tensor<3xf32>
  // CHECK: trace.full -9223372036854775808 : tensor<2xi64>
  %5 = trace.full -9223372036854775808 : tensor<2xi64>
  // CHECK: trace.full -3 : tensor<2xi32>
  %n3 = trace.full -3 : tensor<2xi32>
  // Hex integers are read as numbers.
  // CHECK: trace.full 127 : tensor<2xi32>
  %h = trace.full 0x7F : tensor<2xi32>
  // CHECK: trace.full true : tensor<4x4xi1>
  %6 = trace.full true : tensor<4x4xi1>
  // CHECK: trace.full 0x7E00 : tensor<2xf16>
  %7 = trace.full 0x7E00 : tensor<2xf16>
  // CHECK: trace.iota dim = 1 : tensor<4x8xi64>
  %8 = trace.iota dim = 1 : tensor<4x8xi64>
  // CHECK: trace.iota dim = 0 : tensor<5xf32>
  %9 = trace.iota dim = 0 : tensor<5xf32>
  // CHECK: trace.random_uniform %{{.*}}, offset = 12 : tensor<4x8xf32>
  %10 = trace.random_uniform %seed, offset = 12 : tensor<4x8xf32>
  // CHECK: trace.random_uniform %{{.*}}, offset = 0 : tensor<16xbf16>
  %11 = trace.random_uniform %seed, offset = 0 : tensor<16xbf16>
  return
}

// CHECK-LABEL: func @shapes
func.func @shapes(%x: tensor<8xf32>, %m: tensor<2x3x4xf32>, %s: tensor<f32>) {
  // CHECK: trace.broadcast_in_dim %{{.*}}, dims = [1] : tensor<8xf32> -> tensor<4x8xf32>
  %0 = trace.broadcast_in_dim %x, dims = [1] : tensor<8xf32> -> tensor<4x8xf32>
  // CHECK: trace.broadcast_in_dim %{{.*}}, dims = [] : tensor<f32> -> tensor<2x2xf32>
  %1 = trace.broadcast_in_dim %s, dims = [] : tensor<f32> -> tensor<2x2xf32>
  // CHECK: trace.reshape %{{.*}} : tensor<2x3x4xf32> -> tensor<6x4xf32>
  %2 = trace.reshape %m : tensor<2x3x4xf32> -> tensor<6x4xf32>
  // CHECK: trace.transpose %{{.*}}, perm = [2, 0, 1] : tensor<2x3x4xf32> -> tensor<4x2x3xf32>
  %3 = trace.transpose %m, perm = [2, 0, 1] : tensor<2x3x4xf32> -> tensor<4x2x3xf32>
  // CHECK: trace.slice %{{.*}} [0:2, 1:3, 0:4:2] : tensor<2x3x4xf32> -> tensor<2x2x2xf32>
  %4 = trace.slice %m [0:2, 1:3, 0:4:2] : tensor<2x3x4xf32> -> tensor<2x2x2xf32>
  // CHECK: trace.concatenate %{{.*}}, %{{.*}} dim = 1 : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x6x4xf32>
  %5 = trace.concatenate %m, %m dim = 1 : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x6x4xf32>
  return
}

// CHECK-LABEL: func @reductions_and_matmul
func.func @reductions_and_matmul(%x: tensor<2x3x4xf32>, %w: tensor<2x4x5xf32>) {
  // CHECK: trace.reduce_sum %{{.*}} dims = [0, 2] : tensor<2x3x4xf32> -> tensor<3xf32>
  %0 = trace.reduce_sum %x dims = [0, 2] : tensor<2x3x4xf32> -> tensor<3xf32>
  // CHECK: trace.reduce_sum %{{.*}} dims = [2] keepdim : tensor<2x3x4xf32> -> tensor<2x3x1xf32>
  %1 = trace.reduce_sum %x dims = [2] keepdim : tensor<2x3x4xf32> -> tensor<2x3x1xf32>
  // CHECK: trace.reduce_max %{{.*}} dims = [1, 0] : tensor<2x3x4xf32> -> tensor<4xf32>
  %2 = trace.reduce_max %x dims = [1, 0] : tensor<2x3x4xf32> -> tensor<4xf32>
  // CHECK: trace.matmul %{{.*}}, %{{.*}} : tensor<2x3x4xf32>, tensor<2x4x5xf32> -> tensor<2x3x5xf32>
  %3 = trace.matmul %x, %w : tensor<2x3x4xf32>, tensor<2x4x5xf32> -> tensor<2x3x5xf32>
  return
}

// Results of an op with `trace.name` print under that name.
// CHECK-LABEL: func @named_values
func.func @named_values(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: %blocks.0.fc1 = trace.exp %{{.*}} {trace.name = "blocks.0.fc1"} : tensor<4xf32>
  %0 = trace.exp %x {trace.name = "blocks.0.fc1"} : tensor<4xf32>
  // CHECK: return %blocks.0.fc1
  return %0 : tensor<4xf32>
}

// CHECK-LABEL: func @fusion
func.func @fusion(%a: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: trace.fusion "fused_0" ins(%[[X:.*]] = %{{.*}} : tensor<4xf32>) -> tensor<4xf32> {
  // CHECK-NEXT: %[[T:.*]] = trace.tanh %[[X]] : tensor<4xf32>
  // CHECK-NEXT: trace.yield %[[T]] : tensor<4xf32>
  // CHECK-NEXT: }
  %0 = trace.fusion "fused_0" ins(%x = %a : tensor<4xf32>) -> tensor<4xf32> {
    %t = trace.tanh %x : tensor<4xf32>
    trace.yield %t : tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}

// CHECK-LABEL: func @convolution
func.func @convolution(%x: tensor<2x4x7x7xf32>, %w: tensor<6x2x3x3xf32>,
                       %x1: tensor<2x3x10xbf16>, %w1: tensor<4x3x5xbf16>) {
  // CHECK: trace.convolution %{{.*}}, %{{.*}} strides = [2, 2] padding = [1, 1, -1, 0] lhs_dilation = [1, 2] rhs_dilation = [2, 1] groups = 2 : tensor<2x4x7x7xf32>, tensor<6x2x3x3xf32> -> tensor<2x6x3x5xf32>
  %0 = trace.convolution %x, %w strides = [2, 2] padding = [1, 1, -1, 0]
         lhs_dilation = [1, 2] rhs_dilation = [2, 1] groups = 2
       : tensor<2x4x7x7xf32>, tensor<6x2x3x3xf32> -> tensor<2x6x3x5xf32>
  // CHECK: trace.convolution {{.*}} : tensor<2x3x10xbf16>, tensor<4x3x5xbf16> -> tensor<2x4x4xbf16>
  %1 = trace.convolution %x1, %w1 strides = [2] padding = [1, 1] lhs_dilation = [1]
         rhs_dilation = [1] groups = 1
       : tensor<2x3x10xbf16>, tensor<4x3x5xbf16> -> tensor<2x4x4xbf16>
  // CHECK: trace.reverse %{{.*}} dims = [3, 2] : tensor<6x2x3x3xf32>
  %2 = trace.reverse %w dims = [3, 2] : tensor<6x2x3x3xf32>
  return
}

// CHECK-LABEL: func @indexing
func.func @indexing(%w: tensor<10x4xf32>, %i: tensor<3x4xi64>, %j: tensor<3x2xi32>,
                    %u: tensor<3x2xf32>) {
  // CHECK: trace.gather %{{.*}}[%{{.*}}] dim = 0 : tensor<10x4xf32>, tensor<3x4xi64> -> tensor<3x4xf32>
  %0 = trace.gather %w[%i] dim = 0 : tensor<10x4xf32>, tensor<3x4xi64> -> tensor<3x4xf32>
  // CHECK: trace.scatter_add %{{.*}} into %{{.*}}[%{{.*}}] dim = 0 : tensor<3x2xf32>, tensor<3x2xi32> -> tensor<10x4xf32>
  %1 = trace.scatter_add %u into %w[%j] dim = 0 : tensor<3x2xf32>, tensor<3x2xi32> -> tensor<10x4xf32>
  // CHECK: trace.stop_gradient %{{.*}} : tensor<10x4xf32>
  %2 = trace.stop_gradient %1 : tensor<10x4xf32>
  return
}

// CHECK-LABEL: func @more_unary
func.func @more_unary(%x: tensor<2x3xf32>, %h: tensor<4xbf16>) {
  // CHECK: trace.log1p %{{.*}} : tensor<2x3xf32>
  %0 = trace.log1p %x : tensor<2x3xf32>
  // CHECK: trace.expm1 %{{.*}} : tensor<4xbf16>
  %1 = trace.expm1 %h : tensor<4xbf16>
  // CHECK: trace.floor %{{.*}} : tensor<2x3xf32>
  %2 = trace.floor %x : tensor<2x3xf32>
  // CHECK: trace.ceil %{{.*}} : tensor<2x3xf32>
  %3 = trace.ceil %x : tensor<2x3xf32>
  // CHECK: trace.round %{{.*}} : tensor<4xbf16>
  %4 = trace.round %h : tensor<4xbf16>
  return
}

// The split trace-autodiff records: #trace.derivatives on the function it
// differentiated, trace.forward_end where the joint function's forward ends.
// CHECK-LABEL: func @split
// CHECK-SAME: attributes {trace.derivatives = #trace.derivatives<grad = @split_grad, fwd = @split_fwd, bwd = @split_bwd>}
func.func @split(%a: tensor<4xf32>) -> tensor<4xf32> attributes {
    trace.derivatives = #trace.derivatives<grad = @split_grad, fwd = @split_fwd, bwd = @split_bwd>} {
  return %a : tensor<4xf32>
}
// CHECK-LABEL: func @split_grad
// CHECK-NEXT: %[[T:.*]] = trace.tanh
// CHECK-NEXT: trace.forward_end
// CHECK-NEXT: %[[N:.*]] = trace.neg
func.func @split_grad(%a: tensor<4xf32>, %g: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %t = trace.tanh %a : tensor<4xf32>
  trace.forward_end
  %n = trace.neg %g : tensor<4xf32>
  return %t, %n : tensor<4xf32>, tensor<4xf32>
}
func.func @split_fwd(%a: tensor<4xf32>) -> tensor<4xf32> {
  return %a : tensor<4xf32>
}
func.func @split_bwd(%g: tensor<4xf32>) -> tensor<4xf32> {
  return %g : tensor<4xf32>
}
