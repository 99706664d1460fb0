func.func @transposed_weight(%x: memref<8x16xf64>, %w: memref<32x16xf64>, %c: memref<8x32xf64>) {
  linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>,
                                 affine_map<(d0, d1, d2) -> (d1, d2)>,
                                 affine_map<(d0, d1, d2) -> (d0, d1)>]
      ins(%x, %w : memref<8x16xf64>, memref<32x16xf64>) outs(%c : memref<8x32xf64>)
  return
}
