// trace-autodiff adds @f_grad: f's arguments plus a cotangent per float
// result, returning f's results plus a gradient per float argument. Regions
// are inlined, cotangents of reused values are summed, unreached arguments
// get zeros, names carry through.

// t is used twice by the mul: its two cotangents are summed.
func.func @forward(%x: tensor<4x8xf32> {trace.name = "x"}, %w: tensor<8x3xf32> {trace.name = "fc.weight"},
                   %unused: tensor<3xf32> {trace.name = "unused"}, %seed: tensor<i64>)
    -> (tensor<4x3xf32> {trace.name = "out"}) {
  %r = trace.checkpoint "blk" ins(%a = %x : tensor<4x8xf32>, %b = %w : tensor<8x3xf32>) -> tensor<4x3xf32> {
    %m = trace.matmul %a, %b : tensor<4x8xf32>, tensor<8x3xf32> -> tensor<4x3xf32>
    %t = trace.tanh %m : tensor<4x3xf32>
    %s = trace.mul %t, %t : tensor<4x3xf32>
    trace.yield %s : tensor<4x3xf32>
  }
  return %r : tensor<4x3xf32>
}
