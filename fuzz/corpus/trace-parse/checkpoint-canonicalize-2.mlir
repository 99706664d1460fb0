func.func @empty_region_vanishes(%a: tensor<4xf32>) -> tensor<4xf32> {
  %r = trace.checkpoint ins(%x = %a : tensor<4xf32>) -> tensor<4xf32> {
    trace.yield %x : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}
