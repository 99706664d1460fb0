//===- TraceFuseElementwiseLinalg.cpp - recompute-free fusion -----------===//
//
// Upstream's elementwise fusion patterns with a control function that only
// admits fusions that recompute nothing. See the pass description.
//
//===----------------------------------------------------------------------===//

#include "trace/Codegen/Common/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
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

/// Fuse `operand`'s producer into its consumer only if the producer is an
/// all-parallel generic used once (or a pure copy, see above) and the
/// consumer, also a generic, reads each of its elements once. A broadcast
/// that several generics read is then never written out: trace-fuse
/// copies it into each fusion, and the CSE after the fusions are inlined
/// merges the copies again. A cheap mask (above) fuses into every reader.
bool fusesWithoutRecompute(OpOperand *operand) {
  auto producer = operand->get().getDefiningOp<linalg::GenericOp>();
  auto consumer = dyn_cast<linalg::GenericOp>(operand->getOwner());
  if (!producer || !consumer ||
      producer.getNumParallelLoops() != producer.getNumLoops())
    return false;
  if (isCheapMask(producer))
    return true;
  if (!producer->hasOneUse() && !isPureCopy(producer))
    return false;
  return consumer.getMatchingIndexingMap(operand).isPermutation();
}

struct TraceFuseElementwisePass final
    : trace::impl::TraceFuseElementwisePassBase<TraceFuseElementwisePass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    linalg::populateElementwiseOpsFusionPatterns(patterns,
                                                 fusesWithoutRecompute);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
