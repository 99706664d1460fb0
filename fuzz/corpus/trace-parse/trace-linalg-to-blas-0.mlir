// f32/f64 matmuls on buffers become calls of the runtime's BLAS entry
// points; transposed operands go as strided views; other types stay.

func.func @matmul(%a: memref<8x16xf32>, %b: memref<16x4xf32>, %c: memref<8x4xf32>) {
  linalg.matmul ins(%a, %b : memref<8x16xf32>, memref<16x4xf32>) outs(%c : memref<8x4xf32>)
  return
}
