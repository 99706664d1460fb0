//===- PopulatePatterns.h - trace-to-linalg families ------------*- C++ -*-===//
//
// One `populate...Patterns` entry point per family of `trace-to-linalg`
// patterns, each defined in the file of its name; populateTraceToLinalgPatterns
// calls them all. Private to lib/Conversion/TraceToLinalg.
//
//===----------------------------------------------------------------------===//

#ifndef TRACE_LIB_CONVERSION_TRACETOLINALG_POPULATEPATTERNS_H
#define TRACE_LIB_CONVERSION_TRACETOLINALG_POPULATEPATTERNS_H

#include "trace/Conversion/TraceToLinalg/TraceToLinalg.h"

namespace mlir::trace::trace_to_linalg {

/// Elementwise.cpp: unary and binary ops, compare, select and convert.
void populateElementwisePatterns(RewritePatternSet &patterns);

/// Sources.cpp: constant, full, iota and random_uniform.
void populateSourcePatterns(RewritePatternSet &patterns);

/// Shape.cpp: broadcast_in_dim, reshape, transpose, slice, concatenate and
/// reverse.
void populateShapePatterns(RewritePatternSet &patterns);

/// Reduction.cpp: reduce_sum and reduce_max.
void populateReductionPatterns(RewritePatternSet &patterns);

/// Linear.cpp: matmul, and convolution lowered as `convolutions` says.
void populateLinearPatterns(RewritePatternSet &patterns,
                            ConvolutionLowering convolutions);

/// Indexing.cpp: gather, and scatter_add lowered as `scatters` says.
void populateIndexingPatterns(RewritePatternSet &patterns,
                              ScatterLowering scatters);

/// Structural.cpp: optimization_barrier, stop_gradient, forward_end and the
/// region ops (checkpoint, fusion).
void populateStructuralPatterns(RewritePatternSet &patterns);

} // namespace mlir::trace::trace_to_linalg

#endif // TRACE_LIB_CONVERSION_TRACETOLINALG_POPULATEPATTERNS_H
