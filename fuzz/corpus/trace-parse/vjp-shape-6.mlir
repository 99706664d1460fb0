// Strided slice [2:9:4] (elements 2 and 6 of 9): each element of g is
// followed by 3 zeros ([2] -> [2, 1] -> [2, 4] -> [8]), the first 5 are
// kept, and 2 zeros go before and after (one zeros op for both).
func.func @slice(%x: tensor<9xf32>) -> tensor<2xf32> {
  %r = trace.slice %x [2:9:4] : tensor<9xf32> -> tensor<2xf32>
  return %r : tensor<2xf32>
}
