//===- Structural.cpp - trace markers and region ops ----------------------===//
//
// The structural ops, which mark values and regions for autodiff,
// rematerialization and kernel formation and lower to nothing:
// `trace.optimization_barrier` and `trace.stop_gradient` become their
// operand, `trace.checkpoint` and `trace.fusion` are inlined, and
// `trace.forward_end` is erased.
//
//===----------------------------------------------------------------------===//

#include "PopulatePatterns.h"

#include "trace/Dialect/Trace/IR/TraceOps.h"

#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;
using namespace mlir::trace;

//===----------------------------------------------------------------------===//
// Markers
//===----------------------------------------------------------------------===//

namespace {

/// No gradient flows past it; its value is its operand's.
/// Outside the pipelines (keep-barriers), a barrier is its operand.
struct OptimizationBarrierLowering final
    : OpConversionPattern<OptimizationBarrierOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(OptimizationBarrierOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, adaptor.getOperand());
    return success();
  }
};

struct StopGradientLowering final : OpConversionPattern<StopGradientOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(StopGradientOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, adaptor.getOperand());
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Region ops
//===----------------------------------------------------------------------===//

/// `trace.checkpoint` and `trace.fusion` only mark regions for autodiff,
/// rematerialization and kernel formation; once lowered, their bodies run
/// in place. Nested region ops are inlined when the driver reaches them.
template <typename OpTy>
struct InlineRegionLowering final : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  using OpAdaptor = typename OpTy::Adaptor;

  LogicalResult
  matchAndRewrite(OpTy op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Block &body = op.getBody().front();
    auto yield = cast<YieldOp>(body.getTerminator());
    // The results are the yielded values, where a yielded block argument
    // stands for the corresponding input.
    SmallVector<Value> results;
    for (Value value : yield.getValues()) {
      auto arg = dyn_cast<BlockArgument>(value);
      results.push_back(arg && arg.getOwner() == &body
                            ? adaptor.getInputs()[arg.getArgNumber()]
                            : value);
    }
    rewriter.inlineBlockBefore(&body, op, adaptor.getInputs());
    rewriter.replaceOp(op, results);
    rewriter.eraseOp(yield);
    return success();
  }
};

/// `trace.forward_end` marks the split for autodiff and remat; the lowered
/// function runs its forward and backward in one sequence.
struct ForwardEndLowering final : OpConversionPattern<ForwardEndOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ForwardEndOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void mlir::trace::trace_to_linalg::populateStructuralPatterns(
    RewritePatternSet &patterns) {
  patterns.add<StopGradientLowering, OptimizationBarrierLowering,
               InlineRegionLowering<CheckpointOp>,
               InlineRegionLowering<FusionOp>, ForwardEndLowering>(
      patterns.getContext());
}
