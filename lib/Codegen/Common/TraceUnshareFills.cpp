//===- TraceUnshareFills.cpp - one linalg.fill per destination ------------===//
//
// CSE merges identical `linalg.fill`s of identical `tensor.empty`s (every
// matmul's and reduction's zero accumulator of one shape), and one-shot
// bufferization then gives the shared tensor one buffer and copies it for
// every destination but the last it writes in place: a fill, then a copy
// per matmul or reduction. Giving each destination its own fill (and
// empty) lets bufferization write every one in place, and lets
// trace-linalg-to-blas turn a matmul's zero fill into beta = 0.
//
// CSE merges identical `tensor.empty`s too: at 24 GPT layers one empty is
// the destination of 500 elementwise nests. Each destination is in place on
// its result, so all those results join one alias set, and One-Shot
// Bufferize's conflict checks (and empty-tensor elimination's, which runs
// the same analysis) visit every member for every write: cubic in the
// step's length, most of a deep model's MLIR time. An empty is only a
// shape, so each use gets its own, and the alias sets stay as small as the
// data flow makes them.
//
// The shared empties did one good thing: an elementwise nest whose input
// died at it wrote into that input's buffer (softmax's divide into the
// exponentials), where an empty of its own is a new buffer live next to the
// input. So before the empties are unshared, such a nest takes the dying
// input as its destination; bufferization still decides whether it writes
// in place, and without a copy either way, as the payload never reads it.
//
//===----------------------------------------------------------------------===//

#include "trace/Codegen/Common/Passes.h"

#include "mlir/Dialect/Bufferization/IR/BufferizableOpInterface.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

#define DEBUG_TYPE "trace-unshare-fills"

namespace mlir::trace {
#define GEN_PASS_DEF_TRACEUNSHAREFILLSPASS
#include "trace/Codegen/Common/Passes.h.inc"
} // namespace mlir::trace

using namespace mlir;

