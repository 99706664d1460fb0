func.func @checkpoint_foreign_terminator(%a: tensor<4xf32>) {
  %0 = trace.checkpoint ins(%x = %a : tensor<4xf32>) -> tensor<4xf32> {
    llvm.unreachable
  }
  return
}
