// prefer_recompute doubles the cost of saving a: the cut saves the matmul
// output instead and recomputes a and b (without it, a is saved and only
// b recomputed).
func.func @prefer(%x: tensor<4x8xf32> {trace.name = "x"}, %w: tensor<8x16xf32> {trace.name = "w"}) -> tensor<4x16xf32> {
  %m = trace.matmul %x, %w {trace.name = "mm"} : tensor<4x8xf32>, tensor<8x16xf32> -> tensor<4x16xf32>
  %a = trace.tanh %m {trace.name = "a", trace.remat = "prefer_recompute"} : tensor<4x16xf32>
  %b = trace.exp %a {trace.name = "b"} : tensor<4x16xf32>
  return %b : tensor<4x16xf32>
}
