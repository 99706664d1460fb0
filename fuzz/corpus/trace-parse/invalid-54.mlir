func.func @checkpoint_policy_not_strings(%a: tensor<4xf32>) {
  %0 = trace.checkpoint policy = #trace.policy<save_names = [3]> ins(%x = %a : tensor<4xf32>) -> tensor<4xf32> {
    trace.yield %x : tensor<4xf32>
  }
  return
}
