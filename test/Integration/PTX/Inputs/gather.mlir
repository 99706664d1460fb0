// An embedding, a gather along the last dim and a scatter_add, and their
// training step: the backward adds scatter_adds, which the GPU pipeline
// lowers densely (one reducing kernel each), and gathers.
func.func @gather_block(%w: tensor<50x16xf32>, %ids: tensor<12x16xi64>,
                        %cols: tensor<12x4xi32>, %base: tensor<12x16xf32>)
    -> tensor<f32> {
  %rows = trace.gather %w[%ids] dim = 0 : tensor<50x16xf32>, tensor<12x16xi64> -> tensor<12x16xf32>
  %t = trace.tanh %rows : tensor<12x16xf32>
  %picked = trace.gather %t[%cols] dim = 1 : tensor<12x16xf32>, tensor<12x4xi32> -> tensor<12x4xf32>
  %s = trace.scatter_add %picked into %base[%cols] dim = 1 : tensor<12x4xf32>, tensor<12x4xi32> -> tensor<12x16xf32>
  %sq = trace.mul %s, %s : tensor<12x16xf32>
  %r = trace.reduce_sum %sq dims = [0, 1] : tensor<12x16xf32> -> tensor<f32>
  return %r : tensor<f32>
}
