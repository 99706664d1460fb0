// trace-autodiff adds @f_grad: f's arguments plus a cotangent per float
// result, returning f's results plus a gradient per float argument. Regions
// are inlined, cotangents of reused values are summed, unreached arguments
// get zeros, names carry through.
// RUN: trace-opt %s -trace-autodiff -split-input-file -verify-diagnostics --allow-unregistered-dialect | FileCheck %s

// CHECK-LABEL: func.func @forward(
// CHECK: trace.checkpoint
// CHECK-LABEL: func.func @forward_grad(
// CHECK-SAME: %[[X:[^:]*]]: tensor<4x8xf32> {trace.name = "x"}, %[[W:[^:]*]]: tensor<8x3xf32> {trace.name = "fc.weight"}, %{{[^:]*}}: tensor<3xf32> {trace.name = "unused"}, %{{[^:]*}}: tensor<i64>, %[[COT:[^:]*]]: tensor<4x3xf32> {trace.name = "cot.out"})
// CHECK-SAME: -> (tensor<4x3xf32> {trace.name = "out"}, tensor<4x8xf32> {trace.name = "grad.x"}, tensor<8x3xf32> {trace.name = "grad.fc.weight"}, tensor<3xf32> {trace.name = "grad.unused"})
// CHECK-NOT: trace.checkpoint
// CHECK: %[[M:.*]] = trace.matmul %[[X]], %[[W]]
// CHECK: %[[T:.*]] = trace.tanh %[[M]]
// CHECK: %[[Y:.*]] = trace.mul %[[T]], %[[T]]
// t is used twice by the mul: its two cotangents are summed.
// CHECK: %[[G1:.*]] = trace.mul %[[COT]], %[[T]]
// CHECK: %[[G2:.*]] = trace.mul %[[COT]], %[[T]]
// CHECK: %[[GT:.*]] = trace.add %[[G1]], %[[G2]]
// CHECK: %[[GM:.*]] = trace.mul %[[GT]], %{{.*}}
// CHECK: %[[DX:.*]] = trace.matmul %[[GM]], %{{.*}} : tensor<4x3xf32>, tensor<3x8xf32> -> tensor<4x8xf32>
// CHECK: %[[DW:.*]] = trace.matmul %{{.*}}, %[[GM]] : tensor<8x4xf32>, tensor<4x3xf32> -> tensor<8x3xf32>
// CHECK: %[[ZERO:.*]] = trace.full 0.000000e+00 : tensor<3xf32>
// CHECK: return %[[Y]], %[[DX]], %[[DW]], %[[ZERO]]
func.func @forward(%x: tensor<4x8xf32> {trace.name = "x"}, %w: tensor<8x3xf32> {trace.name = "fc.weight"},
                   %unused: tensor<3xf32> {trace.name = "unused"}, %seed: tensor<i64>)
    -> (tensor<4x3xf32> {trace.name = "out"}) {
  %r = trace.checkpoint "blk" ins(%a = %x : tensor<4x8xf32>, %b = %w : tensor<8x3xf32>) -> tensor<4x3xf32> {
    %m = trace.matmul %a, %b : tensor<4x8xf32>, tensor<8x3xf32> -> tensor<4x3xf32>
    %t = trace.tanh %m : tensor<4x3xf32>
    %s = trace.mul %t, %t : tensor<4x3xf32>
    trace.yield %s : tensor<4x3xf32>
  }
  return %r : tensor<4x3xf32>
}

// -----

// Non-float results get no cotangent; non-differentiable ops (compare,
// random numbers) stop the gradient without error; unnamed slots are
// named like trace-run names them.
// CHECK-LABEL: func.func @mixed_grad(
// CHECK-SAME: %{{[^:]*}}: tensor<4xf32>, %{{[^:]*}}: tensor<i64>, %[[C:[^:]*]]: tensor<4xf32> {trace.name = "cot.result0"})
// CHECK-SAME: -> (tensor<4xf32>, tensor<4xi1>, tensor<4xf32> {trace.name = "grad.arg0"})
func.func @mixed(%x: tensor<4xf32>, %seed: tensor<i64>) -> (tensor<4xf32>, tensor<4xi1>) {
  %u = trace.random_uniform %seed, offset = 0 : tensor<4xf32>
  %keep = trace.compare lt, %u, %x : tensor<4xf32>
  %y = trace.mul %x, %u : tensor<4xf32>
  return %y, %keep : tensor<4xf32>, tensor<4xi1>
}

