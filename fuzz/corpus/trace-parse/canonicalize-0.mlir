// Folds and canonicalization patterns of trace ops, through the upstream
// canonicalizer (and CSE, for the random op's determinism).

func.func @add_zero(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %z = trace.full 0.0 : tensor<4xf32>
  %0 = trace.add %x, %z : tensor<4xf32>
  // The constant moves to the right (add is commutative), then folds.
  %1 = trace.add %z, %x : tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}
