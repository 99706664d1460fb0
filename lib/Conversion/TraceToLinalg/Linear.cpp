//===- Linear.cpp - trace matmul and convolution to linalg ----------------===//
//
// The linear family: `trace.matmul` as `linalg.matmul` or `batch_matmul`,
// and `trace.convolution`, direct (one `linalg.generic`) or through im2col
// and a matmul. f16/bf16 accumulate in f32 and round once.
//
//===----------------------------------------------------------------------===//

#include "PopulatePatterns.h"
#include "Utils.h"

#include "trace/Dialect/Trace/IR/TraceOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/Transforms/DialectConversion.h"
#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace mlir::trace;
using namespace mlir::trace::trace_to_linalg;

//===----------------------------------------------------------------------===//
// Matmul
//===----------------------------------------------------------------------===//

namespace {

struct MatmulLowering final : OpConversionPattern<MatmulOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(MatmulOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value lhs = adaptor.getLhs(), rhs = adaptor.getRhs();
    auto resultType = cast<RankedTensorType>(op.getType());
    int64_t rank = resultType.getRank();
    if (rank < 2)
      return rewriter.notifyMatchFailure(op, "matmul of rank below 2");
    // The named ops extend f16/bf16 operands to an f32 accumulator in their
    // body; the result is rounded once at the end.
    Type elementType = resultType.getElementType();
    Type accumulatorType = getSumAccumulatorType(elementType);
    TypedAttr zero = rewriter.getZeroAttr(accumulatorType);

    if (rank == 2) {
      Value init =
          createFilled(rewriter, loc, resultType.clone(accumulatorType), zero);
      Value product =
          linalg::MatmulOp::create(rewriter, loc, TypeRange{init.getType()},
                                   ValueRange{lhs, rhs}, ValueRange{init})
              .getResult(0);
      rewriter.replaceOp(
          op, createElementCast(rewriter, loc, product, elementType));
      return success();
    }

    // More than one batch dim: collapse them into one for batch_matmul
    // (the batch dims are contiguous in all three operands) and expand the
    // result back.
    SmallVector<ReassociationIndices> reassociation;
    if (rank > 3) {
      reassociation.push_back({});
      for (int64_t dim = 0; dim < rank - 2; ++dim)
        reassociation.back().push_back(dim);
      reassociation.push_back({rank - 2});
      reassociation.push_back({rank - 1});
      lhs = tensor::CollapseShapeOp::create(rewriter, loc, lhs, reassociation);
      rhs = tensor::CollapseShapeOp::create(rewriter, loc, rhs, reassociation);
    }
    auto batchType = RankedTensorType::get(
        {cast<RankedTensorType>(lhs.getType()).getDimSize(0),
         resultType.getDimSize(rank - 2), resultType.getDimSize(rank - 1)},
        accumulatorType);
    Value init = createFilled(rewriter, loc, batchType, zero);
    Value result =
        linalg::BatchMatmulOp::create(rewriter, loc, TypeRange{batchType},
                                      ValueRange{lhs, rhs}, ValueRange{init})
            .getResult(0);
    result = createElementCast(rewriter, loc, result, elementType);
    if (rank > 3)
      result = tensor::ExpandShapeOp::create(rewriter, loc, resultType, result,
                                             reassociation);
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

//===----------------------------------------------------------------------===//
// Convolution
//===----------------------------------------------------------------------===//

/// `x` = [N, C, spatial...] dilated by `dilation` and padded by `padding`
/// (low, high per spatial dim, negative to crop): a zero fill the input is
/// inserted into at a stride, then a slice where a pad is negative. `x`
/// itself where there is nothing to do.
static Value createDilatedPadded(OpBuilder &b, Location loc, Value x,
                                 ArrayRef<int64_t> dilation,
                                 ArrayRef<int64_t> padding) {
  auto type = cast<RankedTensorType>(x.getType());
  int64_t rank = type.getRank();
  bool identity = llvm::all_of(dilation, [](int64_t d) { return d == 1; }) &&
                  llvm::all_of(padding, [](int64_t p) { return p == 0; });
  if (identity)
    return x;
  SmallVector<int64_t> grown(type.getShape()), offsets(rank, 0),
      strides(rank, 1), cropOffsets(rank, 0), cropped(type.getShape());
  bool crops = false;
  for (int64_t d = 0; d + 2 < rank; ++d) {
    int64_t size = type.getDimSize(d + 2);
    int64_t lo = padding[2 * d], hi = padding[2 * d + 1];
    int64_t dilated = (size - 1) * dilation[d] + 1;
    grown[d + 2] = dilated + std::max<int64_t>(lo, 0) + std::max<int64_t>(hi, 0);
    offsets[d + 2] = std::max<int64_t>(lo, 0);
    strides[d + 2] = dilation[d];
    cropOffsets[d + 2] = std::max<int64_t>(-lo, 0);
    cropped[d + 2] = dilated + lo + hi;
    crops |= lo < 0 || hi < 0;
  }
  MLIRContext *ctx = b.getContext();
  Value zeros = createFilled(b, loc, type.clone(grown),
                             b.getZeroAttr(type.getElementType()));
  Value result = tensor::InsertSliceOp::create(
      b, loc, x, zeros, getAsIndexOpFoldResult(ctx, offsets),
      getAsIndexOpFoldResult(ctx, type.getShape()),
      getAsIndexOpFoldResult(ctx, strides));
  if (!crops)
    return result;
  return tensor::ExtractSliceOp::create(
      b, loc, type.clone(cropped), result,
      getAsIndexOpFoldResult(ctx, cropOffsets),
      getAsIndexOpFoldResult(ctx, cropped),
      getAsIndexOpFoldResult(ctx, SmallVector<int64_t>(rank, 1)));
}

/// Splits dim `dim` of `x` into [groups, size / groups].
static Value createGroupSplit(OpBuilder &b, Location loc, Value x, int64_t dim,
                              int64_t groups) {
  auto type = cast<RankedTensorType>(x.getType());
  SmallVector<int64_t> shape(type.getShape());
  shape[dim] /= groups;
  shape.insert(shape.begin() + dim, groups);
  SmallVector<ReassociationIndices> reassociation;
  for (int64_t d = 0, rank = type.getRank(); d < rank; ++d) {
    if (d < dim)
      reassociation.push_back({d});
    else if (d == dim)
      reassociation.push_back({d, d + 1});
    else
      reassociation.push_back({d + 1});
  }
  return tensor::ExpandShapeOp::create(b, loc, type.clone(shape), x,
                                       reassociation);
}

namespace {

/// Convolutions, after the input is dilated and padded (on the input split
/// [N, G, C/G, ...], the kernel [G, O/G, C/G, ...]), either
///
/// * direct: one `linalg.generic` over dims (n, g, o, c, k_0.., i_0..),
///   c and k the reductions:
///     y[n, g, o, i] += x[n, g, c, i * s + k * r] * w[g, o, c, k]
///   into [N, G, O/G, ...], collapsed back to [N, O, ...]. The output's
///   positions are the innermost loops, so that on the CPU they vectorize
///   with the kernel element invariant (faster than the window innermost
///   on a 7x7 stem, as bench/conv_time.py measures); the GPU mapping
///   puts the parallel dims first anyway; or
/// * im2col: a `linalg.generic` copy of every window,
///     cols[g, c, k, n, i] = x[n, g, c, i * s + k * r],
///   collapsed to [G, C/G * K, N * I], a `linalg.matmul` (`batch_matmul`
///   over the groups) of the kernel [G, O/G, C/G * K] with it, and a
///   transpose of [G, O/G, N, I...] to [N, O, I...]. The matmul goes to
///   BLAS or cuBLAS (trace-linalg-to-blas) at the price of the columns
///   (K copies of the input) and the transpose.
///
/// f16/bf16 accumulate in f32, as the matmul does. The backends lower the
/// generics like any other (loops; one thread per output element).
struct ConvolutionPattern final : OpConversionPattern<ConvolutionOp> {
  ConvolutionPattern(MLIRContext *ctx, ConvolutionLowering mode)
      : OpConversionPattern(ctx), mode(mode) {}

  /// Auto's rule: a BLAS pays where each output element sums over enough
  /// products and each group has rows enough (depthwise convolutions, one
  /// row and a 3x3 window, stay direct; bench/conv_time.py), and where the
  /// columns (the window's elements for every output position) stay within
  /// kMaxIm2colBytes: the memory model (LiveBytes) does not see that
  /// transient, so it is kept small next to the step's.
  static bool worthIm2col(ConvolutionOp op) {
    RankedTensorType kernel = op.getRhs().getType();
    RankedTensorType result = op.getType();
    int64_t reduction = kernel.getNumElements() / kernel.getDimSize(0);
    int64_t rows = kernel.getDimSize(0) / op.getGroups();
    int64_t columns = result.getNumElements() / result.getDimSize(1);
    int64_t bytes = op.getGroups() * reduction * columns *
                    result.getElementTypeBitWidth() / 8;
    return reduction >= kMinIm2colReduction && rows >= kMinIm2colRows &&
           bytes <= kMaxIm2colBytes;
  }
  static constexpr int64_t kMinIm2colReduction = 16, kMinIm2colRows = 4;
  static constexpr int64_t kMaxIm2colBytes = int64_t{64} << 20;

  LogicalResult
  matchAndRewrite(ConvolutionOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = cast<RankedTensorType>(op.getType());
    int64_t groups = op.getGroups();
    Value input = createDilatedPadded(rewriter, loc, adaptor.getLhs(),
                                      op.getLhsDilation(), op.getPadding());
    input = createGroupSplit(rewriter, loc, input, 1, groups);
    Value kernel = createGroupSplit(rewriter, loc, adaptor.getRhs(), 0, groups);
    bool im2col = mode == ConvolutionLowering::Im2col ||
                  (mode == ConvolutionLowering::Auto && worthIm2col(op));
    Value result = im2col ? createIm2col(op, input, kernel, rewriter)
                          : createDirect(op, input, kernel, rewriter);
    Type elementType = resultType.getElementType();
    result = createElementCast(rewriter, loc, result, elementType);
    rewriter.replaceOp(op, result);
    return success();
  }

private:
  /// The window's input index along spatial dim `d`: i * s + k * r.
  static AffineExpr windowIndex(ConvolutionOp op, int64_t d, AffineExpr i,
                                AffineExpr k) {
    return i * op.getStrides()[d] + k * op.getRhsDilation()[d];
  }

  static Value createDirect(ConvolutionOp op, Value input, Value kernel,
                            ConversionPatternRewriter &rewriter) {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    auto resultType = cast<RankedTensorType>(op.getType());
    int64_t spatial = op.getNumSpatialDims(), groups = op.getGroups();
    Type accumulatorType = getSumAccumulatorType(resultType.getElementType());
    SmallVector<int64_t> outShape = {resultType.getDimSize(0), groups,
                                     resultType.getDimSize(1) / groups};
    outShape.append(resultType.getShape().begin() + 2,
                    resultType.getShape().end());
    Value init = createFilled(rewriter, loc,
                              RankedTensorType::get(outShape, accumulatorType),
                              rewriter.getZeroAttr(accumulatorType));

    int64_t numDims = 4 + 2 * spatial;
    auto dim = [&](int64_t d) { return getAffineDimExpr(d, ctx); };
    AffineExpr n = dim(0), g = dim(1), o = dim(2), c = dim(3);
    SmallVector<AffineExpr> inExprs = {n, g, c}, kernelExprs = {g, o, c},
                            outExprs = {n, g, o};
    for (int64_t d = 0; d < spatial; ++d) {
      AffineExpr k = dim(4 + d), i = dim(4 + spatial + d);
      inExprs.push_back(windowIndex(op, d, i, k));
      kernelExprs.push_back(k);
      outExprs.push_back(i);
    }
    SmallVector<AffineMap> maps = {
        AffineMap::get(numDims, 0, inExprs, ctx),
        AffineMap::get(numDims, 0, kernelExprs, ctx),
        AffineMap::get(numDims, 0, outExprs, ctx)};
    SmallVector<utils::IteratorType> iterators(3,
                                               utils::IteratorType::parallel);
    iterators.append(1 + spatial, utils::IteratorType::reduction);
    iterators.append(spatial, utils::IteratorType::parallel);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{init.getType()}, ValueRange{input, kernel},
        ValueRange{init}, maps, iterators,
        [&](OpBuilder &b, Location loc, ValueRange args) {
          Value x = args[0], w = args[1];
          if (x.getType() != accumulatorType) {
            x = arith::ExtFOp::create(b, loc, accumulatorType, x);
            w = arith::ExtFOp::create(b, loc, accumulatorType, w);
          }
          Value product = arith::MulFOp::create(b, loc, x, w);
          linalg::YieldOp::create(
              b, loc, ValueRange{arith::AddFOp::create(b, loc, args[2],
                                                       product)});
        });
    SmallVector<ReassociationIndices> merge = {{0}, {1, 2}};
    for (int64_t d = 0; d < spatial; ++d)
      merge.push_back({3 + d});
    return tensor::CollapseShapeOp::create(
        rewriter, loc, resultType.clone(accumulatorType),
        generic.getResult(0), merge);
  }

  static Value createIm2col(ConvolutionOp op, Value input, Value kernel,
                            ConversionPatternRewriter &rewriter) {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    auto resultType = cast<RankedTensorType>(op.getType());
    auto kernelType = cast<RankedTensorType>(kernel.getType());
    Type elementType = resultType.getElementType();
    Type accumulatorType = getSumAccumulatorType(elementType);
    int64_t spatial = op.getNumSpatialDims(), groups = op.getGroups();
    int64_t batch = resultType.getDimSize(0);
    int64_t rows = kernelType.getDimSize(1), channels = kernelType.getDimSize(2);
    ArrayRef<int64_t> window = kernelType.getShape().drop_front(3);
    ArrayRef<int64_t> out = resultType.getShape().drop_front(2);
    int64_t windowSize = 1, outSize = 1;
    for (int64_t d = 0; d < spatial; ++d) {
      windowSize *= window[d];
      outSize *= out[d];
    }

    // cols[g, c, k..., n, i...] = x[n, g, c, i * s + k * r]: all parallel.
    SmallVector<int64_t> colsShape = {groups, channels};
    colsShape.append(window.begin(), window.end());
    colsShape.push_back(batch);
    colsShape.append(out.begin(), out.end());
    int64_t numDims = colsShape.size();
    auto dim = [&](int64_t d) { return getAffineDimExpr(d, ctx); };
    SmallVector<AffineExpr> inExprs = {dim(2 + spatial), dim(0), dim(1)};
    for (int64_t d = 0; d < spatial; ++d) {
      AffineExpr i = dim(3 + spatial + d), k = dim(2 + d);
      inExprs.push_back(windowIndex(op, d, i, k));
    }
    auto colsType = RankedTensorType::get(colsShape, elementType);
    SmallVector<AffineMap> maps = {AffineMap::get(numDims, 0, inExprs, ctx),
                                   rewriter.getMultiDimIdentityMap(numDims)};
    SmallVector<utils::IteratorType> iterators(numDims,
                                               utils::IteratorType::parallel);
    Value cols =
        linalg::GenericOp::create(
            rewriter, loc, TypeRange{colsType}, ValueRange{input},
            ValueRange{createEmpty(rewriter, loc, colsType)}, maps, iterators,
            [](OpBuilder &b, Location loc, ValueRange args) {
              linalg::YieldOp::create(b, loc, ValueRange{args[0]});
            })
            .getResult(0);

    // [G, C*K, N*I] x [G, O, C*K]: one matmul per group.
    auto group = [&](ArrayRef<int64_t> shape) {
      SmallVector<int64_t> withGroup;
      if (groups > 1)
        withGroup.push_back(groups);
      withGroup.append(shape.begin(), shape.end());
      return withGroup;
    };
    auto colsMatrix = RankedTensorType::get(
        group({channels * windowSize, batch * outSize}), elementType);
    auto kernelMatrix = RankedTensorType::get(
        group({rows, channels * windowSize}), elementType);
    auto productType = RankedTensorType::get(group({rows, batch * outSize}),
                                             accumulatorType);
    cols = createReshape(rewriter, loc, cols, colsMatrix);
    Value weights = createReshape(rewriter, loc, kernel, kernelMatrix);
    Value init = createFilled(rewriter, loc, productType,
                              rewriter.getZeroAttr(accumulatorType));
    Value product =
        groups > 1
            ? linalg::BatchMatmulOp::create(rewriter, loc,
                                            TypeRange{productType},
                                            ValueRange{weights, cols},
                                            ValueRange{init})
                  .getResult(0)
            : linalg::MatmulOp::create(rewriter, loc, TypeRange{productType},
                                       ValueRange{weights, cols},
                                       ValueRange{init})
                  .getResult(0);

    // [G, O, N, I...] -> [N, G, O, I...] -> [N, G*O, I...].
    SmallVector<int64_t> split = {groups, rows, batch};
    split.append(out.begin(), out.end());
    product = createReshape(rewriter, loc, product,
                            RankedTensorType::get(split, accumulatorType));
    SmallVector<int64_t> perm = {2, 0, 1};
    for (int64_t d = 0; d < spatial; ++d)
      perm.push_back(3 + d);
    SmallVector<int64_t> moved = {batch, groups, rows};
    moved.append(out.begin(), out.end());
    auto movedType = RankedTensorType::get(moved, accumulatorType);
    Value transposed =
        linalg::TransposeOp::create(rewriter, loc, product,
                                    createEmpty(rewriter, loc, movedType), perm)
            .getResult()[0];
    return createReshape(rewriter, loc, transposed,
                         resultType.clone(accumulatorType));
  }

  ConvolutionLowering mode;
};

} // namespace

void mlir::trace::trace_to_linalg::populateLinearPatterns(
    RewritePatternSet &patterns, ConvolutionLowering convolutions) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<ConvolutionPattern>(ctx, convolutions);
  patterns.add<MatmulLowering>(ctx);
}
