func.func @checkpoint_arg_count(%a: tensor<4xf32>) {
  %0 = "trace.checkpoint"(%a) ({
  ^bb0(%x: tensor<4xf32>, %y: tensor<4xf32>):
    "trace.yield"(%x) : (tensor<4xf32>) -> ()
  }) : (tensor<4xf32>) -> tensor<4xf32>
  return
}
