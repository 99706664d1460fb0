//===- TraceLowerFusions.cpp - one linalg.generic per trace.fusion ---------===//
//
// Inside each trace.fusion region left by trace-to-linalg{keep-fusions}:
// generalize, move reshapes aside, fuse vertically (multi-output) and
// horizontally, then inline the region. See the pass description.
//
//===----------------------------------------------------------------------===//

#include "trace/Codegen/Common/Passes.h"

#include "trace/Dialect/Trace/IR/TraceOps.h"

#include "mlir/Analysis/TopologicalSortUtils.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/DenseSet.h"

#define DEBUG_TYPE "trace-lower-fusions"

namespace mlir::trace {
#define GEN_PASS_DEF_TRACELOWERFUSIONSPASS
#include "trace/Codegen/Common/Passes.h.inc"
} // namespace mlir::trace

using namespace mlir;
using namespace mlir::trace;

namespace {

/// Fuse a producer generic into a consumer generic when the consumer reads
/// each produced element once; the producer's other readers keep reading
/// it as an extra result of the fused op (all-parallel consumers), so
/// nothing is recomputed.
bool fusesWithoutRecompute(OpOperand *operand) {
  auto producer = operand->get().getDefiningOp<linalg::GenericOp>();
  auto consumer = dyn_cast<linalg::GenericOp>(operand->getOwner());
  if (!producer || !consumer)
    return false;
  if (producer.getNumParallelLoops() != producer.getNumLoops())
    return false;
  // Into a reduction, upstream keeps a producer with other readers alive
  // beside the fused op and computes it twice; mergeOnePair fuses that case.
  if (!producer->hasOneUse() &&
      consumer.getNumParallelLoops() != consumer.getNumLoops())
    return false;
  return consumer.getMatchingIndexingMap(operand).isPermutation();
}

/// Reshapes move through generics only within a fusion, where no matmul
/// can be expanded into a generic.
bool expandsThroughReshape(OpOperand *operand) {
  return isa<linalg::GenericOp>(operand->getOwner()) &&
         (!operand->get().getDefiningOp() ||
          isa<linalg::GenericOp, tensor::CollapseShapeOp,
              tensor::ExpandShapeOp>(operand->get().getDefiningOp()));
}

/// True if `to` depends on `from` through the ops of `block`; with
/// `indirectOnly`, paths of one edge (`to` reading `from` directly) do not
/// count.
bool dependsOn(Operation *to, Operation *from, Block &block,
               bool indirectOnly = false) {
  SmallVector<Operation *> stack;
  DenseSet<Operation *> seen;
  auto pushOperands = [&](Operation *op, bool skipFrom) {
    for (Value operand : op->getOperands()) {
      Operation *def = operand.getDefiningOp();
      if (!def || def->getBlock() != &block || (skipFrom && def == from))
        continue;
      if (seen.insert(def).second)
        stack.push_back(def);
    }
  };
  pushOperands(to, indirectOnly);
  while (!stack.empty()) {
    Operation *op = stack.pop_back_val();
    if (op == from)
      return true;
    pushOperands(op, /*skipFrom=*/false);
  }
  return false;
}

/// An all-parallel generic whose every result element is written at one
/// iteration point: it can run inside another generic's reduction loops.
bool writesEachPointOnce(linalg::GenericOp op) {
  return op.getNumParallelLoops() == op.getNumLoops() &&
         llvm::all_of(op.getDpsInitsMutable(), [&](OpOperand &init) {
           return op.getMatchingIndexingMap(&init).isPermutation();
         });
}

/// Whether `a` and `b` (a before b) can become one generic: the same loops,
/// and either no dependence between them (siblings), or `b` reads results
/// of `a` only directly and at the iteration point that wrote them, `a`
/// being all-parallel or of b's loop kinds (a producer whose other readers
/// keep it alive, fused into a reduction: upstream's fusion would compute
/// it twice).
bool canMerge(linalg::GenericOp a, linalg::GenericOp b, Block &block) {
  if (a.getStaticLoopRanges() != b.getStaticLoopRanges())
    return false;
  if (dependsOn(a, b, block))
    return false;
  bool direct = llvm::any_of(b->getOperands(), [&](Value operand) {
    return operand.getDefiningOp() == a.getOperation();
  });
  if (!direct)
    return (a.getIteratorTypesArray() == b.getIteratorTypesArray() ||
            writesEachPointOnce(a) || writesEachPointOnce(b)) &&
           !dependsOn(b, a, block);
  bool sameLoops = a.getIteratorTypesArray() == b.getIteratorTypesArray();
  if ((a.getNumParallelLoops() != a.getNumLoops() && !sameLoops) ||
      dependsOn(b, a, block, /*indirectOnly=*/true))
    return false;
  for (OpOperand &operand : b->getOpOperands()) {
    auto result = dyn_cast<OpResult>(operand.get());
    if (!result || result.getOwner() != a.getOperation())
      continue;
    // Each iteration point writes its own element of the result, and b
    // reads that element at the same point.
    AffineMap written = a.getIndexingMapMatchingResult(result);
    if (!b.isDpsInput(&operand) || !written.isPermutation() ||
        b.getMatchingIndexingMap(&operand) != written)
      return false;
  }
  return true;
}

/// Makes one generic of `a` and `b` (canMerge holds): a's operands and
/// results, then b's, the loop kinds of the one with reductions; b reads
/// a's results from a's yielded values inside the body.
void merge(linalg::GenericOp a, linalg::GenericOp b, Block &block,
           RewriterBase &rewriter) {
  auto readsA = [&](OpOperand *operand) {
    return operand->get().getDefiningOp() == a.getOperation();
  };
  SmallVector<Value> inputs;
  SmallVector<AffineMap> maps;
  for (OpOperand *operand : a.getDpsInputOperands()) {
    inputs.push_back(operand->get());
    maps.push_back(a.getMatchingIndexingMap(operand));
  }
  for (OpOperand *operand : b.getDpsInputOperands())
    if (!readsA(operand)) {
      inputs.push_back(operand->get());
      maps.push_back(b.getMatchingIndexingMap(operand));
    }
  SmallVector<Value> inits;
  for (linalg::GenericOp g : {a, b})
    for (OpOperand &operand : g.getDpsInitsMutable()) {
      inits.push_back(operand.get());
      maps.push_back(g.getMatchingIndexingMap(&operand));
    }
  SmallVector<Type> resultTypes(a.getResultTypes());
  llvm::append_range(resultTypes, b.getResultTypes());

  rewriter.setInsertionPointAfter(b);
  // The loop kinds of the one with reductions, if either has some.
  linalg::GenericOp loops = writesEachPointOnce(b) ? a : b;
  auto merged = linalg::GenericOp::create(rewriter, b.getLoc(), resultTypes,
                                          inputs, inits, maps,
                                          loops.getIteratorTypesArray());
  Block *body = rewriter.createBlock(&merged.getRegion());
  Block &aBody = *a.getBlock(), &bBody = *b.getBlock();
  IRMapping mapping;
  auto addArg = [&](BlockArgument arg) {
    mapping.map(arg, body->addArgument(arg.getType(), arg.getLoc()));
  };
  for (OpOperand *operand : a.getDpsInputOperands())
    addArg(a.getMatchingBlockArgument(operand));
  for (OpOperand *operand : b.getDpsInputOperands())
    if (!readsA(operand))
      addArg(b.getMatchingBlockArgument(operand));
  for (OpOperand &operand : a.getDpsInitsMutable())
    addArg(a.getMatchingBlockArgument(&operand));
  for (OpOperand &operand : b.getDpsInitsMutable())
    addArg(b.getMatchingBlockArgument(&operand));

  rewriter.setInsertionPointToStart(body);
  SmallVector<Value> yielded;
  for (Operation &op : aBody.without_terminator())
    rewriter.clone(op, mapping);
  for (Value value : aBody.getTerminator()->getOperands())
    yielded.push_back(mapping.lookupOrDefault(value));
  for (OpOperand *operand : b.getDpsInputOperands())
    if (readsA(operand))
      mapping.map(b.getMatchingBlockArgument(operand),
                  yielded[cast<OpResult>(operand->get()).getResultNumber()]);
  for (Operation &op : bBody.without_terminator())
    rewriter.clone(op, mapping);
  for (Value value : bBody.getTerminator()->getOperands())
    yielded.push_back(mapping.lookupOrDefault(value));
  linalg::YieldOp::create(rewriter, b.getLoc(), yielded);

  rewriter.replaceOp(b, merged.getResults().drop_front(a.getNumResults()));
  rewriter.replaceOp(a, merged.getResults().take_front(a.getNumResults()));
  // a's readers between a and b now precede the merged op.
  sortTopologically(&block);
}

/// Merges one pair of generics of the region that canMerge accepts.
bool mergeOnePair(Block &block, RewriterBase &rewriter) {
  SmallVector<linalg::GenericOp> generics;
  for (Operation &op : block)
    if (auto generic = dyn_cast<linalg::GenericOp>(op))
      generics.push_back(generic);
  for (size_t i = 0; i < generics.size(); ++i)
    for (size_t j = i + 1; j < generics.size(); ++j)
      if (canMerge(generics[i], generics[j], block)) {
        merge(generics[i], generics[j], block, rewriter);
        return true;
      }
  return false;
}

/// A reduction's accumulator that a fill initializes takes the fill's value
/// at the first iteration of the reduction loops instead (the loops run
/// from 0, as linalg.generic's semantics and both pipelines' loop lowerings
/// order them), so the fill is no kernel of its own.
void foldFillsIntoReductions(Block &block, RewriterBase &rewriter) {
  SmallVector<linalg::GenericOp> reductions;
  for (Operation &op : block)
    if (auto generic = dyn_cast<linalg::GenericOp>(op);
        generic && generic.getNumReductionLoops() > 0)
      reductions.push_back(generic);
  for (linalg::GenericOp generic : reductions) {
    SmallVector<unsigned> reductionDims;
    generic.getReductionDims(reductionDims);
    for (OpOperand &init : generic.getDpsInitsMutable()) {
      auto fill = init.get().getDefiningOp<linalg::FillOp>();
      AffineMap map = generic.getMatchingIndexingMap(&init);
      if (!fill || !fill->hasOneUse() ||
          llvm::any_of(reductionDims, [&](unsigned dim) {
            return map.isFunctionOfDim(dim);
          }))
        continue;
      BlockArgument accumulator = generic.getMatchingBlockArgument(&init);
      Location loc = fill.getLoc();
      rewriter.setInsertionPointToStart(generic.getBlock());
      Value first;
      for (unsigned dim : reductionDims) {
        Value index = linalg::IndexOp::create(rewriter, loc, dim);
        Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
        Value isZero = arith::CmpIOp::create(
            rewriter, loc, arith::CmpIPredicate::eq, index, zero);
        first = first ? arith::AndIOp::create(rewriter, loc, first, isZero)
                            .getResult()
                      : isZero;
      }
      auto start = arith::SelectOp::create(rewriter, loc, first,
                                           fill.getInputs()[0], accumulator);
      rewriter.replaceAllUsesExcept(accumulator, start, start);
      rewriter.modifyOpInPlace(
          generic, [&] { init.set(fill.getOutputs()[0]); });
      rewriter.eraseOp(fill);
    }
  }
}

LogicalResult fuseRegion(FusionOp fusion) {
  MLIRContext *ctx = fusion.getContext();
  Block &block = fusion.getBody().front();
  IRRewriter rewriter(ctx);

  SmallVector<linalg::LinalgOp> named;
  block.walk([&](Operation *op) {
    if (isa<linalg::TransposeOp, linalg::ReduceOp>(op))
      named.push_back(cast<linalg::LinalgOp>(op));
  });
  for (linalg::LinalgOp op : named) {
    rewriter.setInsertionPoint(op);
    if (failed(linalg::generalizeNamedOp(rewriter, op)))
      return op.emitOpError("cannot be generalized inside a fusion");
  }

  RewritePatternSet patterns(ctx);
  linalg::populateFoldReshapeOpsByExpansionPatterns(patterns,
                                                    expandsThroughReshape);
  linalg::populateElementwiseOpsFusionPatterns(patterns,
                                               fusesWithoutRecompute);
  linalg::populateEraseUnusedOperandsAndResultsPatterns(patterns);
  tensor::CollapseShapeOp::getCanonicalizationPatterns(patterns, ctx);
  tensor::ExpandShapeOp::getCanonicalizationPatterns(patterns, ctx);
  FrozenRewritePatternSet frozen(std::move(patterns));
  do {
    if (failed(applyPatternsGreedily(fusion.getBody(), frozen)))
      return fusion.emitOpError("fusion patterns did not converge");
  } while (mergeOnePair(block, rewriter));
  foldFillsIntoReductions(block, rewriter);
  return success();
}

/// Replaces the region by its body, as trace-to-linalg does without
/// keep-fusions.
void inlineRegion(FusionOp fusion, RewriterBase &rewriter) {
  Block &body = fusion.getBody().front();
  auto yield = cast<YieldOp>(body.getTerminator());
  rewriter.inlineBlockBefore(&body, fusion, fusion.getInputs());
  // Yielded block arguments were replaced by the inputs while inlining.
  rewriter.replaceOp(fusion, yield.getValues());
  rewriter.eraseOp(yield);
}

struct TraceLowerFusionsPass final
    : trace::impl::TraceLowerFusionsPassBase<TraceLowerFusionsPass> {
  void runOnOperation() override {
    SmallVector<FusionOp> fusions;
    getOperation()->walk([&](FusionOp fusion) { fusions.push_back(fusion); });
    IRRewriter rewriter(&getContext());
    for (FusionOp fusion : fusions) {
      WalkResult traceOps = fusion.getBody().walk([](Operation *op) {
        if (isa<TraceDialect>(op->getDialect()) && !isa<YieldOp>(op)) {
          op->emitOpError("must be lowered (trace-to-linalg{keep-fusions}) "
                          "before trace-lower-fusions");
          return WalkResult::interrupt();
        }
        return WalkResult::advance();
      });
      if (traceOps.wasInterrupted() || failed(fuseRegion(fusion)))
        return signalPassFailure();
      inlineRegion(fusion, rewriter);
    }
  }
};

} // namespace
