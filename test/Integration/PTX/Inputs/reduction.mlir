// Reductions: over the last dim (one thread per row), over a leading dim
// (interchanged: one thread per column) and over all dims (one thread),
// sums and maxima, f32 and f64, with and without keepdim.
func.func @sum_last(%x: tensor<32x1000xf32>) -> tensor<32xf32> {
  %s = trace.reduce_sum %x dims = [1] : tensor<32x1000xf32> -> tensor<32xf32>
  return %s : tensor<32xf32>
}
func.func @max_last_keepdim(%x: tensor<4x8x300xf32>) -> tensor<4x8x1xf32> {
  %m = trace.reduce_max %x dims = [2] keepdim : tensor<4x8x300xf32> -> tensor<4x8x1xf32>
  return %m : tensor<4x8x1xf32>
}
func.func @sum_leading(%x: tensor<64x96xf32>) -> tensor<96xf32> {
  %s = trace.reduce_sum %x dims = [0] : tensor<64x96xf32> -> tensor<96xf32>
  return %s : tensor<96xf32>
}
func.func @max_all(%x: tensor<16x16xf64>) -> tensor<f64> {
  %m = trace.reduce_max %x dims = [0, 1] : tensor<16x16xf64> -> tensor<f64>
  return %m : tensor<f64>
}
func.func @sum_f16(%x: tensor<8x512xf16>) -> tensor<8xf16> {
  %s = trace.reduce_sum %x dims = [1] : tensor<8x512xf16> -> tensor<8xf16>
  return %s : tensor<8xf16>
}
