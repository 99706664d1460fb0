// Shape ops, matmuls, random numbers and dtypes for the GPU check: each
// function runs on the GPU and on the CPU (trace-cpu-pipeline) and the
// results are compared (make_runner.py).
func.func @matmuls(%a: tensor<48x40xf32>, %b: tensor<40x72xf32>, %w: tensor<72x40xf32>,
                   %q: tensor<6x16x8xf32>, %k: tensor<6x8x16xf32>) -> (tensor<48x72xf32>, tensor<48x72xf32>, tensor<6x16x16xf32>) {
  %ab = trace.matmul %a, %b : tensor<48x40xf32>, tensor<40x72xf32> -> tensor<48x72xf32>
  // a @ w^T: read through a transposed map
  %wt = trace.transpose %w, perm = [1, 0] : tensor<72x40xf32> -> tensor<40x72xf32>
  %awt = trace.matmul %a, %wt : tensor<48x40xf32>, tensor<40x72xf32> -> tensor<48x72xf32>
  %qk = trace.matmul %q, %k : tensor<6x16x8xf32>, tensor<6x8x16xf32> -> tensor<6x16x16xf32>
  return %ab, %awt, %qk : tensor<48x72xf32>, tensor<48x72xf32>, tensor<6x16x16xf32>
}
func.func @shapes(%a: tensor<2x3x8xf32>, %b: tensor<2x5x8xf32>) -> (tensor<2x2x3xf32>, tensor<2x8x8xf32>, tensor<8x2x3xf32>) {
  %s = trace.slice %a [0:2, 1:3, 1:8:3] : tensor<2x3x8xf32> -> tensor<2x2x3xf32>
  %c = trace.concatenate %a, %b dim = 1 : (tensor<2x3x8xf32>, tensor<2x5x8xf32>) -> tensor<2x8x8xf32>
  %t = trace.transpose %a, perm = [2, 0, 1] : tensor<2x3x8xf32> -> tensor<8x2x3xf32>
  return %s, %c, %t : tensor<2x2x3xf32>, tensor<2x8x8xf32>, tensor<8x2x3xf32>
}
func.func @masks(%x: tensor<16x16xf32>, %y: tensor<16x16xf32>) -> (tensor<16x16xf32>, tensor<16x16xi1>, tensor<16x16xi64>) {
  %i = trace.iota dim = 0 : tensor<16x16xi64>
  %j = trace.iota dim = 1 : tensor<16x16xi64>
  %causal = trace.compare le, %j, %i : tensor<16x16xi64>
  %lt = trace.compare lt, %x, %y : tensor<16x16xf32>
  %m = trace.select %causal, %x, %y : tensor<16x16xi1>, tensor<16x16xf32>
  return %m, %lt, %j : tensor<16x16xf32>, tensor<16x16xi1>, tensor<16x16xi64>
}
func.func @random(%seed: tensor<i64>) -> (tensor<33x65xf32>, tensor<7x9xf64>) {
  %u = trace.random_uniform %seed, offset = 4294967294 : tensor<33x65xf32>
  %v = trace.random_uniform %seed, offset = 12 : tensor<7x9xf64>
  return %u, %v : tensor<33x65xf32>, tensor<7x9xf64>
}
func.func @converts(%x: tensor<300xf32>) -> (tensor<300xf16>, tensor<300xbf16>, tensor<300xf64>, tensor<300xi32>) {
  %h = trace.convert %x : tensor<300xf32> -> tensor<300xf16>
  %b = trace.convert %x : tensor<300xf32> -> tensor<300xbf16>
  %d = trace.convert %x : tensor<300xf32> -> tensor<300xf64>
  %s = trace.full 1.000000e+01 : tensor<300xf32>
  %xs = trace.mul %x, %s : tensor<300xf32>
  %i = trace.convert %xs : tensor<300xf32> -> tensor<300xi32>
  return %h, %b, %d, %i : tensor<300xf16>, tensor<300xbf16>, tensor<300xf64>, tensor<300xi32>
}
func.func @big_elementwise(%x: tensor<1024x1024xf32>) -> tensor<1024x1024xf32> {
  %e = trace.exp %x : tensor<1024x1024xf32>
  %t = trace.tanh %e : tensor<1024x1024xf32>
  %y = trace.mul %t, %x : tensor<1024x1024xf32>
  return %y : tensor<1024x1024xf32>
}
