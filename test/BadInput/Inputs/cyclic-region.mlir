func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = trace.checkpoint "c" ins(%i = %r : tensor<4xf32>) -> tensor<4xf32> {
    %n = trace.neg %i : tensor<4xf32>
    trace.yield %n : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}
