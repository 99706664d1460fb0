// Unused pure ops, random numbers included, are removed; the random op is
// deterministic in (seed, offset), so two identical ones are one value.
func.func @dce_and_cse_random(%seed: tensor<i64>, %x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = trace.exp %x : tensor<4xf32>
  %1 = trace.random_uniform %seed, offset = 0 : tensor<4xf32>
  %2 = trace.random_uniform %seed, offset = 0 : tensor<4xf32>
  return %1, %2 : tensor<4xf32>, tensor<4xf32>
}
