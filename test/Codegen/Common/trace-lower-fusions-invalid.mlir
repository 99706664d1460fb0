// trace-lower-fusions needs the fusion bodies in linalg already.
// RUN: trace-opt %s -trace-lower-fusions -verify-diagnostics

func.func @not_lowered(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = trace.fusion "loop_0" ins(%a = %x : tensor<4xf32>) -> tensor<4xf32> {
    // expected-error @+1 {{'trace.exp' op must be lowered (trace-to-linalg{keep-fusions}) before trace-lower-fusions}}
    %e = trace.exp %a : tensor<4xf32>
    trace.yield %e : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}
