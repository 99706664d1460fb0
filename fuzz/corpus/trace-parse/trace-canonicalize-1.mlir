func.func @regions(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %r:2 = trace.checkpoint "blk" ins(%x = %a : tensor<4x4xf32>, %y = %b : tensor<4x4xf32>)
      -> (tensor<4x4xf32>, tensor<4x4xf32>) {
    %t1 = trace.transpose %x, perm = [1, 0] : tensor<4x4xf32> -> tensor<4x4xf32>
    %t2 = trace.transpose %t1, perm = [1, 0] : tensor<4x4xf32> -> tensor<4x4xf32>
    %t3 = trace.transpose %t2, perm = [1, 0] : tensor<4x4xf32> -> tensor<4x4xf32>
    %m = trace.matmul %t2, %t3 : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
    %u = trace.exp %y : tensor<4x4xf32>
    trace.yield %m, %u : tensor<4x4xf32>, tensor<4x4xf32>
  }
  return %r#0 : tensor<4x4xf32>
}
