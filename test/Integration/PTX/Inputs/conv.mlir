// A convolution block and its training step: a grouped stride-2 convolution
// with a bias and a relu, a depthwise one, and a cropping (negative pad)
// 1-D view of the result. The backward adds input-dilated convolutions (the
// transposed ones), correlations and reverses.
func.func @conv_block(%x: tensor<2x4x9x9xf32>, %w: tensor<8x2x3x3xf32>,
                      %b: tensor<8xf32>, %dw: tensor<8x1x3x3xf32>)
    -> tensor<f32> {
  %c = trace.convolution %x, %w strides = [2, 2] padding = [1, 1, 1, 1]
         lhs_dilation = [1, 1] rhs_dilation = [1, 1] groups = 2
       : tensor<2x4x9x9xf32>, tensor<8x2x3x3xf32> -> tensor<2x8x5x5xf32>
  %bb = trace.broadcast_in_dim %b, dims = [1] : tensor<8xf32> -> tensor<2x8x5x5xf32>
  %cb = trace.add %c, %bb : tensor<2x8x5x5xf32>
  %z = trace.full 0.0 : tensor<2x8x5x5xf32>
  %r = trace.maximum %cb, %z : tensor<2x8x5x5xf32>
  %d = trace.convolution %r, %dw strides = [1, 1] padding = [1, -1, 1, 1]
         lhs_dilation = [1, 1] rhs_dilation = [1, 1] groups = 8
       : tensor<2x8x5x5xf32>, tensor<8x1x3x3xf32> -> tensor<2x8x3x5xf32>
  %sq = trace.mul %d, %d : tensor<2x8x3x5xf32>
  %s = trace.reduce_sum %sq dims = [0, 1, 2, 3] : tensor<2x8x3x5xf32> -> tensor<f32>
  return %s : tensor<f32>
}
