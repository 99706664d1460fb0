// must_recompute: exp's gradient reads e, which the cut would save (as
// many bytes as the matmul output, and nothing to recompute); the
// attribute makes it save mm and recompute e.
// With matmuls recomputable, the matmul is recomputed too.
// NOMM-LABEL: func.func @must_recompute_fwd(
// NOMM-SAME: -> (tensor<4x16xf32>, tensor<4x8xf32> {trace.name = "saved.x"}, tensor<8x16xf32> {trace.name = "saved.w"})
func.func @must_recompute(%x: tensor<4x8xf32> {trace.name = "x"}, %w: tensor<8x16xf32> {trace.name = "w"}) -> tensor<4x16xf32> {
  %m = trace.matmul %x, %w {trace.name = "mm"} : tensor<4x8xf32>, tensor<8x16xf32> -> tensor<4x16xf32>
  %e = trace.exp %m {trace.name = "e", trace.remat = "must_recompute"} : tensor<4x16xf32>
  return %e : tensor<4x16xf32>
}
