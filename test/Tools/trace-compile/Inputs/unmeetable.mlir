// A model trace-remat cannot compile under budget=0: a must-save value.
func.func @forward(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>) -> tensor<4x16xf32> {
  %m = trace.matmul %x, %w : tensor<4x8xf32>, tensor<8x16xf32> -> tensor<4x16xf32>
  %e = trace.exp %m {trace.remat = "must_save"} : tensor<4x16xf32>
  return %e : tensor<4x16xf32>
}
