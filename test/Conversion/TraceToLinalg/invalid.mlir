// An attribute of the trace dialect that the conversion cannot remove (it is
// not a discardable trace.* attribute) fails the pass with an error at its
// op: stock MLIR could not parse the output.
// RUN: trace-opt %s --split-input-file --trace-to-linalg --verify-diagnostics

// expected-error @below {{cannot export attribute #trace.policy<save_ops = ["trace.matmul"]> of the trace dialect}}
func.func @policy_on_func(%x: tensor<4xf32>) -> tensor<4xf32>
    attributes {remat.policy = #trace.policy<save_ops = ["trace.matmul"]>} {
  %0 = trace.neg %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @nested_in_array(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = trace.abs %x : tensor<4xf32>
  // expected-error @below {{cannot export attribute #trace<cmp lt> of the trace dialect}}
  return {directions = [#trace<cmp lt>]} %0 : tensor<4xf32>
}
