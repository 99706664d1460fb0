//===- TraceFuseElementwiseLinalg.cpp - recompute-free fusion -----------===//
//
// Upstream's elementwise fusion patterns with a control function that
// admits fusions that recompute nothing, and a few that recompute cheap
// work to keep a buffer from being written. See the pass description.
//
//===----------------------------------------------------------------------===//

#include "trace/Codegen/Common/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#define DEBUG_TYPE "trace-fuse-elementwise-linalg"

namespace mlir::trace {
#define GEN_PASS_DEF_TRACEFUSEELEMENTWISEPASS
#include "trace/Codegen/Common/Passes.h.inc"
} // namespace mlir::trace

using namespace mlir;

namespace {

/// Whether `op` only copies its one input (a broadcast, or a copy through a
/// permutation): in a reader it is an index computation, not a pass over
/// memory, so it may be fused into every reader.
bool isPureCopy(linalg::GenericOp op) {
  Block &body = op.getRegion().front();
  return op.getNumDpsInputs() == 1 && op.getNumDpsInits() == 1 &&
         llvm::hasSingleElement(body) &&
         body.getTerminator()->getOperand(0) == body.getArgument(0);
}

/// Whether `op` computes a boolean mask in at most two ops (a compare): it
/// is recomputed in every reader, broadcast reads included. Stored, an i1
/// buffer holds a byte per element that vector code loads one at a time
/// and assembles into a mask register (attention's causal mask, read
/// through a broadcast, made its select the slowest kernel of a GPT step);
/// recomputed, it is one compare per element.
bool isCheapMask(linalg::GenericOp op) {
  Block &body = op.getRegion().front();
  return llvm::all_of(op->getResultTypes(),
                      [](Type type) {
                        return getElementTypeOrSelf(type).isInteger(1);
                      }) &&
         body.getOperations().size() <= 3 &&
         llvm::all_of(body.without_terminator(),
                      [](Operation &op) { return isMemoryEffectFree(&op); });
}

/// Whether `map` (of a generic with `kept` leading parallel loops, then
/// only reduction loops) reads a buffer of `type` at every iteration point
/// (the identity), or once per kept index (the kept dims in order, and
/// constant 0 for dims of size 1): the two kinds of operand
/// trace-vectorize-reductions loads row by row.
bool isRowReductionMap(AffineMap map, ShapedType type, unsigned kept) {
  if (map.isIdentity())
    return true;
  unsigned next = 0;
  for (auto [i, result] : llvm::enumerate(map.getResults())) {
    if (auto constant = dyn_cast<AffineConstantExpr>(result)) {
      if (constant.getValue() != 0 || type.getDimSize(i) != 1)
        return false;
      continue;
    }
    auto dim = dyn_cast<AffineDimExpr>(result);
    if (!dim || dim.getPosition() != next++)
      return false;
  }
  return next == kept;
}

/// The leading parallel loops of `generic` if the rest are reductions and
/// there is at least one; none otherwise.
std::optional<unsigned> keptLoops(linalg::GenericOp generic) {
  auto iterators = generic.getIteratorTypesArray();
  unsigned kept = 0;
  while (kept < iterators.size() &&
         iterators[kept] == utils::IteratorType::parallel)
    ++kept;
  if (kept == iterators.size())
    return std::nullopt;
  for (unsigned i = kept; i < iterators.size(); ++i)
    if (iterators[i] != utils::IteratorType::reduction)
      return std::nullopt;
  return kept;
}

/// Whether `producer` (all-parallel, read by `consumer`, a row reduction,
/// at every iteration point) may be fused into it and leave a reduction
/// trace-vectorize-reductions still vectorizes: each of its inputs is read
/// per point or per row, and its payload is arith and math ops.
bool fusesIntoRowReduction(linalg::GenericOp producer,
                           linalg::GenericOp consumer, OpOperand *operand) {
  std::optional<unsigned> kept = keptLoops(consumer);
  if (!kept || !consumer.getMatchingIndexingMap(operand).isIdentity() ||
      !producer.getIndexingMapMatchingResult(
                   cast<OpResult>(operand->get()))
           .isIdentity())
    return false;
  // Inputs as trace-vectorize-reductions loads them: per point or per row,
  // of whole power-of-two bytes (an i1 buffer is bytes; vectors pack bits).
  for (OpOperand *input : producer.getDpsInputOperands()) {
    auto type = dyn_cast<ShapedType>(input->get().getType());
    if (!type || !type.getElementType().isIntOrFloat())
      return false;
    unsigned bits = type.getElementType().getIntOrFloatBitWidth();
    if (bits < 8 || !llvm::isPowerOf2_32(bits) ||
        !isRowReductionMap(producer.getMatchingIndexingMap(input), type,
                           *kept))
      return false;
  }
  return llvm::all_of(
      producer.getRegion().front().without_terminator(), [](Operation &op) {
        return isa_and_nonnull<arith::ArithDialect, math::MathDialect>(
                   op.getDialect()) &&
               op.getNumRegions() == 0 && isMemoryEffectFree(&op);
      });
}

/// Most ops (besides the yield) a producer with several readers may have
/// to be computed again in each of them.
constexpr size_t kMaxSharedProducerOps = 8;

/// Whether `generic` reads `value` only through permutations: each
/// element once per iteration space point.
bool readsElementsOnce(linalg::GenericOp generic, Value value) {
  return llvm::all_of(generic->getOpOperands(), [&](OpOperand &operand) {
    return operand.get() != value ||
           generic.getMatchingIndexingMap(&operand).isPermutation();
  });
}

/// Whether `producer`, read by several generics, is better computed again
/// in each: a result of a few ops that every reader reads elementwise.
/// Fused into all of them, it is never written out. One trace.fusion with
/// two results (GELU's output and its gradient, computed together from the
/// pre-activation) otherwise wrote each intermediate both use to a buffer
/// of its own: five of 4 MB in a recomputed MLP's backward.
bool isCheapShared(linalg::GenericOp producer, bool intoReductions) {
  Block &body = producer.getRegion().front();
  if (producer->getNumResults() != 1 ||
      body.getOperations().size() > kMaxSharedProducerOps + 1 ||
      !llvm::all_of(body.without_terminator(),
                    [](Operation &op) { return isMemoryEffectFree(&op); }))
    return false;
  Value result = producer->getResult(0);
  return llvm::all_of(result.getUses(), [&](OpOperand &use) {
    auto reader = dyn_cast<linalg::GenericOp>(use.getOwner());
    if (!reader || llvm::is_contained(reader.getDpsInits(), result) ||
        !readsElementsOnce(reader, result) ||
        !linalg::areElementwiseOpsFusable(&use))
      return false;
    if (reader.getNumParallelLoops() == reader.getNumLoops())
      return true;
    return intoReductions ? fusesIntoRowReduction(producer, reader, &use)
                          : keptLoops(reader).has_value();
  });
}

/// Fuse `operand`'s producer into its consumer only if the producer is an
/// all-parallel generic used once (or a pure copy, see above) and the
/// consumer, also a generic, reads each of its elements once. A broadcast
/// that several generics read is then never written out: trace-fuse
/// copies it into each fusion, and the CSE after the fusions are inlined
/// merges the copies again. A cheap mask (above) fuses into every reader.
/// With `sharedBudget`, so does a cheap shared producer (above), while
/// the ops so copied stay within the budget.
bool fuses(OpOperand *operand, int64_t *sharedBudget, bool intoReductions) {
  auto producer = operand->get().getDefiningOp<linalg::GenericOp>();
  auto consumer = dyn_cast<linalg::GenericOp>(operand->getOwner());
  if (!producer || !consumer ||
      producer.getNumParallelLoops() != producer.getNumLoops())
    return false;
  // Into a reduction on the CPU, only what trace-vectorize-reductions
  // vectorizes (otherwise the row would be folded by scalar loops).
  if (intoReductions &&
      consumer.getNumParallelLoops() != consumer.getNumLoops() &&
      !fusesIntoRowReduction(producer, consumer, operand))
    return false;
  if (isCheapMask(producer))
    return true;
  if (!consumer.getMatchingIndexingMap(operand).isPermutation())
    return false;
  if (producer->hasOneUse() || isPureCopy(producer))
    return true;
  if (!sharedBudget || !isCheapShared(producer, intoReductions))
    return false;
  auto cost = static_cast<int64_t>(
      producer.getRegion().front().getOperations().size());
  if (*sharedBudget < cost)
    return false;
  *sharedBudget -= cost;
  return true;
}

/// The ops in the payloads of `func`'s generics.
int64_t payloadOps(Operation *func) {
  int64_t ops = 0;
  func->walk([&](linalg::GenericOp generic) {
    ops += static_cast<int64_t>(
        generic.getRegion().front().getOperations().size());
  });
  return ops;
}

/// A `linalg.reduce` of trailing dims whose input an all-parallel generic
/// produces, as a generic, so that the producer can fuse into it.
struct GeneralizeFedRowReduce final : OpRewritePattern<linalg::ReduceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(linalg::ReduceOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.hasPureTensorSemantics() || op.getInputs().size() != 1)
      return failure();
    auto producer = op.getInputs()[0].getDefiningOp<linalg::GenericOp>();
    if (!producer || producer.getNumParallelLoops() != producer.getNumLoops())
      return failure();
    int64_t rank = cast<ShapedType>(op.getInputs()[0].getType()).getRank();
    ArrayRef<int64_t> dims = op.getDimensions();
    for (auto [i, dim] : llvm::enumerate(dims))
      if (dim != rank - static_cast<int64_t>(dims.size() - i))
        return failure();
    return linalg::generalizeNamedOp(rewriter, op);
  }
};

