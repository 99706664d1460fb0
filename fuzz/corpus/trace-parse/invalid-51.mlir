func.func @checkpoint_wrong_terminator(%a: tensor<4xf32>) {
  %0 = trace.checkpoint ins(%x = %a : tensor<4xf32>) -> tensor<4xf32> {
    func.return %x : tensor<4xf32>
  }
  return
}
