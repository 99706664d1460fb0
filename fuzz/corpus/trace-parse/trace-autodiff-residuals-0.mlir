// trace-autodiff saves for backward only what live backward code reads: a
// VJP rule's cotangent for an operand that needs none (a random mask, a
// constant, a float converted from an integer) is dead code and must not
// make @f_fwd save the forward values it reads. Operand-free sources
// (trace.full, trace.constant, trace.iota) are rebuilt in @f_bwd, never
// saved.
// Recomputation stays in @f_bwd after CSE (it cannot merge into @f_fwd).

// Dropout: the mask is saved, x (read only by the mask's dead cotangent)
// is not.
// SAVED: remark: saved for backward by @dropout_fwd: 1 values, 16 bytes (16 of activations, 0 of arguments), 0 ops recomputed in @dropout_bwd
// SAVED-NEXT: saved.random_uniform.0: tensor<4xf32>, 16 bytes, from trace.random_uniform
// SAVED-NOT: saved.
func.func @dropout(%x: tensor<4xf32>, %seed: tensor<i64>) -> tensor<4xf32> {
  %u = trace.random_uniform %seed, offset = 0 : tensor<4xf32>
  %r = trace.mul %x, %u : tensor<4xf32>
  return %r : tensor<4xf32>
}
