//===- GPUBlockReduction.cpp - a reduction as one block per output --------===//
//
// trace-gpu-map-linalg's lowering of a linalg reduction whose reduced
// extent is at least a warp: one block per output element, the block's
// threads striding over the reduction (consecutive threads read consecutive
// elements), each thread's partial combined across the block by
// gpu.all_reduce. Upstream's convert-gpu-to-nvvm lowers that op to warp
// shuffles and a shared-memory exchange between warps
// (mlir/lib/Dialect/GPU/Transforms/AllReduceLowering.cpp), so this file
// writes no shuffle or barrier itself.
//
//===----------------------------------------------------------------------===//

#include "GPUKernels.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;

namespace {

/// The gpu.all_reduce kind of a combiner, if it is one (all commutative
/// and associative up to floating-point rounding).
std::optional<gpu::AllReduceOperation> allReduceKind(Operation *op) {
  using K = gpu::AllReduceOperation;
  return llvm::TypeSwitch<Operation *, std::optional<K>>(op)
      .Case<arith::AddFOp, arith::AddIOp>([](auto) { return K::ADD; })
      .Case<arith::MulFOp, arith::MulIOp>([](auto) { return K::MUL; })
      .Case<arith::MaximumFOp>([](auto) { return K::MAXIMUMF; })
      .Case<arith::MinimumFOp>([](auto) { return K::MINIMUMF; })
      .Case<arith::MaxNumFOp>([](auto) { return K::MAXNUMF; })
      .Case<arith::MinNumFOp>([](auto) { return K::MINNUMF; })
      .Case<arith::MaxSIOp>([](auto) { return K::MAXSI; })
      .Case<arith::MinSIOp>([](auto) { return K::MINSI; })
      .Case<arith::MaxUIOp>([](auto) { return K::MAXUI; })
      .Case<arith::MinUIOp>([](auto) { return K::MINUI; })
      .Case<arith::AndIOp>([](auto) { return K::AND; })
      .Case<arith::OrIOp>([](auto) { return K::OR; })
      .Case<arith::XOrIOp>([](auto) { return K::XOR; })
      .Default([](Operation *) { return std::nullopt; });
}

/// Upstream's all-reduce lowering shuffles 32- and 64-bit values.
bool shuffleable(Type type) {
  return type.isF32() || type.isF64() || type.isInteger(32) ||
         type.isInteger(64);
}

/// One reduction result of the generic: yield = combiner(acc, x), where
/// `acc` is computed from the accumulator argument (and the index of the
/// first iteration, when a fill was folded in), and `x` not at all.
struct ReducedOutput {
  unsigned init;                // init operand number
  Operation *combiner;          // the op yielding the new accumulator
  unsigned accOperand;          // which of its operands is the acc side
  Operation *start;             // select(first iteration, v, acc), or null
  gpu::AllReduceOperation kind;
};

/// Everything in `body` that depends on an accumulator argument.
llvm::SetVector<Operation *> dependents(Block &body,
                                        ArrayRef<BlockArgument> accs) {
  llvm::SetVector<Operation *> result;
  for (Operation &op : body.without_terminator())
    if (llvm::any_of(op.getOperands(), [&](Value v) {
          if (auto arg = dyn_cast<BlockArgument>(v))
            return llvm::is_contained(accs, arg);
          return result.contains(v.getDefiningOp());
        }))
      result.insert(&op);
  return result;
}

/// Whether `cond` is true exactly at the first iteration of the reduction
/// dims: a conjunction of `linalg.index d == 0` over each of them, what
/// trace-lower-fusions builds when it folds a fill into a reduction.
bool isFirstIteration(Value cond, ArrayRef<unsigned> reductionDims) {
  llvm::SmallDenseSet<unsigned> seen;
  SmallVector<Value> work{cond};
  while (!work.empty()) {
    Value v = work.pop_back_val();
    if (auto conj = v.getDefiningOp<arith::AndIOp>()) {
      work.push_back(conj.getLhs());
      work.push_back(conj.getRhs());
      continue;
    }
    auto cmp = v.getDefiningOp<arith::CmpIOp>();
    if (!cmp || cmp.getPredicate() != arith::CmpIPredicate::eq)
      return false;
    Value lhs = cmp.getLhs(), rhs = cmp.getRhs();
    if (!lhs.getDefiningOp<linalg::IndexOp>())
      std::swap(lhs, rhs);
    auto index = lhs.getDefiningOp<linalg::IndexOp>();
    if (!index || !isConstantIntValue(rhs, 0) ||
        !llvm::is_contained(reductionDims, index.getDim()))
      return false;
    seen.insert(index.getDim());
  }
  return seen.size() == reductionDims.size();
}

} // namespace

