func.func @contradiction(%x: tensor<4xf32>) -> tensor<4xf32> {
  %e = trace.exp %x {trace.name = "named", trace.remat = "must_recompute"} : tensor<4xf32>
  return %e : tensor<4xf32>
}
