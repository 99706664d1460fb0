// convolution -> the input dilated and padded (a zero fill, a strided
// tensor.insert_slice, a tensor.extract_slice where a pad is negative), the
// channels split into groups (tensor.expand_shape), one linalg.generic
// over (n, g, o, c, kernel..., spatial...) (the output's positions
// innermost) whose input map is i * stride + k * dilation, collapsed back;
// f16/bf16 accumulate in f32.
// reverse -> a linalg.generic copy whose input map counts the reversed
// dims down.
// RUN: trace-opt %s --trace-to-linalg --split-input-file | FileCheck %s
// RUN: trace-opt %s --trace-to-linalg=convolutions=im2col --split-input-file | FileCheck %s --check-prefix=IM2COL
// RUN: not trace-opt %s --trace-to-linalg=convolutions=fft --split-input-file 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not trace-opt %s --trace-cpu-pipeline=convolutions=fft 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: for the --convolutions option: Cannot find option named 'fft'!

// CHECK-DAG: #[[IN:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d3, d6 * 2 + d4, d7 * 2 + d5)>
// CHECK-DAG: #[[KER:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d1, d2, d3, d4, d5)>
// CHECK-DAG: #[[OUT:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2, d6, d7)>
// CHECK-LABEL: func @grouped
// CHECK-SAME: (%[[X:.*]]: tensor<2x4x8x8xf32>, %[[W:.*]]: tensor<6x2x3x3xf32>)
// CHECK:      %[[E:.*]] = tensor.empty() : tensor<2x4x10x15xf32>
// CHECK-NEXT: %[[Z:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[E]] : tensor<2x4x10x15xf32>)
// CHECK-NEXT: %[[D:.*]] = tensor.insert_slice %[[X]] into %[[Z]][0, 0, 1, 0] [2, 4, 8, 8] [1, 1, 1, 2]
// CHECK-NEXT: %[[C:.*]] = tensor.extract_slice %[[D]][0, 0, 0, 1] [2, 4, 10, 14] [1, 1, 1, 1] : tensor<2x4x10x15xf32> to tensor<2x4x10x14xf32>
// CHECK-NEXT: %[[XG:.*]] = tensor.expand_shape %[[C]] {{\[}}[0], [1, 2], [3], [4]] output_shape [2, 2, 2, 10, 14]
// CHECK-NEXT: %[[WG:.*]] = tensor.expand_shape %[[W]] {{\[}}[0, 1], [2], [3], [4]] output_shape [2, 3, 2, 3, 3]
// CHECK:      %[[INIT:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<2x2x3x4x6xf32>)
// CHECK-NEXT: %[[G:.*]] = linalg.generic {indexing_maps = [#[[IN]], #[[KER]], #[[OUT]]], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction", "reduction", "parallel", "parallel"]} ins(%[[XG]], %[[WG]] : tensor<2x2x2x10x14xf32>, tensor<2x3x2x3x3xf32>) outs(%[[INIT]] : tensor<2x2x3x4x6xf32>)
// CHECK-NEXT: ^bb0(%[[A:.*]]: f32, %[[B:.*]]: f32, %[[ACC:.*]]: f32):
// CHECK-NEXT:   %[[M:.*]] = arith.mulf %[[A]], %[[B]] : f32
// CHECK-NEXT:   %[[S:.*]] = arith.addf %[[ACC]], %[[M]] : f32
// CHECK-NEXT:   linalg.yield %[[S]] : f32
// CHECK:      %[[R:.*]] = tensor.collapse_shape %[[G]] {{\[}}[0], [1, 2], [3], [4]] : tensor<2x2x3x4x6xf32> into tensor<2x6x4x6xf32>
// CHECK-NEXT: return %[[R]]
// im2col: every window copied out, cols[g, c, kh, kw, n, oh, ow] (all
// parallel), collapsed to [G, C/G * K, N * OH * OW]; the kernel collapsed
// to [G, O/G, C/G * K]; one batch_matmul over the groups; [G, O/G, N, ...]
// transposed to [N, G, O/G, ...] and collapsed to [N, O, ...].
// IM2COL-DAG: #[[COLS_IN:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d0, d1, d5 * 2 + d2, d6 * 2 + d3)>
// IM2COL-DAG: #[[COLS_OUT:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3, d4, d5, d6)>
// IM2COL-LABEL: func @grouped
// IM2COL:      %[[XG:.*]] = tensor.expand_shape %{{.*}} {{\[}}[0], [1, 2], [3], [4]] output_shape [2, 2, 2, 10, 14]
// IM2COL-NEXT: %[[WG:.*]] = tensor.expand_shape %{{.*}} {{\[}}[0, 1], [2], [3], [4]] output_shape [2, 3, 2, 3, 3]
// IM2COL-NEXT: %[[E:.*]] = tensor.empty() : tensor<2x2x3x3x2x4x6xf32>
// IM2COL-NEXT: %[[COLS:.*]] = linalg.generic {indexing_maps = [#[[COLS_IN]], #[[COLS_OUT]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%[[XG]] : tensor<2x2x2x10x14xf32>) outs(%[[E]] : tensor<2x2x3x3x2x4x6xf32>)
// IM2COL:      %[[CM:.*]] = tensor.collapse_shape %[[COLS]] {{\[}}[0], [1, 2, 3], [4, 5, 6]] : tensor<2x2x3x3x2x4x6xf32> into tensor<2x18x48xf32>
// IM2COL-NEXT: %[[WM:.*]] = tensor.collapse_shape %[[WG]] {{\[}}[0], [1], [2, 3, 4]] : tensor<2x3x2x3x3xf32> into tensor<2x3x18xf32>
// IM2COL:      %[[P:.*]] = linalg.batch_matmul ins(%[[WM]], %[[CM]] : tensor<2x3x18xf32>, tensor<2x18x48xf32>) outs(%{{.*}} : tensor<2x3x48xf32>)
// IM2COL-NEXT: %[[PE:.*]] = tensor.expand_shape %[[P]] {{\[}}[0], [1], [2, 3, 4]] output_shape [2, 3, 2, 4, 6]
// IM2COL:      %[[T:.*]] = linalg.transpose ins(%[[PE]] : tensor<2x3x2x4x6xf32>) outs(%{{.*}} : tensor<2x2x3x4x6xf32>) permutation = [2, 0, 1, 3, 4]
// IM2COL-NEXT: %[[R:.*]] = tensor.collapse_shape %[[T]] {{\[}}[0], [1, 2], [3], [4]] : tensor<2x2x3x4x6xf32> into tensor<2x6x4x6xf32>
// IM2COL-NEXT: return %[[R]]
func.func @grouped(%x: tensor<2x4x8x8xf32>, %w: tensor<6x2x3x3xf32>) -> tensor<2x6x4x6xf32> {
  %r = trace.convolution %x, %w strides = [2, 2] padding = [1, 1, -1, 0] lhs_dilation = [1, 2] rhs_dilation = [1, 1] groups = 2 : tensor<2x4x8x8xf32>, tensor<6x2x3x3xf32> -> tensor<2x6x4x6xf32>
  return %r : tensor<2x6x4x6xf32>
}

