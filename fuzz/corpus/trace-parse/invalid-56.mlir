func.func @fusion_no_policy(%a: tensor<4xf32>) {
  %0 = trace.fusion policy = #trace.policy<> ins(%x = %a : tensor<4xf32>) -> tensor<4xf32> {
    trace.yield %x : tensor<4xf32>
  }
  return
}
