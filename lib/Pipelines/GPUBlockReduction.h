//===- GPUBlockReduction.h - a reduction as one block per output -*- C++ -*-===//
//
// Part of trace-gpu-map-linalg (TraceGPUMapLinalg.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef TRACE_PIPELINES_GPUBLOCKREDUCTION_H
#define TRACE_PIPELINES_GPUBLOCKREDUCTION_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::trace {

/// Replaces `op`, a linalg.generic on buffers with its parallel dims first,
/// by a gpu.launch of one block per output element whose threads (at most
/// `maxThreads`, a multiple of 32 no larger than the reduced extent) stride
/// over the reduction and combine their partials with gpu.all_reduce.
/// Fails, changing nothing, unless the reduced extent is at least 32, the
/// shapes are static, the op is no contraction, and every accumulator is
/// updated by one commutative combiner that gpu.all_reduce has (add, mul,
/// min/max, and/or/xor) on a 32- or 64-bit value, from a value that reads
/// no accumulator; outputs written at every iteration point are allowed
/// beside them.
FailureOr<gpu::LaunchOp> lowerToBlockReduction(linalg::GenericOp op,
                                               int64_t maxThreads,
                                               RewriterBase &rewriter);

} // namespace mlir::trace

#endif // TRACE_PIPELINES_GPUBLOCKREDUCTION_H
