//===- TraceMathApproximation.cpp - vectorizable f32 math -----------------===//

#include "trace/Codegen/CPU/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#define DEBUG_TYPE "trace-math-approximation"

namespace mlir::trace {
#define GEN_PASS_DEF_TRACEMATHAPPROXIMATIONPASS
#include "trace/Codegen/CPU/Passes.h.inc"
} // namespace mlir::trace

using namespace mlir;

namespace {

struct TraceMathApproximationPass final
    : trace::impl::TraceMathApproximationPassBase<TraceMathApproximationPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    // Every function upstream approximates but atan2; only f32 operands
    // match the patterns, so f64 keeps its libm accuracy. atan2's
    // approximation returns NaN at (+-0, +-0) and (+-inf, +-inf) and
    // loses the sign of -0, where libm (and libdevice on the GPU) give
    // C's and torch's angles.
    populateMathPolynomialApproximationPatterns(
        patterns, [](StringRef name) { return !name.ends_with("atan2"); });
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
