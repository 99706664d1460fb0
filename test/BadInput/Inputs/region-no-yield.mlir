func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = trace.checkpoint "c" ins(%i = %x : tensor<4xf32>) -> tensor<4xf32> {
    %n = trace.neg %i : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}
