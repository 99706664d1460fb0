// Stock mlir-opt-22 with TracePlugin.so: it parses and prints trace IR,
// runs trace passes from either plugin flag, and lowers to linalg.
// REQUIRES: trace-plugin
// UNSUPPORTED: sanitizer
// RUN: mlir-opt-stock %s --load-dialect-plugin=%trace_plugin --pass-pipeline='builtin.module(trace-autodiff)' | FileCheck %s
// RUN: mlir-opt-stock %s --load-pass-plugin=%trace_plugin --load-dialect-plugin=%trace_plugin --pass-pipeline='builtin.module(trace-autodiff,canonicalize)' | FileCheck %s
// RUN: mlir-opt-stock %s --load-dialect-plugin=%trace_plugin --pass-pipeline='builtin.module(trace-to-linalg)' | FileCheck %s --check-prefix=LINALG
// RUN: mlir-opt-stock %s --load-dialect-plugin=%trace_plugin | mlir-opt-stock --load-dialect-plugin=%trace_plugin | FileCheck %s --check-prefix=ROUND

// CHECK-LABEL: func.func @f_grad
// CHECK: trace.tanh
// CHECK: trace.forward_end
// CHECK: trace.mul

// LINALG-LABEL: func.func @f
// LINALG: linalg.generic
// LINALG: math.tanh
// LINALG-NOT: trace.

// ROUND: %[[Y:.*]] = trace.tanh %{{.*}} : tensor<4xf32>
// ROUND: return %[[Y]]
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = trace.tanh %x : tensor<4xf32>
  return %y : tensor<4xf32>
}
