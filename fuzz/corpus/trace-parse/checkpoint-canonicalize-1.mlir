func.func @pass_through_and_duplicates(%a: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %r:2 = trace.checkpoint ins(%x = %a : tensor<4xf32>, %y = %a : tensor<4xf32>)
      -> (tensor<4xf32>, tensor<4xf32>) {
    %s = trace.mul %x, %y : tensor<4xf32>
    trace.yield %s, %y : tensor<4xf32>, tensor<4xf32>
  }
  return %r#0, %r#1 : tensor<4xf32>, tensor<4xf32>
}
