//===- TraceFoldTransposeIntoMatmul.cpp - transposes as indexing maps -----===//

#include "trace/Codegen/Common/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
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

/// The source of `value` if it is a linalg.transpose swapping exactly the
/// last two of `rank` dims.
Value transposeSource(Value value, int64_t rank) {
  auto transpose = value.getDefiningOp<linalg::TransposeOp>();
  if (!transpose)
    return {};
  SmallVector<int64_t> swapLast;
  for (int64_t i = 0; i < rank; ++i)
    swapLast.push_back(i);
  std::swap(swapLast[rank - 1], swapLast[rank - 2]);
  if (transpose.getPermutation() != ArrayRef<int64_t>(swapLast))
    return {};
  return transpose.getInput();
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
      if (Value source = transposeSource(inputs[i], rank)) {
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