struct TraceFuseElementwisePass final
    : trace::impl::TraceFuseElementwisePassBase<TraceFuseElementwisePass> {
  using Base::Base;

  void runOnOperation() override {
    if (intoReductions) {
      RewritePatternSet generalize(&getContext());
      generalize.add<GeneralizeFedRowReduce>(&getContext());
      if (failed(applyPatternsGreedily(getOperation(), std::move(generalize))))
        return signalPassFailure();
    }
    // First every fusion that recomputes nothing (or only copies and
    // masks). Then cheap shared producers, copied into their readers, at
    // most as many payload ops as the function then has: in a chain where
    // each value feeds two readers, copying a value into both makes its
    // own inputs shared, and copying without a bound doubles the work at
    // every step back.
    auto run = [&](int64_t *budget) {
      RewritePatternSet patterns(&getContext());
      bool reductions = intoReductions;
      linalg::populateElementwiseOpsFusionPatterns(
          patterns, [budget, reductions](OpOperand *operand) {
            return fuses(operand, budget, reductions);
          });
      return applyPatternsGreedily(getOperation(), std::move(patterns));
    };
    if (failed(run(nullptr)))
      return signalPassFailure();
    int64_t budget = payloadOps(getOperation());
    if (failed(run(&budget)))
      return signalPassFailure();
  }
};

} // namespace
