// A step whose C wrappers must not free what they do not own: @forward
// returns its argument x itself, and exp(x) is both a result of
// @forward_fwd and the value it saves for backward (one buffer, two
// results).
func.func @forward(%x: tensor<4xf32> {trace.name = "x"}) -> (tensor<4xf32> {trace.name = "same"}, tensor<4xf32> {trace.name = "e"}) {
  %e = trace.exp %x : tensor<4xf32>
  return %x, %e : tensor<4xf32>, tensor<4xf32>
}
