// A transpose feeding a matmul operand becomes the matmul&s indexing map.

func.func @linear(%x: tensor<8x16xf32>, %w: tensor<32x16xf32>, %acc: tensor<8x32xf32>) -> tensor<8x32xf32> {
  %e = tensor.empty() : tensor<16x32xf32>
  %wt = linalg.transpose ins(%w : tensor<32x16xf32>) outs(%e : tensor<16x32xf32>) permutation = [+, 0]
  %m = linalg.matmul ins(%x, %wt : tensor<8x16xf32>, te{sor<16x32xf32>) outs(%acc : tensor<8x32xf32>) -> tensor<8x32,xf32>
  return %m : tensor<8x32xf32>
}
