// Two pre-norm MLP blocks (layer_norm, fc1, gelu, fc2, dropout, residual),
// each in a checkpoint region that still saves its matmul outputs, as the
// TorchScript importer emits a model wrapped with checkpoint_wrapper.
// Used by scripts/demo.sh and the example test in test/Examples.
func.func @forward(
    %x: tensor<8x32xf32>,
    %blocks.0.ln.weight: tensor<32xf32>,
    %blocks.0.ln.bias: tensor<32xf32>,
    %blocks.0.fc1.weight: tensor<32x128xf32>,
    %blocks.0.fc1.bias: tensor<128xf32>,
    %blocks.0.fc2.weight: tensor<128x32xf32>,
    %blocks.0.fc2.bias: tensor<32xf32>,
    %blocks.1.ln.weight: tensor<32xf32>,
    %blocks.1.ln.bias: tensor<32xf32>,
    %blocks.1.fc1.weight: tensor<32x128xf32>,
    %blocks.1.fc1.bias: tensor<128xf32>,
    %blocks.1.fc2.weight: tensor<128x32xf32>,
    %blocks.1.fc2.bias: tensor<32xf32>,
    %seed: tensor<i64>) -> tensor<8x32xf32> {
  %blocks.0.out = trace.checkpoint "blocks.0" policy = #trace.policy<save_ops = ["trace.matmul"]>
      ins(%in = %x : tensor<8x32xf32>, %gamma = %blocks.0.ln.weight : tensor<32xf32>, %beta = %blocks.0.ln.bias : tensor<32xf32>,
          %w1 = %blocks.0.fc1.weight : tensor<32x128xf32>, %b1 = %blocks.0.fc1.bias : tensor<128xf32>,
          %w2 = %blocks.0.fc2.weight : tensor<128x32xf32>, %b2 = %blocks.0.fc2.bias : tensor<32xf32>,
          %rng = %seed : tensor<i64>) -> tensor<8x32xf32> {
    // layer_norm over the last dim (eps = 1e-5)
    %sum = trace.reduce_sum %in dims = [1] keepdim : tensor<8x32xf32> -> tensor<8x1xf32>
    %inv_n = trace.full 3.125000e-02 : tensor<8x1xf32>
    %mean = trace.mul %sum, %inv_n : tensor<8x1xf32>
    %mean_b = trace.broadcast_in_dim %mean, dims = [0, 1] : tensor<8x1xf32> -> tensor<8x32xf32>
    %xc = trace.sub %in, %mean_b : tensor<8x32xf32>
    %sq = trace.mul %xc, %xc : tensor<8x32xf32>
    %sqsum = trace.reduce_sum %sq dims = [1] keepdim : tensor<8x32xf32> -> tensor<8x1xf32>
    %var = trace.mul %sqsum, %inv_n : tensor<8x1xf32>
    %eps = trace.full 9.99999974E-6 : tensor<8x1xf32>
    %var_eps = trace.add %var, %eps : tensor<8x1xf32>
    %rstd = trace.rsqrt %var_eps : tensor<8x1xf32>
    %rstd_b = trace.broadcast_in_dim %rstd, dims = [0, 1] : tensor<8x1xf32> -> tensor<8x32xf32>
    %xn = trace.mul %xc, %rstd_b : tensor<8x32xf32>
    %gamma_b = trace.broadcast_in_dim %gamma, dims = [1] : tensor<32xf32> -> tensor<8x32xf32>
    %beta_b = trace.broadcast_in_dim %beta, dims = [1] : tensor<32xf32> -> tensor<8x32xf32>
    %scaled = trace.mul %xn, %gamma_b : tensor<8x32xf32>
    %ln = trace.add %scaled, %beta_b {trace.name = "blocks.0.ln"} : tensor<8x32xf32>
    // fc1 + bias; the traced model multiplies the bias by alpha = 1
    %h0 = trace.matmul %ln, %w1 : tensor<8x32xf32>, tensor<32x128xf32> -> tensor<8x128xf32>
    %b1_b = trace.broadcast_in_dim %b1, dims = [1] : tensor<128xf32> -> tensor<8x128xf32>
    %alpha = trace.full 1.0 : tensor<8x128xf32>
    %b1_s = trace.mul %b1_b, %alpha : tensor<8x128xf32>
    %h = trace.add %h0, %b1_s {trace.name = "blocks.0.fc1"} : tensor<8x128xf32>
    // gelu, tanh approximation: 0.5 h (1 + tanh(sqrt(2/pi) (h + 0.044715 h^3)))
    %h2 = trace.mul %h, %h : tensor<8x128xf32>
    %h3 = trace.mul %h2, %h : tensor<8x128xf32>
    %c0 = trace.full 4.471500e-02 : tensor<8x128xf32>
    %t0 = trace.mul %h3, %c0 : tensor<8x128xf32>
    %t1 = trace.add %h, %t0 : tensor<8x128xf32>
    %c1 = trace.full 0.797884583 : tensor<8x128xf32>
    %t2 = trace.mul %t1, %c1 : tensor<8x128xf32>
    %t3 = trace.tanh %t2 : tensor<8x128xf32>
    %one = trace.full 1.0 : tensor<8x128xf32>
    %t4 = trace.add %t3, %one : tensor<8x128xf32>
    %half = trace.full 5.000000e-01 : tensor<8x128xf32>
    %t5 = trace.mul %h, %half : tensor<8x128xf32>
    %g = trace.mul %t5, %t4 {trace.name = "blocks.0.act"} : tensor<8x128xf32>
    // fc2 + bias; the traced model reshapes to the shape it already has
    %o0 = trace.matmul %g, %w2 : tensor<8x128xf32>, tensor<128x32xf32> -> tensor<8x32xf32>
    %b2_b = trace.broadcast_in_dim %b2, dims = [1] : tensor<32xf32> -> tensor<8x32xf32>
    %o1 = trace.add %o0, %b2_b : tensor<8x32xf32>
    %o = trace.reshape %o1 : tensor<8x32xf32> -> tensor<8x32xf32>
    // dropout(p = 0.1), training mode: keep where u >= p, scale by 1 / (1 - p)
    %u = trace.random_uniform %rng, offset = 0 : tensor<8x32xf32>
    %p = trace.full 1.000000e-01 : tensor<8x32xf32>
    %keep = trace.compare ge, %u, %p : tensor<8x32xf32>
    %scale = trace.full 1.11111116 : tensor<8x32xf32>
    %os = trace.mul %o, %scale : tensor<8x32xf32>
    %zero = trace.full 0.0 : tensor<8x32xf32>
    %dropped = trace.select %keep, %os, %zero : tensor<8x32xi1>, tensor<8x32xf32>
    // residual
    %r = trace.add %in, %dropped : tensor<8x32xf32>
    trace.yield %r : tensor<8x32xf32>
  }
  %blocks.1.out = trace.checkpoint "blocks.1" policy = #trace.policy<save_ops = ["trace.matmul"]>
      ins(%in = %blocks.0.out : tensor<8x32xf32>, %gamma = %blocks.1.ln.weight : tensor<32xf32>, %beta = %blocks.1.ln.bias : tensor<32xf32>,
          %w1 = %blocks.1.fc1.weight : tensor<32x128xf32>, %b1 = %blocks.1.fc1.bias : tensor<128xf32>,
          %w2 = %blocks.1.fc2.weight : tensor<128x32xf32>, %b2 = %blocks.1.fc2.bias : tensor<32xf32>,
          %rng = %seed : tensor<i64>) -> tensor<8x32xf32> {
    // layer_norm over the last dim (eps = 1e-5)
    %sum = trace.reduce_sum %in dims = [1] keepdim : tensor<8x32xf32> -> tensor<8x1xf32>
    %inv_n = trace.full 3.125000e-02 : tensor<8x1xf32>
    %mean = trace.mul %sum, %inv_n : tensor<8x1xf32>
    %mean_b = trace.broadcast_in_dim %mean, dims = [0, 1] : tensor<8x1xf32> -> tensor<8x32xf32>
    %xc = trace.sub %in, %mean_b : tensor<8x32xf32>
    %sq = trace.mul %xc, %xc : tensor<8x32xf32>
    %sqsum = trace.reduce_sum %sq dims = [1] keepdim : tensor<8x32xf32> -> tensor<8x1xf32>
    %var = trace.mul %sqsum, %inv_n : tensor<8x1xf32>
    %eps = trace.full 9.99999974E-6 : tensor<8x1xf32>
    %var_eps = trace.add %var, %eps : tensor<8x1xf32>
    %rstd = trace.rsqrt %var_eps : tensor<8x1xf32>
    %rstd_b = trace.broadcast_in_dim %rstd, dims = [0, 1] : tensor<8x1xf32> -> tensor<8x32xf32>
    %xn = trace.mul %xc, %rstd_b : tensor<8x32xf32>
    %gamma_b = trace.broadcast_in_dim %gamma, dims = [1] : tensor<32xf32> -> tensor<8x32xf32>
    %beta_b = trace.broadcast_in_dim %beta, dims = [1] : tensor<32xf32> -> tensor<8x32xf32>
    %scaled = trace.mul %xn, %gamma_b : tensor<8x32xf32>
    %ln = trace.add %scaled, %beta_b {trace.name = "blocks.1.ln"} : tensor<8x32xf32>
    // fc1 + bias; the traced model multiplies the bias by alpha = 1
    %h0 = trace.matmul %ln, %w1 : tensor<8x32xf32>, tensor<32x128xf32> -> tensor<8x128xf32>
    %b1_b = trace.broadcast_in_dim %b1, dims = [1] : tensor<128xf32> -> tensor<8x128xf32>
    %alpha = trace.full 1.0 : tensor<8x128xf32>
    %b1_s = trace.mul %b1_b, %alpha : tensor<8x128xf32>
    %h = trace.add %h0, %b1_s {trace.name = "blocks.1.fc1"} : tensor<8x128xf32>
    // gelu, tanh approximation: 0.5 h (1 + tanh(sqrt(2/pi) (h + 0.044715 h^3)))
    %h2 = trace.mul %h, %h : tensor<8x128xf32>
    %h3 = trace.mul %h2, %h : tensor<8x128xf32>
    %c0 = trace.full 4.471500e-02 : tensor<8x128xf32>
    %t0 = trace.mul %h3, %c0 : tensor<8x128xf32>
    %t1 = trace.add %h, %t0 : tensor<8x128xf32>
    %c1 = trace.full 0.797884583 : tensor<8x128xf32>
    %t2 = trace.mul %t1, %c1 : tensor<8x128xf32>
    %t3 = trace.tanh %t2 : tensor<8x128xf32>
    %one = trace.full 1.0 : tensor<8x128xf32>
    %t4 = trace.add %t3, %one : tensor<8x128xf32>
    %half = trace.full 5.000000e-01 : tensor<8x128xf32>
    %t5 = trace.mul %h, %half : tensor<8x128xf32>
    %g = trace.mul %t5, %t4 {trace.name = "blocks.1.act"} : tensor<8x128xf32>
    // fc2 + bias; the traced model reshapes to the shape it already has
    %o0 = trace.matmul %g, %w2 : tensor<8x128xf32>, tensor<128x32xf32> -> tensor<8x32xf32>
    %b2_b = trace.broadcast_in_dim %b2, dims = [1] : tensor<32xf32> -> tensor<8x32xf32>
    %o1 = trace.add %o0, %b2_b : tensor<8x32xf32>
    %o = trace.reshape %o1 : tensor<8x32xf32> -> tensor<8x32xf32>
    // dropout(p = 0.1), training mode: keep where u >= p, scale by 1 / (1 - p)
    %u = trace.random_uniform %rng, offset = 64 : tensor<8x32xf32>
    %p = trace.full 1.000000e-01 : tensor<8x32xf32>
    %keep = trace.compare ge, %u, %p : tensor<8x32xf32>
    %scale = trace.full 1.11111116 : tensor<8x32xf32>
    %os = trace.mul %o, %scale : tensor<8x32xf32>
    %zero = trace.full 0.0 : tensor<8x32xf32>
    %dropped = trace.select %keep, %os, %zero : tensor<8x32xi1>, tensor<8x32xf32>
    // residual
    %r = trace.add %in, %dropped : tensor<8x32xf32>
    trace.yield %r : tensor<8x32xf32>
  }
  return %blocks.1.out : tensor<8x32xf32>
}
