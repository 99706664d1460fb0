// must_save: a is saved although recomputing it from mm is cheap.
func.func @must_save(%x: tensor<4x8xf32> {trace.name = "x"}, %w: tensor<8x16xf32> {trace.name = "w"}) -> tensor<4x16xf32> {
  %m = trace.matmul %x, %w {trace.name = "mm"} : tensor<4x8xf32>, tensor<8x16xf32> -> tensor<4x16xf32>
  %a = trace.mul %m, %m {trace.name = "a", trace.remat = "must_save"} : tensor<4x16xf32>
  %b = trace.sin %a {trace.name = "b"} : tensor<4x16xf32>
  %c = trace.cos %b {trace.name = "c"} : tensor<4x16xf32>
  return %c : tensor<4x16xf32>
}
