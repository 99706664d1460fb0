func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = trace.checkpoint "c" ins(%i = %x : tensor<4xf32>) -> tensor<4xf32> {
    %n = trace.convert %i : tensor<4xf32> -> tensor<4xf64>
    trace.yield %n : tensor<4xf64>
  }
  return %r : tensor<4xf32>
}
