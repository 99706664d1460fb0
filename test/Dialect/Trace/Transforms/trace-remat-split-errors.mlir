// trace-remat on splits trace-autodiff did not make as it makes them: the
// split is read off #trace.derivatives and trace.forward_end, and what
// contradicts them is an error at the op, not a wrong split.
// RUN: trace-opt %s -split-input-file -trace-remat -verify-diagnostics

func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> attributes {
    trace.derivatives = #trace.derivatives<grad = @f_grad, fwd = @f_fwd, bwd = @f_bwd>} {
  %e = trace.exp %x : tensor<4xf32>
  return %e : tensor<4xf32>
}
// expected-error @+1 {{@f_grad has no trace.forward_end marking where its forward ends (trace-autodiff puts one there)}}
func.func @f_grad(%x: tensor<4xf32>, %g: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %e = trace.exp %x : tensor<4xf32>
  %d = trace.mul %g, %e : tensor<4xf32>
  return %e, %d : tensor<4xf32>, tensor<4xf32>
}
func.func @f_fwd(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %e = trace.exp %x : tensor<4xf32>
  return %e, %e : tensor<4xf32>, tensor<4xf32>
}
func.func @f_bwd(%e: tensor<4xf32>, %g: tensor<4xf32>) -> tensor<4xf32> {
  %d = trace.mul %g, %e : tensor<4xf32>
  return %d : tensor<4xf32>
}

// -----

// An op moved above the marker that reads a cotangent.
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> attributes {
    trace.derivatives = #trace.derivatives<grad = @f_grad, fwd = @f_fwd, bwd = @f_bwd>} {
  %e = trace.exp %x : tensor<4xf32>
  return %e : tensor<4xf32>
}
func.func @f_grad(%x: tensor<4xf32>, %g: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %e = trace.exp %x : tensor<4xf32>
  // expected-error @+1 {{'trace.mul' op reads a value computed outside the forward ops of @f_grad (was an op moved across its trace.forward_end?)}}
  %d = trace.mul %g, %e : tensor<4xf32>
  trace.forward_end
  return %e, %d : tensor<4xf32>, tensor<4xf32>
}
func.func @f_fwd(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %e = trace.exp %x : tensor<4xf32>
  return %e, %e : tensor<4xf32>, tensor<4xf32>
}
func.func @f_bwd(%e: tensor<4xf32>, %g: tensor<4xf32>) -> tensor<4xf32> {
  %d = trace.mul %g, %e : tensor<4xf32>
  return %d : tensor<4xf32>
}

// -----

// A result of @f computed after the marker: @f_fwd could not return it.
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> attributes {
    trace.derivatives = #trace.derivatives<grad = @f_grad, fwd = @f_fwd, bwd = @f_bwd>} {
  %e = trace.exp %x : tensor<4xf32>
  return %e : tensor<4xf32>
}
// expected-error @+1 {{result 0 of @f is computed after the trace.forward_end of @f_grad; the forward must compute f's results}}
func.func @f_grad(%x: tensor<4xf32>, %g: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  trace.forward_end
  %e = trace.exp %x : tensor<4xf32>
  %d = trace.mul %g, %e : tensor<4xf32>
  return %e, %d : tensor<4xf32>, tensor<4xf32>
}
func.func @f_fwd(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %e = trace.exp %x : tensor<4xf32>
  return %e, %e : tensor<4xf32>, tensor<4xf32>
}
func.func @f_bwd(%e: tensor<4xf32>, %g: tensor<4xf32>) -> tensor<4xf32> {
  %d = trace.mul %g, %e : tensor<4xf32>
  return %d : tensor<4xf32>
}
