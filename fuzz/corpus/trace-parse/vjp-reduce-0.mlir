// The VJP rules (TraceVJP.cpp) of the reductions and of matmul, as
// trace-autodiff emits them into @<op>_grad: x the operand, y the forward
// result, g the cotangent. Numerics: test/Integration/CPU/grads.

// reduce_sum: g is broadcast back over the reduced dims. Without keepdim the
// kept dim 1 is the only one mapped, whatever the order of the reduced dims.
func.func @reduce_sum(%x: tensor<2x3x4xf32>) -> tensor<3xf32> {
  %r = trace.reduce_sum %x dims = [2, 0] : tensor<2x3x4xf32> -> tensor<3xf32>
  return %r : tensor<3xf32>
}
