//===- Indexing.cpp - trace gather and scatter to linalg/scf --------------===//
//
// The indexing family: `trace.gather` as a `linalg.generic` that extracts at
// the clamped index, and `trace.scatter_add` as scf.for loops or a dense
// `linalg.generic` (the `scatters` option).
//
//===----------------------------------------------------------------------===//

#include "PopulatePatterns.h"
#include "Utils.h"

#include "trace/Dialect/Trace/IR/TraceOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;
using namespace mlir::trace;
using namespace mlir::trace::trace_to_linalg;

/// `index` (an i32 or i64 scalar) as an index.
static Value asIndex(OpBuilder &b, Location loc, Value index) {
  return arith::IndexCastOp::create(b, loc, b.getIndexType(), index);
}

/// `x + y` of a float or an integer scalar.
static Value addScalars(OpBuilder &b, Location loc, Value x, Value y) {
  if (isa<FloatType>(x.getType()))
    return arith::AddFOp::create(b, loc, x, y);
  return arith::AddIOp::create(b, loc, x, y);
}

namespace {

/// A linalg.generic over the result (the indices' shape) whose body reads
/// the operand with `tensor.extract` at the clamped index: gathers are not
/// affine, so the operand is captured, not an input (as torch-mlir lowers
/// aten.gather).
struct GatherLowering final : OpConversionPattern<GatherOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(GatherOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getType());
    int64_t rank = type.getRank(), dim = op.getDimension();
    int64_t last = op.getOperand().getType().getDimSize(dim) - 1;
    Value operand = adaptor.getOperand();
    SmallVector<AffineMap> maps(2, rewriter.getMultiDimIdentityMap(rank));
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{type}, ValueRange{adaptor.getIndices()},
        ValueRange{createEmpty(rewriter, loc, type)}, maps, iterators,
        [&](OpBuilder &b, Location loc, ValueRange args) {
          Value zero = arith::ConstantIndexOp::create(b, loc, 0);
          Value top = arith::ConstantIndexOp::create(b, loc, last);
          Value index = asIndex(b, loc, args[0]);
          Value above = arith::MaxSIOp::create(b, loc, index, zero);
          Value clamped = arith::MinSIOp::create(b, loc, above, top);
          SmallVector<Value> at;
          for (int64_t d = 0; d < rank; ++d)
            at.push_back(d == dim ? clamped
                                  : linalg::IndexOp::create(b, loc, d));
          Value picked = tensor::ExtractOp::create(b, loc, operand, at);
          linalg::YieldOp::create(b, loc, ValueRange{picked});
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

/// `trace.scatter_add` as a nest of scf.for loops over the indices, each
/// step a `tensor.extract` and a `tensor.insert` of the running result
/// (bufferized in place): work in the updates' size. linalg has no
/// scatter; an update with an index out of range adds zero at index 0.
///
/// With `dense`, a linalg.generic over the result part the indices reach
/// and, as a reduction, the indexed dim of the updates: every result
/// element sums the updates whose index hits it. No loop-carried tensor,
/// so one GPU kernel, but work in the updates' size times the indexed
/// dim's (the one-hot product's).
struct ScatterAddLowering final : OpConversionPattern<ScatterAddOp> {
  ScatterAddLowering(MLIRContext *ctx, ScatterLowering mode)
      : OpConversionPattern(ctx), mode(mode) {}

  LogicalResult
  matchAndRewrite(ScatterAddOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value result = mode == ScatterLowering::Dense
                       ? buildDense(rewriter, op, adaptor)
                       : buildLoops(rewriter, op, adaptor);
    rewriter.replaceOp(op, result);
    return success();
  }

  /// Returns `(update, at)`: the update, or zero where its index is outside
  /// the dim of `size`, and the index clamped into it.
  static std::pair<Value, Value> inRange(OpBuilder &b, Location loc,
                                         Value update, Value index,
                                         int64_t size) {
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    Value end = arith::ConstantIndexOp::create(b, loc, size);
    Value atLeast = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge,
                                          index, zero);
    Value below = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt,
                                        index, end);
    Value valid = arith::AndIOp::create(b, loc, atLeast, below);
    Value none = arith::ConstantOp::create(
        b, loc, b.getZeroAttr(update.getType()));
    Value kept = arith::SelectOp::create(b, loc, valid, update, none);
    Value at = arith::SelectOp::create(b, loc, valid, index, zero);
    return {kept, at};
  }

