func.func @fusion_yield_type(%a: tensor<4xf32>) {
  %0 = trace.fusion ins(%x = %a : tensor<4xf32>) -> tensor<4xi32> {
    trace.yield %x : tensor<4xf32>
  }
  return
}
