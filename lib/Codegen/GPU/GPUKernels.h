//===- GPUKernels.h - kernel forms of trace-gpu-map-linalg ------*- C++ -*-===//
//
// The kernels trace-gpu-map-linalg (TraceGPUMapLinalg.cpp) forms beyond
// one thread per iteration point: block reductions (GPUBlockReduction.cpp)
// and vectorized elementwise kernels (GPUVectorize.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef TRACE_PIPELINES_GPUKERNELS_H
#define TRACE_PIPELINES_GPUKERNELS_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::trace {

/// The row-major indices of `linear` in an iteration space of static
/// `ranges` (affine.delinearize_index; none for an empty space).
SmallVector<Value> delinearizeStatic(OpBuilder &b, Location loc, Value linear,
                                     ArrayRef<int64_t> ranges);

/// The operand indices `map` gives at iteration point `point` (a dim
/// result is the point's index itself, anything else an affine.apply).
SmallVector<Value> indicesAt(OpBuilder &b, Location loc, AffineMap map,
                             ArrayRef<Value> point);

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

/// Replaces `op`, an all-parallel linalg.generic on identity-layout
/// buffers whose outputs are read and written in element order, by a 1-D
/// scf.parallel in which each iteration handles W consecutive elements (W
/// = 16 bytes / the widest element read or written in order): one vector
/// load per such operand and one vector store per output when all those
/// buffers are 16-byte aligned at run time, element by element otherwise.
/// Other operands (broadcasts, transposes) are loaded per element. Fails,
/// changing nothing, unless shapes are static and the element count is a
/// multiple of W and at least 32 W.
FailureOr<scf::ParallelOp> lowerToVectorizedElementwise(linalg::GenericOp op,
                                                        RewriterBase &rewriter);

} // namespace mlir::trace

#endif // TRACE_PIPELINES_GPUKERNELS_H
