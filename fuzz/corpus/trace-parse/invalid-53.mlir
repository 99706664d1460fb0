func.func @checkpoint_policy_unknown_op(%a: tensor<4xf32>) {
  %0 = trace.checkpoint policy = #trace.policy<save_ops = ["trace.matmull"]> ins(%x = %a : tensor<4xf32>) -> tensor<4xf32> {
    trace.yield %x : tensor<4xf32>
  }
  return
}
