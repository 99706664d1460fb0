//===- Shape.cpp - trace shape ops to linalg/tensor -----------------------===//
//
// The shape family (data movement): `trace.broadcast_in_dim`, `trace.reshape`,
// `trace.transpose`, `trace.slice`, `trace.concatenate` and `trace.reverse`,
// as linalg copies and tensor reshapes, slices and concats.
//
//===----------------------------------------------------------------------===//

#include "PopulatePatterns.h"
#include "Utils.h"

#include "trace/Dialect/Trace/IR/TraceOps.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/DialectConversion.h"
#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace mlir::trace;
using namespace mlir::trace::trace_to_linalg;

//===----------------------------------------------------------------------===//
// Shape ops
//===----------------------------------------------------------------------===//

namespace {

struct BroadcastInDimLowering final : OpConversionPattern<BroadcastInDimOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(BroadcastInDimOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value operand = adaptor.getOperand();
    auto operandType = cast<RankedTensorType>(operand.getType());
    auto resultType = cast<RankedTensorType>(op.getType());
    // Dims are strictly increasing, so equal types mean the identity.
    if (operandType == resultType) {
      rewriter.replaceOp(op, operand);
      return success();
    }
    // Operand dim k is read at result dim dims[k], or at 0 where a size-1
    // operand dim is stretched.
    MLIRContext *ctx = rewriter.getContext();
    SmallVector<AffineExpr> exprs;
    for (auto [k, dim] : llvm::enumerate(op.getBroadcastDimensions())) {
      bool stretched =
          operandType.getDimSize(k) == 1 && resultType.getDimSize(dim) != 1;
      exprs.push_back(stretched ? getAffineConstantExpr(0, ctx)
                                : getAffineDimExpr(dim, ctx));
    }
    unsigned rank = resultType.getRank();
    SmallVector<AffineMap> maps = {AffineMap::get(rank, 0, exprs, ctx),
                                   rewriter.getMultiDimIdentityMap(rank)};
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    rewriter.replaceOpWithNewOp<linalg::GenericOp>(
        op, TypeRange{resultType}, ValueRange{operand},
        ValueRange{createEmpty(rewriter, op.getLoc(), resultType)}, maps,
        iterators, [](OpBuilder &b, Location loc, ValueRange args) {
          linalg::YieldOp::create(b, loc, args.front());
        });
    return success();
  }
};

struct ReshapeLowering final : OpConversionPattern<ReshapeOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ReshapeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, createReshape(rewriter, op.getLoc(),
                                         adaptor.getOperand(),
                                         cast<RankedTensorType>(op.getType())));
    return success();
  }
};

struct TransposeLowering final : OpConversionPattern<TransposeOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(TransposeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    // linalg.transpose has the op's convention: result dim i is input dim
    // permutation[i].
    auto resultType = cast<RankedTensorType>(op.getType());
    auto transpose = linalg::TransposeOp::create(
        rewriter, op.getLoc(), adaptor.getOperand(),
        createEmpty(rewriter, op.getLoc(), resultType), op.getPermutation());
    rewriter.replaceOp(op, transpose.getResult());
    return success();
  }
};

struct SliceLowering final : OpConversionPattern<SliceOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(SliceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto resultType = cast<RankedTensorType>(op.getType());
    MLIRContext *ctx = rewriter.getContext();
    rewriter.replaceOpWithNewOp<tensor::ExtractSliceOp>(
        op, resultType, adaptor.getOperand(),
        getAsIndexOpFoldResult(ctx, op.getStartIndices()),
        getAsIndexOpFoldResult(ctx, resultType.getShape()),
        getAsIndexOpFoldResult(ctx, op.getStrides()));
    return success();
  }
};

struct ConcatenateLowering final : OpConversionPattern<ConcatenateOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ConcatenateOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    // Inputs empty along the dim add nothing; tensor.concat's decomposition
    // would insert them at the end of the result, an offset its verifier
    // rejects. At least one input stays (the result may be empty).
    int64_t dim = op.getDimension();
    SmallVector<Value> inputs;
    for (Value input : adaptor.getInputs())
      if (cast<RankedTensorType>(input.getType()).getDimSize(dim) != 0)
        inputs.push_back(input);
    if (inputs.empty())
      inputs.push_back(adaptor.getInputs().front());
    if (inputs.size() == 1) {
      rewriter.replaceOp(op, inputs.front());
      return success();
    }
    // tensor.concat bufferizes (to an allocation and one copy per input) in
    // MLIR 22, and reads better than the insert_slice chain it decomposes to.
    rewriter.replaceOpWithNewOp<tensor::ConcatOp>(op, op.getType(), dim,
                                                  inputs);
    return success();
  }
};

/// A copy whose input map counts the reversed dims down from their end.
struct ReverseLowering final : OpConversionPattern<ReverseOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ReverseOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    MLIRContext *ctx = rewriter.getContext();
    auto type = cast<RankedTensorType>(op.getType());
    int64_t rank = type.getRank();
    SmallVector<AffineExpr> exprs;
    for (int64_t d = 0; d < rank; ++d) {
      AffineExpr index = getAffineDimExpr(d, ctx);
      if (llvm::is_contained(op.getDimensions(), d))
        index = getAffineConstantExpr(type.getDimSize(d) - 1, ctx) - index;
      exprs.push_back(index);
    }
    SmallVector<AffineMap> maps = {AffineMap::get(rank, 0, exprs, ctx),
                                   rewriter.getMultiDimIdentityMap(rank)};
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    auto generic = linalg::GenericOp::create(
        rewriter, op.getLoc(), TypeRange{type}, ValueRange{adaptor.getOperand()},
        ValueRange{createEmpty(rewriter, op.getLoc(), type)}, maps, iterators,
        [](OpBuilder &b, Location loc, ValueRange args) {
          linalg::YieldOp::create(b, loc, ValueRange{args[0]});
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

} // namespace

/// A side-effect-free trace op whose results hold no element computes
/// nothing: its results are tensor.empty. Lowered, such an op would be a
/// slice, an insert or a concatenation at an offset equal to a dim of 0
/// (x[1:1], a pad of an empty tensor), which the slice verifiers reject as
/// out of bounds. It goes before the op's own pattern.
struct EmptyResultLowering final : ConversionPattern {
  EmptyResultLowering(MLIRContext *ctx)
      : ConversionPattern(MatchAnyOpTypeTag(), /*benefit=*/10, ctx) {}

  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                  ConversionPatternRewriter &rewriter) const override {
    if (!isa<TraceDialect>(op->getDialect()) || op->getNumResults() == 0 ||
        op->getNumRegions() != 0 || !isMemoryEffectFree(op))
      return failure();
    SmallVector<Value> empties;
    for (Type type : op->getResultTypes()) {
      auto tensor = dyn_cast<RankedTensorType>(type);
      if (!tensor || !tensor.hasStaticShape() || tensor.getNumElements() != 0)
        return failure();
      empties.push_back(tensor::EmptyOp::create(
          rewriter, op->getLoc(), tensor.getShape(), tensor.getElementType()));
    }
    rewriter.replaceOp(op, empties);
    return success();
  }
};

void mlir::trace::trace_to_linalg::populateShapePatterns(
    RewritePatternSet &patterns) {
  patterns.add<BroadcastInDimLowering, ReshapeLowering, TransposeLowering,
               SliceLowering, ConcatenateLowering, ReverseLowering,
               EmptyResultLowering>(patterns.getContext());
}
