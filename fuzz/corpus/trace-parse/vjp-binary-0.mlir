// The VJP rules (TraceVJP.cpp) of the binary elementwise ops, select and
// convert, as trace-autodiff emits them into @<op>_grad: a and b the
// operands, y the forward result, g the cotangent. Broadcasting is explicit
// in the trace dialect (broadcast_in_dim), so a broadcast operand's gradient
// is reduced by broadcast_in_dim's rule; a value used twice gets the sum of
// its cotangents. Numerics: test/Integration/CPU/grads.
//
// The order of two ops built as arguments of one C++ call is the compiler's
// (unspecified) evaluation order, so such siblings are CHECK-DAG.

// add: da = g, db = g (no op: the cotangent itself is returned twice).
func.func @add(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %r = trace.add %a, %b : tensor<4xf32>
  return %r : tensor<4xf32>
}
