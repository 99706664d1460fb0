func.func @f(%s: tensor<f32>) -> tensor<4xf32> {
  %u = trace.random_uniform %s, offset = 0 : tensor<4xf32>
  return %u : tensor<4xf32>
}
