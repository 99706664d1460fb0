//===- Reduction.cpp - trace reductions to linalg -------------------------===//
//
// The reduction family: `trace.reduce_sum` and `trace.reduce_max` as a
// `linalg.reduce` from the op's identity, f16/bf16 sums accumulating in f32,
// expanded back to the `keepdim` shape where the op keeps its dims.
//
//===----------------------------------------------------------------------===//

#include "PopulatePatterns.h"
#include "Utils.h"

#include "trace/Dialect/Trace/IR/TraceOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"
#include "mlir/Transforms/DialectConversion.h"
#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace mlir::trace;
using namespace mlir::trace::trace_to_linalg;

//===----------------------------------------------------------------------===//
// Reduction helpers
//===----------------------------------------------------------------------===//

/// The identity of `reduce_sum` in `type`: zero.
static TypedAttr getIdentity(OpBuilder &b, ReduceSumOp, Type type) {
  return b.getZeroAttr(type);
}
/// The identity of `reduce_max` in `type`: -inf, or the smallest integer.
static TypedAttr getIdentity(OpBuilder &b, ReduceMaxOp, Type type) {
  if (auto floatType = dyn_cast<FloatType>(type))
    return b.getFloatAttr(type, APFloat::getInf(floatType.getFloatSemantics(),
                                                /*Negative=*/true));
  return b.getIntegerAttr(
      type, APInt::getSignedMinValue(type.getIntOrFloatBitWidth()));
}

static Type getAccumulatorType(ReduceSumOp, Type elementType) {
  return getSumAccumulatorType(elementType);
}
static Type getAccumulatorType(ReduceMaxOp, Type elementType) {
  // A maximum is exact in any type.
  return elementType;
}

/// Combines an input element into the accumulator, extending the input to
/// the accumulator's type first where they differ.
static Value createCombiner(OpBuilder &b, Location loc, ReduceSumOp,
                            Value input, Value accumulator) {
  if (input.getType() != accumulator.getType())
    input = arith::ExtFOp::create(b, loc, accumulator.getType(), input);
  return createArith<arith::AddFOp, arith::AddIOp>(b, loc,
                                                   {input, accumulator});
}
static Value createCombiner(OpBuilder &b, Location loc, ReduceMaxOp,
                            Value input, Value accumulator) {
  // NaN-propagating, like torch.amax.
  return createArith<arith::MaximumFOp, arith::MaxSIOp>(b, loc,
                                                        {input, accumulator});
}

/// The reassociation that expands the reduced tensor back to the `keepdim`
/// shape: each kept dim groups with the size-1 reduced dims that follow it
/// (leading reduced dims join the first kept dim).
static SmallVector<ReassociationIndices>
getKeepdimReassociation(int64_t rank, ArrayRef<int64_t> reducedDims) {
  SmallVector<ReassociationIndices> groups;
  ReassociationIndices leading;
  for (int64_t dim = 0; dim < rank; ++dim) {
    bool reduced = llvm::is_contained(reducedDims, dim);
    if (!reduced) {
      groups.emplace_back(leading);
      leading.clear();
      groups.back().push_back(dim);
    } else if (groups.empty()) {
      leading.push_back(dim);
    } else {
      groups.back().push_back(dim);
    }
  }
  return groups;
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

namespace {

template <typename OpTy>
struct ReduceLowering final : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  using OpAdaptor = typename OpTy::Adaptor;

  LogicalResult
  matchAndRewrite(OpTy op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value operand = adaptor.getOperand();
    auto operandType = cast<RankedTensorType>(operand.getType());
    auto resultType = cast<RankedTensorType>(op.getType());
    SmallVector<int64_t> dims(op.getDimensions());
    if (dims.empty()) {
      rewriter.replaceOp(op, operand);
      return success();
    }
    // linalg.reduce wants its dimensions sorted; the op takes any order.
    llvm::sort(dims);

    SmallVector<int64_t> reducedShape;
    for (auto [dim, size] : llvm::enumerate(operandType.getShape()))
      if (!llvm::is_contained(dims, static_cast<int64_t>(dim)))
        reducedShape.push_back(size);
    Type elementType = operandType.getElementType();
    Type accumulatorType = getAccumulatorType(op, elementType);
    auto reducedType = RankedTensorType::get(reducedShape, accumulatorType);
    Value init = createFilled(rewriter, loc, reducedType,
                              getIdentity(rewriter, op, accumulatorType));
    auto reduce = linalg::ReduceOp::create(
        rewriter, loc, ValueRange{operand}, ValueRange{init}, dims,
        [&](OpBuilder &b, Location loc, ValueRange args) {
          linalg::YieldOp::create(b, loc,
                                  createCombiner(b, loc, op, args[0], args[1]));
        });
    Value result =
        createElementCast(rewriter, loc, reduce.getResult(0), elementType);
    if (cast<RankedTensorType>(result.getType()) != resultType)
      result = tensor::ExpandShapeOp::create(
          rewriter, loc, resultType, result,
          getKeepdimReassociation(resultType.getRank(), dims));
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void mlir::trace::trace_to_linalg::populateReductionPatterns(
    RewritePatternSet &patterns) {
  patterns.add<ReduceLowering<ReduceSumOp>, ReduceLowering<ReduceMaxOp>>(
      patterns.getContext());
}
