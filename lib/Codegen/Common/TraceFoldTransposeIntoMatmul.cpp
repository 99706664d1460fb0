//===- TraceFoldTransposeIntoMatmul.cpp - transposes as indexing maps -----===//

#include "trace/Codegen/Common/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#define DEBUG_TYPE "trace-fold-transpose-into-matmul"

namespace mlir::trace {
#define GEN_PASS_DEF_TRACEFOLDTRANSPOSEINTOMATMULPASS
#include "trace/Codegen/Common/Passes.h.inc"
} // namespace mlir::trace

using namespace mlir;

namespace {

/// The input of `value`'s producer if it is a linalg.transpose swapping
/// exactly the last two of its dims.
Value swappedInput(Value value) {
  auto transpose = value.getDefiningOp<linalg::TransposeOp>();
  if (!transpose)
    return {};
  int64_t rank = transpose.getPermutation().size();
  SmallVector<int64_t> swapLast;
  for (int64_t i = 0; i < rank; ++i)
    swapLast.push_back(i);
  std::swap(swapLast[rank - 1], swapLast[rank - 2]);
  if (transpose.getPermutation() != ArrayRef<int64_t>(swapLast))
    return {};
  return transpose.getInput();
}

/// A value whose last two of `rank` dims `value` swaps: the input of a
/// transpose of the last two dims, or, for a transpose of a higher rank
/// whose leading (batch) dims a collapse_shape then merges, as a 4-D
/// attention matmul's [B, H, T, T] operand becomes [B * H, T, T], the same
/// collapse of the transpose's input (created before `op`).
Value transposeSource(PatternRewriter &rewriter, Operation *op, Value value,
                      int64_t rank) {
  if (rank < 2)
    return {};
  auto collapse = value.getDefiningOp<tensor::CollapseShapeOp>();
  if (!collapse)
    return swappedInput(value);
  SmallVector<ReassociationIndices> groups =
      collapse.getReassociationIndices();
  if (static_cast<int64_t>(groups.size()) != rank ||
      groups[rank - 1].size() != 1 || groups[rank - 2].size() != 1)
    return {};
  Value input = swappedInput(collapse.getSrc());
  if (!input)
    return {};
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(op);
  return tensor::CollapseShapeOp::create(rewriter, collapse.getLoc(), input,
                                         groups);
}

/// Swaps the last two results of an indexing map.
AffineMap swapLastResults(AffineMap map) {
  SmallVector<AffineExpr> results(map.getResults());
  std::swap(results[results.size() - 1], results[results.size() - 2]);
  return AffineMap::get(map.getNumDims(), 0, results, map.getContext());
}

template <typename MatmulOpT>
struct FoldTransposeIntoMatmul : OpRewritePattern<MatmulOpT> {
  using OpRewritePattern<MatmulOpT>::OpRewritePattern;

  LogicalResult matchAndRewrite(MatmulOpT op,
                                PatternRewriter &rewriter) const override {
    if (!op.hasPureTensorSemantics())
      return failure();
    int64_t rank = cast<ShapedType>(op.getInputs()[0].getType()).getRank();
    SmallVector<AffineMap> maps = op.getIndexingMapsArray();
    SmallVector<Value> inputs(op.getInputs());
    bool changed = false;
    for (int i = 0; i < 2; ++i) {
      // Only maps that are still projections onto plain dims can be
      // swapped meaningfully; the default and already-swapped maps are.
      if (!maps[i].isProjectedPermutation())
        continue;
      if (Value source = transposeSource(rewriter, op, inputs[i], rank)) {
        inputs[i] = source;
        maps[i] = swapLastResults(maps[i]);
        changed = true;
      }
    }
    if (!changed)
      return failure();
    SmallVector<Attribute> mapAttrs;
    for (AffineMap map : maps)
      mapAttrs.push_back(AffineMapAttr::get(map));
    SmallVector<NamedAttribute> attrs = {rewriter.getNamedAttr(
        "indexing_maps", rewriter.getArrayAttr(mapAttrs))};
    rewriter.replaceOpWithNewOp<MatmulOpT>(op, op->getResultTypes(), inputs,
                                           op.getOutputs(), attrs);
    return success();
  }
};

struct TraceFoldTransposeIntoMatmulPass final
    : trace::impl::TraceFoldTransposeIntoMatmulPassBase<
          TraceFoldTransposeIntoMatmulPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<FoldTransposeIntoMatmul<linalg::MatmulOp>,
                 FoldTransposeIntoMatmul<linalg::BatchMatmulOp>>(
        &getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
