// trace-remat's diagnostics: a budget the constraints rule out, bad policy
// attributes, contradictory constraints, and a budget it cannot parse.
// PARSE: error: trace-remat: cannot parse budget 'lots': expected a fraction from 0 to 1 or a byte count such as 200000, 200KB or 1.5MiB

// A must-save value makes a zero budget impossible; the note names it.
func.func @unmeetable(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>) -> tensor<4x16xf32> {
  %m = trace.matmul %x, %w : tensor<4x8xf32>, tensor<8x16xf32> -> tensor<4x16xf32>
  %e = trace.exp %m {trace.remat = "must_save"} : tensor<4x16xf32>
  return %e : tensor<4x16xf32>
}
