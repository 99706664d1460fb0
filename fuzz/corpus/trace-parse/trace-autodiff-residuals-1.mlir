// A constant factor: neither x nor the constant is saved; @scale_bwd
// builds the constant itself.
// SAVED: remark: saved for backward by @scale_fwd: 0 values, 0 bytes (0 of activations, 0 of arguments), 1 ops recomputed in @scale_bwd
// SAVED-NOT: saved.
func.func @scale(%x: tensor<4xf32>) -> tensor<4xf32> {
  %h = trace.full 0.5 : tensor<4xf32>
  %r = trace.mul %x, %h : tensor<4xf32>
  return %r : tensor<4xf32>
}
