// A type whose size in bytes overflows 64 bits. No trace op reads these
// tensors: trace ops reject tensors over 2^40 bytes themselves (huge-dims).
func.func @overflow(%x: tensor<100000000000x100000000000xf32> {trace.name = "x"}) -> tensor<100000000000x100000000000xf32> {
  return %x : tensor<100000000000x100000000000xf32>
}
// 2^50 elements, 4 PiB: no machine holds it.
func.func @petabytes(%x: tensor<1125899906842624xf32> {trace.name = "x"}) -> tensor<1125899906842624xf32> {
  return %x : tensor<1125899906842624xf32>
}
