func.func @checkpoint_no_terminator(%a: tensor<4xf32>) {
  %0 = "trace.checkpoint"(%a) ({
  ^bb0(%x: tensor<4xf32>):
    %t = "trace.exp"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  }) : (tensor<4xf32>) -> tensor<4xf32>
  return
}
