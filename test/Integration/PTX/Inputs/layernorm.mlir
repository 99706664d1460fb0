// layer_norm over the last dim as the importer decomposes it (biased
// variance, eps = 1e-5, affine), followed by a tanh-approximated gelu.
func.func @layer_norm_gelu(%x: tensor<2x16x32xf32>, %gamma: tensor<32xf32>, %beta: tensor<32xf32>) -> tensor<2x16x32xf32> {
  %sum = trace.reduce_sum %x dims = [2] keepdim : tensor<2x16x32xf32> -> tensor<2x16x1xf32>
  %n = trace.full 3.200000e+01 : tensor<2x16x1xf32>
  %mean = trace.div %sum, %n : tensor<2x16x1xf32>
  %mean_b = trace.broadcast_in_dim %mean, dims = [0, 1, 2] : tensor<2x16x1xf32> -> tensor<2x16x32xf32>
  %xc = trace.sub %x, %mean_b : tensor<2x16x32xf32>
  %sq = trace.mul %xc, %xc : tensor<2x16x32xf32>
  %sqsum = trace.reduce_sum %sq dims = [2] keepdim : tensor<2x16x32xf32> -> tensor<2x16x1xf32>
  %var = trace.div %sqsum, %n : tensor<2x16x1xf32>
  %eps = trace.full 9.99999974E-6 : tensor<2x16x1xf32>
  %var_eps = trace.add %var, %eps : tensor<2x16x1xf32>
  %rstd = trace.rsqrt %var_eps : tensor<2x16x1xf32>
  %rstd_b = trace.broadcast_in_dim %rstd, dims = [0, 1, 2] : tensor<2x16x1xf32> -> tensor<2x16x32xf32>
  %xn = trace.mul %xc, %rstd_b : tensor<2x16x32xf32>
  %gamma_b = trace.broadcast_in_dim %gamma, dims = [2] : tensor<32xf32> -> tensor<2x16x32xf32>
  %beta_b = trace.broadcast_in_dim %beta, dims = [2] : tensor<32xf32> -> tensor<2x16x32xf32>
  %scaled = trace.mul %xn, %gamma_b : tensor<2x16x32xf32>
  %ln = trace.add %scaled, %beta_b : tensor<2x16x32xf32>
  %h2 = trace.mul %ln, %ln : tensor<2x16x32xf32>
  %h3 = trace.mul %h2, %ln : tensor<2x16x32xf32>
  %c = trace.full 4.471500e-02 : tensor<2x16x32xf32>
  %ch3 = trace.mul %c, %h3 : tensor<2x16x32xf32>
  %inner = trace.add %ln, %ch3 : tensor<2x16x32xf32>
  %k = trace.full 0.797884583 : tensor<2x16x32xf32>
  %u = trace.mul %k, %inner : tensor<2x16x32xf32>
  %t = trace.tanh %u : tensor<2x16x32xf32>
  %one = trace.full 1.0 : tensor<2x16x32xf32>
  %tp1 = trace.add %one, %t : tensor<2x16x32xf32>
  %half = trace.full 5.000000e-01 : tensor<2x16x32xf32>
  %hx = trace.mul %half, %ln : tensor<2x16x32xf32>
  %y = trace.mul %hx, %tp1 : tensor<2x16x32xf32>
  return %y : tensor<2x16x32xf32>
}
