// Half precision, mixed types, tensors and other maps are left alone.
func.func @left_alone(%a: memref<8x16xbf16>, %b: memref<16x4xbf16>, %c: memref<8x4xbf16>,
                      %acc: memref<8x4xf32>, %t: tensor<8x16xf32>, %u: tensor<16x4xf32>,
                      %v: tensor<8x4xf32>) -> tensor<8x4xf32> {
  linalg.matmul ins(%a, %b : memref<8x16xbf16>, memref<16x4xbf16>) outs(%c : memref<8x4xbf16>)
  linalg.matmul ins(%a, %b : memref<8x16xbf16>, memref<16x4xbf16>) outs(%acc : memref<8x4xf32>)
  %r = linalg.matmul ins(%t, %u : tensor<8x16xf32>, tensor<16x4xf32>) outs(%v : tensor<8x4xf32>) -> tensor<8x4xf32>
  return %r : tensor<8x4xf32>
}
