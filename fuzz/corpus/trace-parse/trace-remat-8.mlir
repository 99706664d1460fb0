// The same without the attribute.
func.func @no_prefer(%x: tensor<4x8xf32> {trace.name = "x"}, %w: tensor<8x16xf32> {trace.name = "w"}) -> tensor<4x16xf32> {
  %m = trace.matmul %x, %w {trace.name = "mm"} : tensor<4x8xf32>, tensor<8x16xf32> -> tensor<4x16xf32>
  %a = trace.tanh %m {trace.name = "a"} : tensor<4x16xf32>
  %b = trace.exp %a {trace.name = "b"} : tensor<4x16xf32>
  return %b : tensor<4x16xf32>
}