  Value buildLoops(ConversionPatternRewriter &rewriter, ScatterAddOp op,
                   OpAdaptor adaptor) const {
    Location loc = op.getLoc();
    RankedTensorType indicesType = op.getIndices().getType();
    int64_t dim = op.getDimension();
    int64_t size = op.getOperand().getType().getDimSize(dim);
    Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
    Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
    SmallVector<Value> lbs, ubs, steps;
    for (int64_t extent : indicesType.getShape()) {
      lbs.push_back(zero);
      ubs.push_back(arith::ConstantIndexOp::create(rewriter, loc, extent));
      steps.push_back(one);
    }
    Value indices = adaptor.getIndices(), updates = adaptor.getUpdates();
    scf::LoopNest nest = scf::buildLoopNest(
        rewriter, loc, lbs, ubs, steps, ValueRange{adaptor.getOperand()},
        [&](OpBuilder &b, Location loc, ValueRange ivs,
            ValueRange iters) -> scf::ValueVector {
          Value raw = tensor::ExtractOp::create(b, loc, indices, ivs);
          Value update = tensor::ExtractOp::create(b, loc, updates, ivs);
          Value index = asIndex(b, loc, raw);
          auto [kept, at] = inRange(b, loc, update, index, size);
          SmallVector<Value> target(ivs);
          target[dim] = at;
          Value old = tensor::ExtractOp::create(b, loc, iters[0], target);
          Value sum = addScalars(b, loc, old, kept);
          return {tensor::InsertOp::create(b, loc, sum, iters[0], target)};
        });
    return nest.results.front();
  }

  Value buildDense(ConversionPatternRewriter &rewriter, ScatterAddOp op,
                   OpAdaptor adaptor) const {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    RankedTensorType operandType = op.getOperand().getType();
    RankedTensorType indicesType = op.getIndices().getType();
    int64_t rank = operandType.getRank(), dim = op.getDimension();
    // The part of the result the indices reach: their extent off `dim`.
    SmallVector<int64_t> part(indicesType.getShape());
    part[dim] = operandType.getDimSize(dim);
    Value base = adaptor.getOperand();
    bool whole = ArrayRef<int64_t>(part) == operandType.getShape();
    SmallVector<OpFoldResult> offsets(rank, rewriter.getIndexAttr(0));
    SmallVector<OpFoldResult> sizes, unit(rank, rewriter.getIndexAttr(1));
    for (int64_t extent : part)
      sizes.push_back(rewriter.getIndexAttr(extent));
    Value init = base;
    if (!whole)
      init = tensor::ExtractSliceOp::create(rewriter, loc, base, offsets,
                                            sizes, unit);
    // Dims (d_0 .. d_{rank-1}, r): r walks the indices' `dim`.
    SmallVector<AffineExpr> read;
    for (int64_t d = 0; d < rank; ++d)
      read.push_back(getAffineDimExpr(d == dim ? rank : d, ctx));
    AffineMap readMap = AffineMap::get(rank + 1, 0, read, ctx);
    AffineMap writeMap = AffineMap::getMultiDimIdentityMap(rank + 1, ctx)
                             .dropResult(rank);
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    iterators.push_back(utils::IteratorType::reduction);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{init.getType()},
        ValueRange{adaptor.getIndices(), adaptor.getUpdates()},
        ValueRange{init}, SmallVector<AffineMap>{readMap, readMap, writeMap},
        iterators, [&](OpBuilder &b, Location loc, ValueRange args) {
          Value index = asIndex(b, loc, args[0]);
          Value here = linalg::IndexOp::create(b, loc, dim);
          Value hit = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                            index, here);
          TypedAttr zero = b.getZeroAttr(args[1].getType());
          Value none = arith::ConstantOp::create(b, loc, zero);
          Value kept = arith::SelectOp::create(b, loc, hit, args[1], none);
          Value sum = addScalars(b, loc, args[2], kept);
          linalg::YieldOp::create(b, loc, ValueRange{sum});
        });
    Value summed = generic.getResult(0);
    if (whole)
      return summed;
    return tensor::InsertSliceOp::create(rewriter, loc, summed, base, offsets,
                                         sizes, unit);
  }

  ScatterLowering mode;
};

} // namespace

void mlir::trace::trace_to_linalg::populateIndexingPatterns(
    RewritePatternSet &patterns, ScatterLowering scatters) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<ScatterAddLowering>(ctx, scatters);
  patterns.add<GatherLowering>(ctx);
}
