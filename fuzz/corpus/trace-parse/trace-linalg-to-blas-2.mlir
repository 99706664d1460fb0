func.func @batch(%a: memref<2x8x16xf32>, %b: memref<2x16x4xf32>, %c: memref<2x8x4xf32>) {
  linalg.batch_matmul ins(%a, %b : memref<2x8x16xf32>, memref<2x16x4xf32>) outs(%c : memref<2x8x4xf32>)
  return
}
