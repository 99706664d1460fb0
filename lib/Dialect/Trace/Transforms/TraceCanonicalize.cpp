//===- TraceCanonicalize.cpp - trace-only canonicalization ----------------===//

#include "trace/Dialect/Trace/IR/TraceDialect.h"
#include "trace/Dialect/Trace/Transforms/Passes.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Rewrite/FrozenRewritePatternSet.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#define DEBUG_TYPE "trace-canonicalize"

namespace mlir::trace {
#define GEN_PASS_DEF_TRACECANONICALIZEPASS
#include "trace/Dialect/Trace/Transforms/Passes.h.inc"
} // namespace mlir::trace

using namespace mlir;
using namespace mlir::trace;

namespace {

struct TraceCanonicalizePass final
    : trace::impl::TraceCanonicalizePassBase<TraceCanonicalizePass> {
  using Base::Base;

  LogicalResult initialize(MLIRContext *context) override {
    RewritePatternSet owningPatterns(context);
    Dialect *trace = context->getLoadedDialect<TraceDialect>();
    trace->getCanonicalizationPatterns(owningPatterns);
    for (RegisteredOperationName op : context->getRegisteredOperations())
      if (&op.getDialect() == trace)
        op.getCanonicalizationPatterns(owningPatterns, context);
    patterns = std::make_shared<FrozenRewritePatternSet>(
        std::move(owningPatterns));
    return success();
  }

  void runOnOperation() override {
    // Only trace ops go on the worklist (and the ops the patterns create), so
    // folding never reaches into other dialects.
    SmallVector<Operation *> ops;
    getOperation()->walk([&](Operation *op) {
      if (isa_and_nonnull<TraceDialect>(op->getDialect()))
        ops.push_back(op);
    });
    if (ops.empty())
      return;
    GreedyRewriteConfig config;
    config.setMaxIterations(maxIterations)
        .setStrictness(GreedyRewriteStrictness::ExistingAndNewOps);
    // The driver reports failure only when it did not reach a fixpoint; the
    // IR is still valid then, so that is a warning, not a pass failure.
    bool converged = succeeded(applyOpPatternsGreedily(ops, *patterns, config));
    if (!converged)
      getOperation()->emitWarning()
          << "trace-canonicalize did not converge in " << maxIterations
          << " iterations";
  }

  std::shared_ptr<const FrozenRewritePatternSet> patterns;
};

} // namespace
