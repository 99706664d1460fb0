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
//===----------------------------------------------------------------------===//

#include "trace/Codegen/Common/Passes.h"

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
  }
};

} // namespace