SmallVector<Value> trace::delinearizeStatic(OpBuilder &b, Location loc,
                                           Value linear,
                                           ArrayRef<int64_t> ranges) {
  if (ranges.empty())
    return {};
  if (ranges.size() == 1)
    return {linear};
  ValueRange indices = affine::AffineDelinearizeIndexOp::create(
                          b, loc, linear, ValueRange{}, ranges)
                          .getResults();
  return SmallVector<Value>(indices.begin(), indices.end());
}

SmallVector<Value> trace::indicesAt(OpBuilder &b, Location loc, AffineMap map,
                                    ArrayRef<Value> point) {
  SmallVector<Value> result;
  for (AffineExpr expr : map.getResults()) {
    if (auto dim = dyn_cast<AffineDimExpr>(expr)) {
      result.push_back(point[dim.getPosition()]);
      continue;
    }
    result.push_back(affine::AffineApplyOp::create(
        b, loc, AffineMap::get(map.getNumDims(), 0, expr), point));
  }
  return result;
}

FailureOr<gpu::LaunchOp>
trace::lowerToBlockReduction(linalg::GenericOp op, int64_t maxThreads,
                             RewriterBase &rewriter) {
  if (!op.hasPureBufferSemantics() || op.getNumReductionLoops() == 0 ||
      maxThreads < 32 || op->getParentOfType<scf::ParallelOp>() ||
      linalg::isaContractionOpInterface(op))
    return failure();
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (ShapedType::isDynamicShape(ranges))
    return failure();
  unsigned numParallel = op.getNumParallelLoops();
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  for (auto [dim, kind] : llvm::enumerate(iterators))
    if ((kind == utils::IteratorType::parallel) != (dim < numParallel))
      return failure(); // trace-gpu-map-linalg puts parallel dims first
  int64_t outputs = 1, reduced = 1;
  for (auto [dim, range] : llvm::enumerate(ranges))
    (dim < numParallel ? outputs : reduced) *= range;
  if (reduced < 32 || outputs >= (int64_t{1} << 31))
    return failure();
  SmallVector<unsigned> reductionDims;
  op.getReductionDims(reductionDims);

  // Classify the outputs: accumulators (maps over parallel dims only) and
  // outputs written at every iteration point.
  Block &body = op.getRegion().front();
  Operation *yield = body.getTerminator();
  if (llvm::any_of(body.without_terminator(),
                   [](Operation &inner) { return inner.getNumRegions() > 0; }))
    return failure();
  SmallVector<BlockArgument> accs;
  SmallVector<ReducedOutput> reducedOutputs;
  for (OpOperand &init : op.getDpsInitsMutable()) {
    AffineMap map = op.getMatchingIndexingMap(&init);
    bool perPoint = llvm::any_of(
        llvm::seq<unsigned>(numParallel, ranges.size()),
        [&](unsigned dim) { return map.isFunctionOfDim(dim); });
    if (!perPoint)
      accs.push_back(op.getMatchingBlockArgument(&init));
  }
  llvm::SetVector<Operation *> accOps = dependents(body, accs);
  for (OpOperand &init : op.getDpsInitsMutable()) {
    BlockArgument arg = op.getMatchingBlockArgument(&init);
    Value yielded = yield->getOperand(init.getOperandNumber() -
                                      op.getNumDpsInputs());
    Operation *def = yielded.getDefiningOp();
    if (!llvm::is_contained(accs, arg)) {
      // A per-point output must not read any accumulator.
      if (def && accOps.contains(def))
        return failure();
      continue;
    }
    if (!shuffleable(arg.getType()) || !def || def->getBlock() != &body ||
        def->getNumOperands() != 2 || def->getNumResults() != 1)
      return failure();
    std::optional<gpu::AllReduceOperation> kind = allReduceKind(def);
    if (!kind)
      return failure();
    // combiner(acc, x) or combiner(select(first iteration, v, acc), x),
    // with x reading no accumulator: the loop is a fold of the x values,
    // so threads can fold parts of it and the block combine the parts.
    auto startOf = [&](Value v) -> std::optional<Operation *> {
      if (v == arg)
        return nullptr;
      auto select = v.getDefiningOp<arith::SelectOp>();
      if (select && select->getBlock() == &body &&
          select.getFalseValue() == arg &&
          isFirstIteration(select.getCondition(), reductionDims)) {
        // The start value is the same at every point: from outside the
        // body, or a constant inside it.
        Value value = select.getTrueValue();
        Operation *init = value.getDefiningOp();
        bool outside = !op->isAncestor(value.getParentBlock()->getParentOp());
        if (outside || (init && init->getNumOperands() == 0 &&
                        init->hasTrait<OpTrait::ConstantLike>()))
          return select.getOperation();
      }
      return std::nullopt;
    };
    std::optional<Operation *> start;
    unsigned accOperand = 0;
    for (unsigned i : {0u, 1u})
      if ((start = startOf(def->getOperand(i)))) {
        accOperand = i;
        break;
      }
    Value x = def->getOperand(1 - accOperand);
    if (!start || llvm::is_contained(accs, x) ||
        (x.getDefiningOp() && accOps.contains(x.getDefiningOp())))
      return failure();
    reducedOutputs.push_back(
        {init.getOperandNumber(), def, accOperand, *start, *kind});
  }
  // The ops that read an accumulator are these combiners and selects,
  // nothing else: a per-point output or an x reading one would make the
  // loop a recurrence.
  llvm::SmallPtrSet<Operation *, 8> expected;
  for (const ReducedOutput &r : reducedOutputs) {
    expected.insert(r.combiner);
    if (r.start)
      expected.insert(r.start);
  }
  if (reducedOutputs.empty() || expected.size() != accOps.size() ||
      !llvm::all_of(accOps, [&](Operation *o) { return expected.contains(o); }))
    return failure();

  Location loc = op.getLoc();
  int64_t threads = std::min<int64_t>(maxThreads, reduced) / 32 * 32;
  rewriter.setInsertionPoint(op);
  auto cst = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(rewriter, loc, v);
  };
  Value one = cst(1);
  Value gridSize = cst(outputs);
  Value blockSize = cst(threads);
  auto launch = gpu::LaunchOp::create(rewriter, loc, gridSize, one, one,
                                      blockSize, one, one);
  Block &kernel = launch.getBody().front();
  rewriter.setInsertionPointToStart(&kernel);

  SmallVector<Value> dims =
      delinearizeStatic(rewriter, loc, launch.getBlockIds().x,
                        ArrayRef(ranges).take_front(numParallel));
  Value tid = launch.getThreadIds().x;

  // Each thread: its elements r = tid, tid + threads, ...; the first one
  // starts its partials, so no identity element is needed (threads <=
  // reduced, so every thread has one).
  SmallVector<Value> zeros;
  for (const ReducedOutput &r : reducedOutputs)
    zeros.push_back(arith::ConstantOp::create(
        rewriter, loc, rewriter.getZeroAttr(body.getArgument(r.init).getType())));
  Value upper = cst(reduced);
  Value step = cst(threads);
  auto loop = scf::ForOp::create(rewriter, loc, tid, upper, step, zeros);
  {
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToStart(loop.getBody());
    SmallVector<Value> point(dims);
    llvm::append_range(point, delinearizeStatic(
                                  rewriter, loc, loop.getInductionVar(),
                                  ArrayRef(ranges).drop_front(numParallel)));
    IRMapping mapping;
    for (OpOperand &operand : op->getOpOperands()) {
      BlockArgument arg = op.getMatchingBlockArgument(&operand);
      if (llvm::is_contained(accs, arg) || arg.use_empty())
        continue;
      mapping.map(arg, memref::LoadOp::create(
                           rewriter, loc, operand.get(),
                           indicesAt(rewriter, loc, op.getMatchingIndexingMap(&operand),
                                     point)));
    }
    for (Operation &inner : body.without_terminator()) {
      if (accOps.contains(&inner))
        continue;
      if (auto index = dyn_cast<linalg::IndexOp>(inner)) {
        mapping.map(index.getResult(), point[index.getDim()]);
        continue;
      }
      rewriter.clone(inner, mapping);
    }
    // Per-point outputs are stored at this point.
    for (OpOperand &init : op.getDpsInitsMutable()) {
      if (llvm::is_contained(accs, op.getMatchingBlockArgument(&init)))
        continue;
      Value value = mapping.lookupOrDefault(yield->getOperand(
          init.getOperandNumber() - op.getNumDpsInputs()));
      memref::StoreOp::create(
          rewriter, loc, value, init.get(),
          indicesAt(rewriter, loc, op.getMatchingIndexingMap(&init), point));
    }
    Value first = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq,
                                        loop.getInductionVar(), tid);
    SmallVector<Value> next;
    for (auto [r, partial] :
         llvm::zip(reducedOutputs, loop.getRegionIterArgs())) {
      Value x = mapping.lookupOrDefault(r.combiner->getOperand(1 - r.accOperand));
      IRMapping combine;
      combine.map(r.combiner->getOperand(r.accOperand), partial);
      combine.map(r.combiner->getOperand(1 - r.accOperand), x);
      Value combined = rewriter.clone(*r.combiner, combine)->getResult(0);
      next.push_back(arith::SelectOp::create(rewriter, loc, first, x, combined));
    }
    scf::YieldOp::create(rewriter, loc, next);
  }

  // The block combines its threads' partials, and thread 0 stores
  // start (+) total, the start being the accumulator's value before the
  // loop or the folded fill's value.
  SmallVector<Value> firstPoint(dims);
  for (unsigned dim = numParallel; dim < ranges.size(); ++dim)
    firstPoint.push_back(cst(0));
  SmallVector<Value> totals;
  for (auto [r, partial] : llvm::zip(reducedOutputs, loop.getResults()))
    totals.push_back(gpu::AllReduceOp::create(
        rewriter, loc, partial,
        gpu::AllReduceOperationAttr::get(rewriter.getContext(), r.kind),
        rewriter.getUnitAttr()));
  Value isThread0 = arith::CmpIOp::create(
      rewriter, loc, arith::CmpIPredicate::eq, tid, cst(0));
  auto ifOp = scf::IfOp::create(rewriter, loc, isThread0);
  rewriter.setInsertionPointToStart(&ifOp.getThenRegion().front());
  for (auto [r, total] : llvm::zip(reducedOutputs, totals)) {
    OpOperand &init = op->getOpOperand(r.init);
    SmallVector<Value> outIndices =
        indicesAt(rewriter, loc, op.getMatchingIndexingMap(&init), firstPoint);
    Value start;
    if (!r.start) {
      start = memref::LoadOp::create(rewriter, loc, init.get(), outIndices);
    } else {
      start = cast<arith::SelectOp>(r.start).getTrueValue();
      if (Operation *constant = start.getDefiningOp();
          constant && constant->getBlock() == &body)
        start = rewriter.clone(*constant)->getResult(0);
    }
    IRMapping combine;
    combine.map(r.combiner->getOperand(r.accOperand), start);
    combine.map(r.combiner->getOperand(1 - r.accOperand), total);
    Value result = rewriter.clone(*r.combiner, combine)->getResult(0);
    memref::StoreOp::create(rewriter, loc, result, init.get(), outIndices);
  }
  rewriter.setInsertionPointAfter(ifOp);
  gpu::TerminatorOp::create(rewriter, loc);
  rewriter.eraseOp(op);
  return launch;
}
