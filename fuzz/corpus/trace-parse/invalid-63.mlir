func.func @checkpoint_policy_empty_name(%a: tensor<4xf32>) {
  %0 = trace.checkpoint policy = #trace.policy<save_ops = [""]> ins(%x = %a : tensor<4xf32>) -> tensor<4xf32> {
    trace.yield %x : tensor<4xf32>
  }
  return
}
