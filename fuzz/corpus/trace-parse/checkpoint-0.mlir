// trace.checkpoint: nested regions, policies and multiple results round-trip
// through the custom and the generic form.

func.func @nested(%a: tensor<4x8xf32>, %w1: tensor<8x8xf32>, %w2: tensor<8x8xf32>)
    -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %r:2 = trace.checkpoint "blocks.0" policy = #trace.policy<save_ops = ["trace.matmul"]>
      ins(%x = %a : tensor<4x8xf32>, %p = %w1 : tensor<8x8xf32>, %q = %w2 : tensor<8x8xf32>)
      -> (tensor<4x8xf32>, tensor<4x8xf32>) {
    %m = trace.matmul %x, %p : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
    %inner = trace.checkpoint "blocks.0.mlp" policy = #trace.policy<save_names = ["blocks.0.mlp.act"]>
        ins(%y = %m : tensor<4x8xf32>, %v = %q : tensor<8x8xf32>) -> tensor<4x8xf32> {
      %t = trace.tanh %y {trace.name = "blocks.0.mlp.act"} : tensor<4x8xf32>
      %o = trace.matmul %t, %v : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
      trace.yield %o : tensor<4x8xf32>
    }
    %s = trace.add %inner, %x : tensor<4x8xf32>
    trace.yield %s, %m : tensor<4x8xf32>, tensor<4x8xf32>
  }
  return %r#0, %r#1 : tensor<4x8xf32>, tensor<4x8xf32>
}

// A region without name, policy, inputs or results, and one with extra
// attributes, parse and print.
func.func @minimal() -> tensor<2xf32> {
  trace.checkpoint ins() {
    trace.yield
  }
  %0 = trace.checkpoint ins() -> tensor<2xf32> {
    %c = trace.full 1.0 : tensor<2xf32>
    trace.yield %c : tensor<2xf32>
  } attributes {origin = "torch.utils.checkpoint"}
  return %0 : tensor<2xf32>
}
