// Dropout inside a checkpoint region: the mask and its constants are
// recomputed (the seed is saved), and the region's input x, read only by
// the dead cotangent of the mask, is not saved.
// SAVED: remark: saved for backward by @blk_dropout_fwd: 1 values, 8 bytes (0 of activations, 8 of arguments), 3 ops recomputed in @blk_dropout_bwd
// SAVED-NEXT: saved.seed: tensor<i64>, 8 bytes, from an argument
// SAVED-NOT: saved.
func.func @blk_dropout(%x: tensor<4xf32>, %seed: tensor<i64> {trace.name = "seed"}) -> tensor<4xf32> {
  %r = trace.checkpoint "blk" ins(%in = %x : tensor<4xf32>, %rng = %seed : tensor<i64>) -> tensor<4xf32> {
    %u = trace.random_uniform %rng, offset = 0 : tensor<4xf32>
    %k = trace.full 2.0 : tensor<4xf32>
    %s = trace.mul %u, %k : tensor<4xf32>
    %o = trace.mul %in, %s : tensor<4xf32>
    trace.yield %o : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}
