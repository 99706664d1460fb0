// A checkpoint region that uses a value from outside is rejected with the
// file, line and column of the use, a note at the region, and exit code 1.

func.func @uses_outside(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = trace.checkpoint "blocks.0" ins(%x = %a : tensor<4xf32>) -> tensor<4xf32> {
    %s = trace.add %x, %b : tensor<4xf32>
    trace.yield %s : tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}
