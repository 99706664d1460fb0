// The export format: trace-to-linalg's output is read by stock mlir-opt
// (no trace library loaded) and lowers with upstream passes alone to the
// LLVM dialect. The input is a small MLP block with dropout and a softmax-
// style row reduction inside a checkpoint region, plus the ops an MLP does
// not use, so that every lowering's output goes through bufferization and
// LLVM conversion.
//
// RUN: trace-opt %s --trace-to-linalg \
// RUN: | mlir-opt-stock --one-shot-bufferize="bufferize-function-boundaries" \
// RUN:     --convert-linalg-to-loops --convert-scf-to-cf --expand-strided-metadata \
// RUN:     --lower-affine --convert-math-to-llvm --convert-math-to-libm \
// RUN:     --convert-arith-to-llvm --convert-index-to-llvm \
// RUN:     --finalize-memref-to-llvm --convert-func-to-llvm --convert-cf-to-llvm \
// RUN:     --reconcile-unrealized-casts \
// RUN: | FileCheck %s --implicit-check-not=trace. --implicit-check-not=linalg. \
// RUN:     --implicit-check-not=tensor. --implicit-check-not=arith. \
// RUN:     --implicit-check-not=math. --implicit-check-not=memref. \
// RUN:     --implicit-check-not=bufferization. --implicit-check-not=scf. \
// RUN:     --implicit-check-not=cf. --implicit-check-not=func.func \
// RUN:     --implicit-check-not=unrealized_conversion_cast

// erf has no LLVM intrinsic: math-to-libm calls libm (f32 erff; the f16 erf
// was widened to f32 by the conversion).
// CHECK-DAG: llvm.func @erff(f32) -> f32
// CHECK-DAG: llvm.func @malloc
// CHECK-LABEL: llvm.func @mlp_block
// CHECK-DAG: llvm.intr.tanh
// CHECK-DAG: llvm.intr.maximum
// CHECK-DAG: llvm.fcmp "oge"
// CHECK-DAG: llvm.select
// CHECK-DAG: llvm.uitofp
// CHECK-DAG: llvm.intr.exp
// CHECK: llvm.return
// CHECK-LABEL: llvm.func @other_ops
// CHECK-DAG: llvm.call @erff
// CHECK-DAG: llvm.fptrunc
// CHECK-DAG: llvm.fpext
// CHECK-DAG: llvm.sitofp
// CHECK-DAG: llvm.intr.pow
// CHECK-DAG: llvm.intr.sqrt
// CHECK-DAG: llvm.sdiv
// CHECK: llvm.return
// CHECK-LABEL: llvm.func @conv_ops
// CHECK-DAG: llvm.fmul
// CHECK-DAG: llvm.fadd
// CHECK: llvm.return

func.func @mlp_block(%x: tensor<8x32xf32>, %w1: tensor<32x64xf32>,
                     %b1: tensor<64xf32>, %w2: tensor<64x32xf32>,
                     %seed: tensor<i64>) -> (tensor<8x32xf32>, tensor<8x1xf32>) {
  %out = trace.checkpoint "blocks.0" policy = #trace.policy<save_ops = ["trace.matmul"]>
      ins(%in = %x : tensor<8x32xf32>, %w = %w1 : tensor<32x64xf32>,
          %b = %b1 : tensor<64xf32>, %v = %w2 : tensor<64x32xf32>,
          %rng = %seed : tensor<i64>) -> tensor<8x32xf32> {
    // fc1 + bias, tanh
    %h0 = trace.matmul %in, %w : tensor<8x32xf32>, tensor<32x64xf32> -> tensor<8x64xf32>
    %bb = trace.broadcast_in_dim %b, dims = [1] : tensor<64xf32> -> tensor<8x64xf32>
    %h1 = trace.add %h0, %bb {trace.name = "blocks.0.fc1"} : tensor<8x64xf32>
    %h = trace.tanh %h1 : tensor<8x64xf32>
    // dropout(p = 0.1)
    %u = trace.random_uniform %rng, offset = 0 : tensor<8x64xf32>
    %p = trace.full 1.000000e-01 : tensor<8x64xf32>
    %keep = trace.compare ge, %u, %p : tensor<8x64xf32>
    %scale = trace.full 1.11111116 : tensor<8x64xf32>
    %hs = trace.mul %h, %scale : tensor<8x64xf32>
    %zero = trace.full 0.0 : tensor<8x64xf32>
    %d = trace.select %keep, %hs, %zero : tensor<8x64xi1>, tensor<8x64xf32>
    // fc2 and residual
    %o = trace.matmul %d, %v : tensor<8x64xf32>, tensor<64x32xf32> -> tensor<8x32xf32>
    %r = trace.add %in, %o : tensor<8x32xf32>
    trace.yield %r : tensor<8x32xf32>
  }
  // log-sum-exp of each row, stabilized by the row max
  %m = trace.reduce_max %out dims = [1] keepdim : tensor<8x32xf32> -> tensor<8x1xf32>
  %mb = trace.broadcast_in_dim %m, dims = [0, 1] : tensor<8x1xf32> -> tensor<8x32xf32>
  %c = trace.sub %out, %mb : tensor<8x32xf32>
  %e = trace.exp %c : tensor<8x32xf32>
  %s = trace.reduce_sum %e dims = [1] keepdim : tensor<8x32xf32> -> tensor<8x1xf32>
  %l = trace.log %s : tensor<8x1xf32>
  %lse = trace.add %l, %m : tensor<8x1xf32>
  return %out, %lse : tensor<8x32xf32>, tensor<8x1xf32>
}

