// One case per verifier (and parser) error of the trace dialect.

func.func @exp_of_int(%x: tensor<4xi32>) {
  %0 = trace.exp %x : tensor<4xi32>
  return
}
