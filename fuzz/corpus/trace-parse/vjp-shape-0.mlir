// The VJP rules (TraceVJP.cpp) of the shape ops, as trace-autodiff emits
// them into @<op>_grad: broadcast_in_dim, reshape, transpose, slice,
// concatenate. g is the cotangent. Numerics: test/Integration/CPU/grads.

// broadcast_in_dim: sum over the new dim 0 and the stretched dim 2 (operand
// dim 1 has size 1), then reshape [3] to the operand's [3, 1].
func.func @broadcast(%x: tensor<3x1xf32>) -> tensor<2x3x4xf32> {
  %r = trace.broadcast_in_dim %x, dims = [1, 2] : tensor<3x1xf32> -> tensor<2x3x4xf32>
  return %r : tensor<2x3x4xf32>
}
