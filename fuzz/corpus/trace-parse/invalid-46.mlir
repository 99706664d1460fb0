func.func @checkpoint_uses_outside_value(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = trace.checkpoint ins(%x = %a : tensor<4xf32>) -> tensor<4xf32> {
    %s = trace.add %x, %b : tensor<4xf32>
    trace.yield %s : tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}
