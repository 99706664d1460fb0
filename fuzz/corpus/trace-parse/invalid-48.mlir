func.func @checkpoint_arg_type(%a: tensor<4xf32>) {
  %0 = "trace.checkpoint"(%a) ({
  ^bb0(%x: tensor<4xf16>):
    "trace.yield"(%x) : (tensor<4xf16>) -> ()
  }) : (tensor<4xf32>) -> tensor<4xf16>
  return
}