// -----

// An op without a derivative rule between an argument and a result is an
// error at that op.
func.func @opaque(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'foo.bar' op has no derivative rule (VJPOpInterface) and lies between an argument and a result of @opaque}}
  %y = "foo.bar"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// A result with trace.role = "buffer_update" (a batch norm's running mean,
// the importer's contract) is state, not something the loss depends on: it
// gets no cotangent, so only the loss has one, and @f_fwd returns it with
// the loss, its attributes kept. The buffer argument (trace.role =
// "buffer") gets no gradient: only x does.
// CHECK-LABEL: func.func @running_stats_grad(
// CHECK-SAME: %{{[^:]*}}: tensor<4x3xf32> {trace.name = "x"}, %{{[^:]*}}: tensor<3xf32> {trace.name = "bn.running_mean", trace.role = "buffer"}, %[[COT:[^:]*]]: tensor<f32> {trace.name = "cot.loss"})
// CHECK-SAME: -> (tensor<f32> {trace.name = "loss"}, tensor<3xf32> {trace.name = "bn.running_mean", trace.role = "buffer_update"}, tensor<4x3xf32> {trace.name = "grad.x"})
// CHECK-LABEL: func.func @running_stats_fwd(
// CHECK-SAME: -> (tensor<f32> {trace.name = "loss"}, tensor<3xf32> {trace.name = "bn.running_mean", trace.role = "buffer_update"}
// CHECK-LABEL: func.func @running_stats_bwd(
// CHECK-NOT:  cot.bn.running_mean
// CHECK:      return
func.func @running_stats(%x: tensor<4x3xf32> {trace.name = "x"},
                         %rm: tensor<3xf32> {trace.name = "bn.running_mean", trace.role = "buffer"})
    -> (tensor<f32> {trace.name = "loss"},
        tensor<3xf32> {trace.name = "bn.running_mean", trace.role = "buffer_update"}) {
  %s = trace.reduce_sum %x dims = [0] : tensor<4x3xf32> -> tensor<3xf32>
  %u = trace.add %rm, %s : tensor<3xf32>
  %sq = trace.mul %x, %x : tensor<4x3xf32>
  %l = trace.reduce_sum %sq dims = [0, 1] : tensor<4x3xf32> -> tensor<f32>
  return %l, %u : tensor<f32>, tensor<3xf32>
}

// -----

// A projection sliced into three (q, k and v): each slice's cotangent is its
// gradient between zeros, and the sum of the three is one concatenation of
// the gradients, with no zeros left and nothing added.
// CHECK-LABEL: func.func @forward_grad(
// CHECK: trace.forward_end
// CHECK-NOT: trace.full
// CHECK-NOT: trace.add
// CHECK: %[[QKV:.*]] = trace.concatenate %{{.*}}, %{{.*}}, %{{.*}} dim = 1 : (tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x6xf32>
// CHECK-NEXT: return %{{.*}}, %[[QKV]]
func.func @forward(%x: tensor<2x6xf32>) -> (tensor<2x2xf32>) {
  %q = trace.slice %x [0:2, 0:2] : tensor<2x6xf32> -> tensor<2x2xf32>
  %k = trace.slice %x [0:2, 2:4] : tensor<2x6xf32> -> tensor<2x2xf32>
  %v = trace.slice %x [0:2, 4:6] : tensor<2x6xf32> -> tensor<2x2xf32>
  %qk = trace.mul %q, %k : tensor<2x2xf32>
  %r = trace.mul %qk, %v : tensor<2x2xf32>
  return %r : tensor<2x2xf32>
}

// -----

// One concatenated cotangent handed to both operands of x + x: it is summed
// with itself piece by piece (the same value on both sides of the sum).
// CHECK-LABEL: func.func @forward_grad(
// CHECK: trace.forward_end
// CHECK: %[[GA:.*]] = trace.add %[[A:.*]], %[[A]] : tensor<2x2xf32>
// CHECK: %[[GB:.*]] = trace.add %[[B:.*]], %[[B]] : tensor<2x2xf32>
// CHECK: %[[G:.*]] = trace.concatenate %[[GA]], %[[GB]] dim = 1 : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x4xf32>
// CHECK-NOT: trace.full
// CHECK: return %{{.*}}, %[[G]]
func.func @forward(%x: tensor<2x4xf32>) -> (tensor<2x2xf32>) {
  %q = trace.add %x, %x : tensor<2x4xf32>
  %a = trace.slice %q [0:2, 0:2] : tensor<2x4xf32> -> tensor<2x2xf32>
  %b = trace.slice %q [0:2, 2:4] : tensor<2x4xf32> -> tensor<2x2xf32>
  %r = trace.mul %a, %b : tensor<2x2xf32>
  return %r : tensor<2x2xf32>
}

