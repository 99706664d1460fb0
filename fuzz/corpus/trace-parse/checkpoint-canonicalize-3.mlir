// Folds apply inside regions; the region op itself is kept when used.
func.func @folds_inside(%a: tensor<4xf32>) -> tensor<4xf32> {
  %r = trace.fusion "f0" ins(%x = %a : tensor<4xf32>) -> tensor<4xf32> {
    %one = trace.full 1.0 : tensor<4xf32>
    %m = trace.mul %x, %one : tensor<4xf32>
    %t = trace.tanh %m : tensor<4xf32>
    trace.yield %t : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}
