// Through a float -> i32 -> float round trip nothing flows: x's gradient is
// zeros, y's is g * the rounded values.
func.func @to_int(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %i = trace.convert %x : tensor<4xf32> -> tensor<4xi32>
  %f = trace.convert %i : tensor<4xi32> -> tensor<4xf32>
  %r = trace.mul %f, %y : tensor<4xf32>
  return %r : tensor<4xf32>
}
