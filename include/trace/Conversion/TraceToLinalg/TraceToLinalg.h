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

/// Adds one conversion pattern per trace op (or op family) rewriting it into
/// linalg, tensor, arith and math ops. Region ops are inlined.
void populateTraceToLinalgPatterns(
    RewritePatternSet &patterns,
    ConvolutionLowering convolutions = ConvolutionLowering::Direct);

/// Marks the trace dialect illegal and the dialects the patterns produce
/// legal.
void configureTraceToLinalgTarget(ConversionTarget &target);

} // namespace mlir::trace

#endif // TRACE_CONVERSION_TRACETOLINALG_TRACETOLINALG_H
