// linalg.transpose with a malformed permutation (`+` is no integer): MLIR
// 22's custom parser reports it, then dereferences the null attribute it
// stored (fuzz/STATUS.md, finding 5; reduced from the fuzzer's input).
func.func @transpose(%w: tensor<32x16xf32>) -> tensor<16x32xf32> {
  %e = tensor.empty() : tensor<16x32xf32>
  %t = linalg.transpose ins(%w : tensor<32x16xf32>) outs(%e : tensor<16x32xf32>) permutation = [+, 0]
  return %t : tensor<16x32xf32>
}
