// The i1 condition argument of a select gets no gradient result, and an i32
// argument converted to float gets none either.
func.func @select_convert(%c: tensor<4xi1>, %i: tensor<4xi32>, %x: tensor<4xf32>) -> tensor<4xf32> {
  %f = trace.convert %i : tensor<4xi32> -> tensor<4xf32>
  %r = trace.select %c, %f, %x : tensor<4xi1>, tensor<4xf32>
  return %r : tensor<4xf32>
}
