//===- TraceToLinalg.h - trace to linalg/tensor/arith/math ------*- C++ -*-===//
//
// The patterns of `trace-to-linalg`, for pipelines that run them together
// with patterns of their own in one conversion.
//
//===----------------------------------------------------------------------===//

#ifndef TRACE_CONVERSION_TRACETOLINALG_TRACETOLINALG_H
#define TRACE_CONVERSION_TRACETOLINALG_TRACETOLINALG_H

namespace mlir {
class ConversionTarget;
class RewritePatternSet;
} // namespace mlir

namespace mlir::trace {

/// How `trace.convolution` lowers (the pass's `convolutions` option).
enum class ConvolutionLowering {
  /// One linalg.generic over the output and the window: the export form.
  Direct,
  /// An im2col copy (a linalg.generic) and a linalg.matmul or
  /// batch_matmul, for a BLAS or cuBLAS to run.
  Im2col,
  /// Im2col where the matmul has work enough for a BLAS, else direct.
  Auto,
};

/// How `trace.scatter_add` lowers (the pass's `scatters` option).
enum class ScatterLowering {
  /// scf.for loops over the indices, inserting into the running result:
  /// work in the updates' size.
  Loops,
  /// One linalg.generic reducing over the indexed dim: no loop-carried
  /// tensor (one GPU kernel), work in the updates' size times that dim's.
  Dense,
};

/// Adds one conversion pattern per trace op (or op family) rewriting it into
/// linalg, tensor, arith and math ops. Region ops are inlined.
void populateTraceToLinalgPatterns(
    RewritePatternSet &patterns,
    ConvolutionLowering convolutions = ConvolutionLowering::Direct,
    ScatterLowering scatters = ScatterLowering::Loops);

/// Marks the trace dialect illegal and the dialects the patterns produce
/// legal.
void configureTraceToLinalgTarget(ConversionTarget &target);

} // namespace mlir::trace

#endif // TRACE_CONVERSION_TRACETOLINALG_TRACETOLINALG_H
