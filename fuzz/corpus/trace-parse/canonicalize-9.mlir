// Splat constants keep their value under shape ops; select on a constant
// condition picks a side.
func.func @splat_shapes(%a: tensor<4xf32>, %b: tensor<4xf32>) -> (tensor<3x4xf32>, tensor<4x3xf32>, tensor<4xf32>) {
  %c = trace.full 2.0 : tensor<4xf32>
  %0 = trace.broadcast_in_dim %c, dims = [1] : tensor<4xf32> -> tensor<3x4xf32>
  %1 = trace.transpose %0, perm = [1, 0] : tensor<3x4xf32> -> tensor<4x3xf32>
  %f = trace.full false : tensor<4xi1>
  %2 = trace.select %f, %a, %b : tensor<4xi1>, tensor<4xf32>
  return %0, %1, %2 : tensor<3x4xf32>, tensor<4x3xf32>, tensor<4xf32>
}