// -----

// Cotangents arrive in reverse: m's and b's line up (zeros between them);
// a's overlaps m's.
// CHECK-LABEL: func.func @forward_grad(
// CHECK: %[[MB:.*]] = trace.concatenate %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} dim = 1 : (tensor<2x1xf32>, tensor<2x2xf32>, tensor<2x1xf32>, tensor<2x2xf32>) -> tensor<2x6xf32>
// CHECK: %[[A:.*]] = trace.concatenate %{{.*}}, %{{.*}} dim = 1 : (tensor<2x2xf32>, tensor<2x4xf32>) -> tensor<2x6xf32>
// CHECK: trace.add %[[MB]], %[[A]] : tensor<2x6xf32>
func.func @forward(%x: tensor<2x6xf32>) -> (tensor<2x2xf32>) {
  %a = trace.slice %x [0:2, 0:2] : tensor<2x6xf32> -> tensor<2x2xf32>
  %b = trace.slice %x [0:2, 4:6] : tensor<2x6xf32> -> tensor<2x2xf32>
  %m = trace.slice %x [0:2, 1:3] : tensor<2x6xf32> -> tensor<2x2xf32>
  %ab = trace.mul %a, %b : tensor<2x2xf32>
  %r = trace.mul %ab, %m : tensor<2x2xf32>
  return %r : tensor<2x2xf32>
}

// -----

// Softmax (as the importer writes it) gets torch's rule,
// dx = y * (g - sum(g * y)): the backward reads the output y and not exp's
// result, so the split saves y alone.
// CHECK-LABEL: func.func @forward_grad(
// CHECK-SAME: %[[X:[^:]*]]: tensor<2x3xf32>, %[[G:[^:]*]]: tensor<2x3xf32> {trace.name = "cot.result0"})
// CHECK: %[[Y:.*]] = trace.div %[[E:.*]], %{{.*}} {trace.name = "y"}
// CHECK: trace.forward_end
// CHECK-NEXT: %[[GY:.*]] = trace.mul %[[G]], %[[Y]]
// CHECK-NEXT: %[[S:.*]] = trace.reduce_sum %[[GY]] dims = [1] keepdim
// CHECK-NEXT: %[[SB:.*]] = trace.broadcast_in_dim %[[S]], dims = [0, 1]
// CHECK-NEXT: %[[D:.*]] = trace.sub %[[G]], %[[SB]]
// CHECK-NEXT: %[[DX:.*]] = trace.mul %[[Y]], %[[D]]
// CHECK-NEXT: return %[[Y]], %[[DX]]
// CHECK-LABEL: func.func @forward_fwd(
// CHECK-SAME: -> (tensor<2x3xf32>, tensor<2x3xf32> {trace.name = "saved.y"})
func.func @forward(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>) {
  %e = trace.exp %x : tensor<2x3xf32>
  %s = trace.reduce_sum %e dims = [1] keepdim : tensor<2x3xf32> -> tensor<2x1xf32>
  %b = trace.broadcast_in_dim %s, dims = [0, 1] : tensor<2x1xf32> -> tensor<2x3xf32>
  %y = trace.div %e, %b {trace.name = "y"} : tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

// -----

// exp's result read elsewhere too: the ops' own rules, e and y both read.
// CHECK-LABEL: func.func @forward_grad(
// CHECK: trace.forward_end
// CHECK: trace.div
// CHECK: trace.mul %{{.*}}, %[[E:.*]] : tensor<2x3xf32>
func.func @forward(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  %e = trace.exp %x : tensor<2x3xf32>
  %s = trace.reduce_sum %e dims = [1] keepdim : tensor<2x3xf32> -> tensor<2x1xf32>
  %b = trace.broadcast_in_dim %s, dims = [0, 1] : tensor<2x1xf32> -> tensor<2x3xf32>
  %y = trace.div %e, %b : tensor<2x3xf32>
  return %y, %e : tensor<2x3xf32>, tensor<2x3xf32>
}
