func.func @checkpoint_yield_count(%a: tensor<4xf32>) {
  %0 = trace.checkpoint ins(%x = %a : tensor<4xf32>) -> tensor<4xf32> {
    trace.yield %x, %x : tensor<4xf32>, tensor<4xf32>
  }
  return
}