// -----

// No padding or dilation: the input is read as it is. A kernel dilation of
// 3 in the map; bf16 extended to an f32 accumulator and rounded once.
// CHECK-DAG: #[[IN:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d3, d5 + d4 * 3)>
// CHECK-LABEL: func @conv1d_bf16
// CHECK-SAME: (%[[X:.*]]: tensor<1x6x12xbf16>, %[[W:.*]]: tensor<3x2x2xbf16>)
// CHECK-NOT:  tensor.insert_slice
// CHECK:      %[[XG:.*]] = tensor.expand_shape %[[X]] {{\[}}[0], [1, 2], [3]] output_shape [1, 3, 2, 12]
// CHECK:      linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<1x3x1x9xf32>)
// CHECK:      linalg.generic {indexing_maps = [#[[IN]], {{.*}}], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction", "parallel"]}
// CHECK:        arith.extf %{{.*}} : bf16 to f32
// CHECK-NEXT:   arith.extf %{{.*}} : bf16 to f32
// CHECK-NEXT:   arith.mulf
// CHECK-NEXT:   arith.addf
// CHECK:      tensor.collapse_shape %{{.*}} {{\[}}[0], [1, 2], [3]] : tensor<1x3x1x9xf32> into tensor<1x3x9xf32>
// CHECK:      arith.truncf %{{.*}} : f32 to bf16
// bf16 into an f32 product, rounded once.
// IM2COL-LABEL: func @conv1d_bf16
// IM2COL:       linalg.batch_matmul ins(%{{.*}}, %{{.*}} : tensor<3x1x4xbf16>, tensor<3x4x9xbf16>) outs(%{{.*}} : tensor<3x1x9xf32>)
// IM2COL:       arith.truncf %{{.*}} : f32 to bf16
func.func @conv1d_bf16(%x: tensor<1x6x12xbf16>, %w: tensor<3x2x2xbf16>) -> tensor<1x3x9xbf16> {
  %r = trace.convolution %x, %w strides = [1] padding = [0, 0] lhs_dilation = [1] rhs_dilation = [3] groups = 3 : tensor<1x6x12xbf16>, tensor<3x2x2xbf16> -> tensor<1x3x9xbf16>
  return %r : tensor<1x3x9xbf16>
}

// -----

// One group: a plain linalg.matmul of [O, C * K] and [C * K, N * OW].
// IM2COL-LABEL: func @one_group
// IM2COL:       linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x15xf32>, tensor<15x8xf32>) outs(%{{.*}} : tensor<4x8xf32>)
// IM2COL:       linalg.transpose ins(%{{.*}} : tensor<1x4x2x4xf32>) outs(%{{.*}} : tensor<2x1x4x4xf32>) permutation = [2, 0, 1, 3]
func.func @one_group(%x: tensor<2x3x10xf32>, %w: tensor<4x3x5xf32>) -> tensor<2x4x4xf32> {
  %r = trace.convolution %x, %w strides = [2] padding = [1, 1] lhs_dilation = [1] rhs_dilation = [1] groups = 1 : tensor<2x3x10xf32>, tensor<4x3x5xf32> -> tensor<2x4x4xf32>
  return %r : tensor<2x4x4xf32>
}

// -----

// CHECK-DAG: #[[REV:.*]] = affine_map<(d0, d1, d2) -> (d0, -d1 + 3, -d2 + 4)>
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-LABEL: func @reverse
// CHECK: linalg.generic {indexing_maps = [#[[REV]], #[[ID]]], iterator_types = ["parallel", "parallel", "parallel"]}
// CHECK-NEXT: ^bb0(%[[IN:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:   linalg.yield %[[IN]] : f32
func.func @reverse(%x: tensor<2x4x5xf32>) -> tensor<2x4x5xf32> {
  %r = trace.reverse %x dims = [1, 2] : tensor<2x4x5xf32>
  return %r : tensor<2x4x5xf32>
}
