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

/// Adds one conversion pattern per trace op (or op family) rewriting it into
/// linalg, tensor, arith and math ops. Region ops are inlined.
void populateTraceToLinalgPatterns(RewritePatternSet &patterns);

/// Marks the trace dialect illegal and the dialects the patterns produce
/// legal.
void configureTraceToLinalgTarget(ConversionTarget &target);

} // namespace mlir::trace

#endif // TRACE_CONVERSION_TRACETOLINALG_TRACETOLINALG_H