namespace {

/// The values that share `value`'s buffer, back through destinations and
/// reshapes to the tensor.empty that makes it (not included), `value`
/// first; empty when
/// the buffer is not this function's own (a caller's argument or a
/// constant, which bufferization copies before a write) or when the chain
/// is longer than `maxLength`.
SmallVector<Value> ownBufferChain(Value value, unsigned maxLength,
                                  const bufferization::AnalysisState &state) {
  SmallVector<Value> chain;
  while (!isa<BlockArgument>(value) && chain.size() < maxLength) {
    // The empty itself is no read: its other uses get empties of their own.
    Operation *def = value.getDefiningOp();
    if (isa<tensor::EmptyOp, bufferization::AllocTensorOp>(def))
      return chain;
    chain.push_back(value);
    auto bufferizable = state.getOptions().dynCastBufferizableOp(def);
    if (!bufferizable)
      break;
    bufferization::AliasingOpOperandList sources =
        bufferizable.getAliasingOpOperands(value, state);
    if (sources.getNumAliases() != 1)
      break;
    value = sources.getAliases().front().opOperand->get();
  }
  return {};
}

/// Whether `user` is the last op to read the buffer of `chain`: every other
/// use of its values, and of every value bufferization makes an alias of
/// them (a reshape, a destination's result), comes before `user` in its
/// block.
bool diesAt(ArrayRef<Value> chain, Operation *user,
            const bufferization::AnalysisState &state) {
  SmallVector<Value> worklist(chain);
  DenseSet<Value> seen;
  while (!worklist.empty()) {
    Value current = worklist.pop_back_val();
    if (!seen.insert(current).second)
      continue;
    for (OpOperand &use : current.getUses()) {
      Operation *other = use.getOwner();
      if (other == user)
        continue;
      Operation *ancestor = user->getBlock()->findAncestorOpInBlock(*other);
      if (!ancestor || ancestor == user || !ancestor->isBeforeInBlock(user))
        return false;
      auto bufferizable = state.getOptions().dynCastBufferizableOp(other);
      if (!bufferizable)
        return false;
      for (bufferization::AliasingValue alias :
           bufferizable.getAliasingValues(use, state))
        worklist.push_back(alias.value);
    }
  }
  return true;
}

/// An elementwise linalg.generic whose destination is a tensor.empty its
/// payload does not read gets, as its destination, an input of the same
/// type and indexing map, defined in the same block (not once outside a
/// loop that reads it every iteration), that dies at it and whose buffer is
/// the function's own. A buffer passes along at most kMaxChain nests: each
/// in-place nest joins its alias set, which the analysis visits per write.
void reuseDyingInputs(func::FuncOp func, RewriterBase &rewriter) {
  constexpr unsigned kMaxChain = 16;
  bufferization::BufferizationOptions options;
  bufferization::AnalysisState state(options);
  func.walk([&](linalg::GenericOp op) {
    if (!op.hasPureTensorSemantics() || op.getNumDpsInits() != 1 ||
        op.getNumLoops() != op.getNumParallelLoops())
      return;
    OpOperand *init = op.getDpsInitOperand(0);
    if (!init->get().getDefiningOp<tensor::EmptyOp>() ||
        op.payloadUsesValueFromOperand(init))
      return;
    AffineMap map = op.getMatchingIndexingMap(init);
    for (OpOperand *input : op.getDpsInputOperands()) {
      Value value = input->get();
      if (value.getType() != init->get().getType() ||
          op.getMatchingIndexingMap(input) != map ||
          value.getParentBlock() != op->getBlock())
        continue;
      SmallVector<Value> chain = ownBufferChain(value, kMaxChain, state);
      if (chain.empty() || !diesAt(chain, op, state))
        continue;
      rewriter.modifyOpInPlace(op, [&] { init->set(value); });
      return;
    }
  });
}

struct TraceUnshareFillsPass final
    : trace::impl::TraceUnshareFillsPassBase<TraceUnshareFillsPass> {
  void runOnOperation() override {
    SmallVector<linalg::FillOp> fills;
    getOperation().walk([&](linalg::FillOp fill) {
      if (fill.hasPureTensorSemantics() && !fill->hasOneUse())
        fills.push_back(fill);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::FillOp fill : fills) {
      // Every use as another linalg op's destination but the first gets a
      // copy of the fill (and of its tensor.empty) right before that op.
      SmallVector<OpOperand *> inits;
      for (OpOperand &use : fill->getResult(0).getUses()) {
        auto user = dyn_cast<DestinationStyleOpInterface>(use.getOwner());
        if (user && user.isDpsInit(&use))
          inits.push_back(&use);
      }
      // The first in program order keeps the original.
      llvm::stable_sort(inits, [](OpOperand *a, OpOperand *b) {
        Operation *x = a->getOwner(), *y = b->getOwner();
        return x->getBlock() == y->getBlock() && x->isBeforeInBlock(y);
      });
      bool keepFirst = inits.size() == llvm::range_size(fill->getUses());
      for (OpOperand *use : llvm::drop_begin(inits, keepFirst ? 1 : 0)) {
        rewriter.setInsertionPoint(use->getOwner());
        IRMapping mapping;
        Value dest = fill.getOutputs()[0];
        if (auto empty = dest.getDefiningOp<tensor::EmptyOp>())
          mapping.map(dest, rewriter.clone(*empty)->getResult(0));
        Operation *copy = rewriter.clone(*fill, mapping);
        rewriter.modifyOpInPlace(use->getOwner(),
                                 [&] { use->set(copy->getResult(0)); });
      }
    }

    reuseDyingInputs(getOperation(), rewriter);

    // Every use of a shared tensor.empty gets a clone right before its user
    // (the sizes dominate the original, so they dominate every user).
    SmallVector<tensor::EmptyOp> empties;
    getOperation().walk([&](tensor::EmptyOp empty) {
      if (!empty->hasOneUse() && !empty->use_empty())
        empties.push_back(empty);
    });
    for (tensor::EmptyOp empty : empties) {
      SmallVector<OpOperand *> uses = llvm::map_to_vector(
          empty->getUses(), [](OpOperand &use) { return &use; });
      for (OpOperand *use : uses) {
        rewriter.setInsertionPoint(use->getOwner());
        Operation *copy = rewriter.clone(*empty);
        rewriter.modifyOpInPlace(use->getOwner(),
                                 [&] { use->set(copy->getResult(0)); });
      }
      rewriter.eraseOp(empty);
    }
  }
};

} // namespace
