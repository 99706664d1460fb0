// A type whose size in bytes overflows 64 bits.
func.func @overflow(%x: tensor<100000000000x100000000000xf32> {trace.name = "x"}) -> tensor<100000000000x100000000000xf32> {
  %e = trace.exp %x : tensor<100000000000x100000000000xf32>
  return %e : tensor<100000000000x100000000000xf32>
}
// 2^50 elements, 4 PiB: no machine holds it.
func.func @petabytes(%x: tensor<1125899906842624xf32> {trace.name = "x"}) -> tensor<1125899906842624xf32> {
  %e = trace.exp %x : tensor<1125899906842624xf32>
  return %e : tensor<1125899906842624xf32>
}
