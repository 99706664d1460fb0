// Non-float results get no cotangent; non-differentiable ops (compare,
// random numbers) stop the gradient without error; unnamed slots are
// named like trace-run names them.
func.func @mixed(%x: tensor<4xf32>, %seed: tensor<i64>) -> (tensor<4xf32>, tensor<4xi1>) {
  %u = trace.random_uniform %seed, offset = 0 : tensor<4xf32>
  %keep = trace.compare lt, %u, %x : tensor<4xf32>
  %y = trace.mul %x, %u : tensor<4xf32>
  return %y, %keep : tensor<4xf32>, tensor<4xi1>
}
