// x * 0 is not folded for floats (NaN * 0 is NaN), nor is 0 - x.
func.func @no_unsafe_folds(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %z = trace.full 0.0 : tensor<4xf32>
  %0 = trace.mul %x, %z : tensor<4xf32>
  %1 = trace.sub %z, %x : tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}
