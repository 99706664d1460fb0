// The VJP rules (VJPOpInterface::buildVJP, TraceVJP.cpp) of the unary
// elementwise ops as trace-autodiff emits them into @<op>_grad: one op per
// function, x the argument, y the forward result, g the cotangent. Their
// numerics against torch.autograd are test/Integration/CPU/grads.
//
// The order of two ops built as arguments of one C++ call is the compiler's
// (unspecified) evaluation order, so such siblings are CHECK-DAG.

// neg: dx = -g.
func.func @neg(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = trace.neg %x : tensor<4xf32>
  return %r : tensor<4xf32>
}