func.func @other_ops(%a: tensor<2x3x4xf16>, %b: tensor<2x3x4xf16>, %i: tensor<6xi32>,
                     %k: tensor<2x4xbf16>) -> (tensor<4x2x3xf16>, tensor<2x3x2xf16>,
                     tensor<3x2xi32>, tensor<2x4xbf16>, tensor<2x6x4xf16>, tensor<2x4xf64>,
                     tensor<2x3x3xf16>, tensor<2x1xbf16>) {
  %0 = trace.erf %a : tensor<2x3x4xf16>
  %1 = trace.pow %0, %b : tensor<2x3x4xf16>
  %2 = trace.transpose %1, perm = [2, 0, 1] : tensor<2x3x4xf16> -> tensor<4x2x3xf16>
  %3 = trace.slice %a [0:2, 0:3, 1:4:2] : tensor<2x3x4xf16> -> tensor<2x3x2xf16>
  %4 = trace.iota dim = 0 : tensor<6xi32>
  %5 = trace.div %i, %4 : tensor<6xi32>
  %6 = trace.reshape %5 : tensor<6xi32> -> tensor<3x2xi32>
  %7 = trace.sqrt %k : tensor<2x4xbf16>
  %8 = trace.logistic %7 : tensor<2x4xbf16>
  %9 = trace.concatenate %a, %b dim = 1 : (tensor<2x3x4xf16>, tensor<2x3x4xf16>) -> tensor<2x6x4xf16>
  %10 = trace.convert %8 : tensor<2x4xbf16> -> tensor<2x4xf64>
  %11 = trace.iota dim = 1 : tensor<2x4xf64>
  %12 = trace.maximum %10, %11 : tensor<2x4xf64>
  // half-precision matmul and sum accumulate in f32
  %13 = trace.transpose %a, perm = [0, 2, 1] : tensor<2x3x4xf16> -> tensor<2x4x3xf16>
  %14 = trace.matmul %b, %13 : tensor<2x3x4xf16>, tensor<2x4x3xf16> -> tensor<2x3x3xf16>
  %15 = trace.reduce_sum %8 dims = [1] keepdim : tensor<2x4xbf16> -> tensor<2x1xbf16>
  return %2, %3, %6, %8, %9, %12, %14, %15 : tensor<4x2x3xf16>, tensor<2x3x2xf16>, tensor<3x2xi32>, tensor<2x4xbf16>, tensor<2x6x4xf16>, tensor<2x4xf64>, tensor<2x3x3xf16>, tensor<2x1xbf16>
}

// A grouped convolution with input dilation, padding and a crop, and a
// reverse: strided insert_slice, extract_slice, expand/collapse_shape and
// generics with non-permutation maps.
func.func @conv_ops(%x: tensor<2x4x8x8xf32>, %w: tensor<6x2x3x3xf32>)
    -> (tensor<2x6x4x6xf32>, tensor<6x2x3x3xf32>) {
  %r = trace.convolution %x, %w strides = [2, 2] padding = [1, 1, -1, 0]
         lhs_dilation = [1, 2] rhs_dilation = [1, 1] groups = 2
       : tensor<2x4x8x8xf32>, tensor<6x2x3x3xf32> -> tensor<2x6x4x6xf32>
  %f = trace.reverse %w dims = [2, 3] : tensor<6x2x3x3xf32>
  return %r, %f : tensor<2x6x4x6xf32>, tensor<6x2x3x3xf32>
}
