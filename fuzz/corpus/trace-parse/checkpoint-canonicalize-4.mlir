// A region whose results are all unused is removed with its body.
func.func @unused_region(%a: tensor<4xf32>) {
  %r = trace.checkpoint ins(%x = %a : tensor<4xf32>) -> tensor<4xf32> {
    %e = trace.exp %x : tensor<4xf32>
    trace.yield %e : tensor<4xf32>
  }
  return
}
