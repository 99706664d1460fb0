// trace-remat splits @f_grad at its trace.forward_end, so passes may run
// between trace-autodiff and trace-remat. Upstream canonicalize hoists the
// backward's constant (tanh's 1.0) above the whole forward: it becomes a
// forward op, which the split rebuilds in @forward_bwd rather than save. (A
// count of forward ops, what trace-autodiff recorded before, would now
// end the forward one op early and make exp a backward op.)
// RUN: trace-opt %s -trace-autodiff -canonicalize -cse -trace-remat | FileCheck %s

// CHECK-LABEL: func.func @forward_grad
// CHECK-NEXT: %[[ONE:.*]] = trace.full 1.000000e+00
// CHECK-NEXT: %[[T:.*]] = trace.tanh
// CHECK-NEXT: %[[E:.*]] = trace.exp %[[T]]
// CHECK-NEXT: trace.forward_end
// CHECK-NEXT: trace.mul %{{.*}}, %[[E]]

// The backward reads only x, the forward's argument, and the forward saves
// nothing (the plain cut recomputes tanh and exp).
// CHECK-LABEL: func.func @forward_fwd
// CHECK-SAME: -> (tensor<4xf32> {trace.name = "out"})
// CHECK-NEXT: %[[T:.*]] = trace.tanh
// CHECK-NEXT: %[[E:.*]] = trace.exp %[[T]]
// CHECK-NEXT: return %[[E]] :

// CHECK-LABEL: func.func @forward_bwd
// CHECK-NEXT: %[[T:.*]] = trace.tanh %arg0 {trace.recomputed}
// CHECK-NEXT: %[[E:.*]] = trace.exp %[[T]] {trace.recomputed}
// CHECK-NEXT: %[[GE:.*]] = trace.mul %arg1, %[[E]]
// CHECK-NEXT: %[[T2:.*]] = trace.mul %[[T]], %[[T]]
// CHECK-NEXT: %[[ONE:.*]] = trace.full 1.000000e+00 {trace.recomputed}
// CHECK-NEXT: %[[D:.*]] = trace.sub %[[ONE]], %[[T2]]
// CHECK-NEXT: %[[DX:.*]] = trace.mul %[[GE]], %[[D]]
// CHECK-NEXT: return %[[DX]]
func.func @forward(%x: tensor<4xf32> {trace.name = "x"}) -> (tensor<4xf32> {trace.name = "out"}) {
  %t = trace.tanh %x : tensor<4xf32>
  %e = trace.exp %t : tensor<4xf32>
  return %e : tensor<4xf32>
}
