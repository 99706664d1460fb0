// An integer argument gets no gradient: @f_grad returns one gradient, for
// the float argument; the integer add and the i32 -> f32 convert have no
// backward (no convert back to i32).
func.func @int_arg(%i: tensor<4xi32>, %x: tensor<4xf32>) -> tensor<4xf32> {
  %j = trace.add %i, %i : tensor<4xi32>
  %f = trace.convert %j : tensor<4xi32> -> tensor<4xf32>
  %r = trace.mul %f, %x : tensor<4xf32>
  return %r : tensor<4xf32>
}
