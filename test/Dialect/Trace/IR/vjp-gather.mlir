// The VJP rules (TraceVJP.cpp) of trace.gather and trace.scatter_add, and
// trace.stop_gradient passing none, as trace-autodiff emits them into
// @<op>_grad. g is the cotangent; the indices get no gradient.
// Numerics: test/Integration/CPU/grads/gather.test, scatter_add.test.
// RUN: trace-opt %s --trace-autodiff --split-input-file | FileCheck %s

// gather: dx = scatter_add(g into zeros of x's shape) at the same indices.
// CHECK-LABEL: func @gather_grad
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<10x4xf32>, %[[I:[a-z0-9_]+]]: tensor<3x4xi64>, %[[G:[a-z0-9_]+]]: tensor<3x4xf32>
// CHECK-SAME: -> (tensor<3x4xf32>, tensor<10x4xf32> {trace.name = "grad.arg0"})
// CHECK:      trace.forward_end
// CHECK-NEXT: %[[Z:.*]] = trace.full 0.000000e+00 : tensor<10x4xf32>
// CHECK-NEXT: %[[DX:.*]] = trace.scatter_add %[[G]] into %[[Z]][%[[I]]] dim = 0 : tensor<3x4xf32>, tensor<3x4xi64> -> tensor<10x4xf32>
// CHECK-NEXT: return %{{.*}}, %[[DX]]
func.func @gather(%x: tensor<10x4xf32>, %i: tensor<3x4xi64>) -> tensor<3x4xf32> {
  %r = trace.gather %x[%i] dim = 0 : tensor<10x4xf32>, tensor<3x4xi64> -> tensor<3x4xf32>
  return %r : tensor<3x4xf32>
}

// -----

// scatter_add: the base's gradient is g, the updates' g gathered.
// CHECK-LABEL: func @scatter_grad
// CHECK-SAME: %[[B:[a-z0-9_]+]]: tensor<5x6xf32>, %[[I:[a-z0-9_]+]]: tensor<5x2xi32>, %[[U:[a-z0-9_]+]]: tensor<5x2xf32>, %[[G:[a-z0-9_]+]]: tensor<5x6xf32>
// CHECK:      trace.forward_end
// CHECK-NEXT: %[[DU:.*]] = trace.gather %[[G]][%[[I]]] dim = 1 : tensor<5x6xf32>, tensor<5x2xi32> -> tensor<5x2xf32>
// CHECK-NEXT: return %{{.*}}, %[[G]], %[[DU]]
func.func @scatter(%b: tensor<5x6xf32>, %i: tensor<5x2xi32>, %u: tensor<5x2xf32>) -> tensor<5x6xf32> {
  %r = trace.scatter_add %u into %b[%i] dim = 1 : tensor<5x2xf32>, tensor<5x2xi32> -> tensor<5x6xf32>
  return %r : tensor<5x6xf32>
}

// -----

// stop_gradient: x reaches the result twice, once through stop_gradient;
// only the direct use contributes (dx = g, not 2g).
// CHECK-LABEL: func @detach_grad
// CHECK-SAME: %[[X:[a-z0-9_]+]]: tensor<4xf32>, %[[G:[a-z0-9_]+]]: tensor<4xf32>
// CHECK:      trace.forward_end
// CHECK-NEXT: return %{{.*}}, %[[G]] :
func.func @detach(%x: tensor<4xf32>) -> tensor<4xf32> {
  %d = trace.stop_gradient %x : tensor<4xf32>
  %r = trace.add %x, %d : tensor<4xf32>
  return %r : tensor<4xf32>
}
