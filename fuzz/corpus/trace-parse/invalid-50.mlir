func.func @checkpoint_yield_type(%a: tensor<4xf32>) {
  %0 = trace.checkpoint ins(%x = %a : tensor<4xf32>) -> tensor<8xf32> {
    trace.yield %x : tensor<4xf32>
  }
  return
}
