//===- TraceParallelLoops.cpp - which parallel loops get a thread team ----===//
//
// convert-scf-to-openmp makes an OpenMP team of every scf.parallel. This
// pass decides which deserve one: the outermost loop of a nest with enough
// work. The rest become scf.for nests. See the pass description in
// Passes.td.
//
//===----------------------------------------------------------------------===//

#include "trace/Codegen/CPU/Passes.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"

#define DEBUG_TYPE "trace-parallel-loops"

namespace mlir::trace {
#define GEN_PASS_DEF_TRACEPARALLELLOOPSPASS
#include "trace/Codegen/CPU/Passes.h.inc"
} // namespace mlir::trace

using namespace mlir;

namespace {

/// Saturating product: work estimates only need to compare with a bound.
int64_t times(int64_t a, int64_t b) {
  int64_t product;
  if (__builtin_mul_overflow(a, b, &product))
    return std::numeric_limits<int64_t>::max();
  return product;
}

int64_t plus(int64_t a, int64_t b) {
  int64_t sum;
  if (__builtin_add_overflow(a, b, &sum))
    return std::numeric_limits<int64_t>::max();
  return sum;
}

/// Iterations of one loop dim; a dynamic bound counts as many.
int64_t tripCount(Value lb, Value ub, Value step) {
  std::optional<int64_t> l = getConstantIntValue(lb),
                         u = getConstantIntValue(ub),
                         s = getConstantIntValue(step);
  if (!l || !u || !s || *s <= 0)
    return std::numeric_limits<int64_t>::max();
  if (*u <= *l)
    return 0;
  int64_t span;
  if (__builtin_sub_overflow(*u, *l, &span))
    return std::numeric_limits<int64_t>::max();
  return llvm::divideCeilSigned(span, *s);
}

/// Iterations of dims [begin, end) of `loop`.
int64_t tripCount(scf::ParallelOp loop, unsigned begin, unsigned end) {
  int64_t count = 1;
  for (unsigned d = begin; d < end; ++d)
    count = times(count, tripCount(loop.getLowerBound()[d],
                                   loop.getUpperBound()[d], loop.getStep()[d]));
  return count;
}

int64_t tripCount(scf::ParallelOp loop) {
  return tripCount(loop, 0, loop.getNumLoops());
}

/// Ops `block` runs, a nested loop's body counted once per iteration.
int64_t work(Block &block) {
  int64_t total = 0;
  for (Operation &op : block) {
    int64_t one = 1;
    if (auto loop = dyn_cast<scf::ForOp>(op))
      one = times(tripCount(loop.getLowerBound(), loop.getUpperBound(),
                            loop.getStep()),
                  work(*loop.getBody()));
    else if (auto loop = dyn_cast<scf::ParallelOp>(op))
      one = times(tripCount(loop), work(*loop.getBody()));
    else
      for (Region &region : op.getRegions())
        for (Block &inner : region)
          one = plus(one, work(inner));
    total = plus(total, one);
  }
  return total;
}

/// Replaces `loop` by scf.for loops over its dims, the first dim
/// outermost; its reductions become the loops' iteration arguments,
/// combined in iteration order. Upstream's scf-parallel-for-to-nested-fors
/// does this as a pass over every loop and exposes no function for one,
/// and this pass must choose which loops keep their team.
void runInOrder(RewriterBase &rewriter, scf::ParallelOp loop) {
  rewriter.setInsertionPoint(loop);
  auto reduce = cast<scf::ReduceOp>(loop.getBody()->getTerminator());
  scf::LoopNest nest = scf::buildLoopNest(
      rewriter, loop.getLoc(), loop.getLowerBound(), loop.getUpperBound(),
      loop.getStep(), loop.getInitVals(),
      [&](OpBuilder &b, Location loc, ValueRange ivs,
          ValueRange accumulators) {
        IRMapping map;
        map.map(loop.getInductionVars(), ivs);
        for (Operation &op : loop.getBody()->without_terminator())
          b.clone(op, map);
        scf::ValueVector combined;
        for (auto [i, region] : llvm::enumerate(reduce.getReductions())) {
          Block &combine = region.front();
          map.map(combine.getArgument(0), accumulators[i]);
          map.map(combine.getArgument(1),
                  map.lookupOrDefault(reduce.getOperands()[i]));
          for (Operation &op : combine.without_terminator())
            b.clone(op, map);
          combined.push_back(map.lookupOrDefault(
              cast<scf::ReduceReturnOp>(combine.getTerminator())
                  .getResult()));
        }
        return combined;
      });
  rewriter.replaceOp(loop, nest.results);
}

/// Iterations the team's threads share at least, when the loop has them:
/// enough pieces to balance a few dozen threads.
constexpr int64_t kShares = 64;

/// Keeps the fewest leading dims of `loop` with at least kShares
/// iterations parallel, never the innermost of several, and makes the
/// others scf.for loops inside it. The team's loop then hands out whole
/// rows, and the innermost dim stays a plain loop LLVM vectorizes, instead
/// of one collapsed index every iteration divides back into its dims.
void keepLeadingDims(RewriterBase &rewriter, scf::ParallelOp loop) {
  unsigned dims = loop.getNumLoops(), kept = 0;
  int64_t shares = 1;
  while (kept < std::max(dims - 1, 1u) && shares < kShares) {
    shares = times(shares, tripCount(loop, kept, kept + 1));
    ++kept;
  }
  if (kept == dims)
    return;
  rewriter.setInsertionPoint(loop);
  auto outer = scf::ParallelOp::create(
      rewriter, loop.getLoc(), loop.getLowerBound().take_front(kept),
      loop.getUpperBound().take_front(kept), loop.getStep().take_front(kept));
  rewriter.setInsertionPointToStart(outer.getBody());
  scf::LoopNest nest = scf::buildLoopNest(
      rewriter, loop.getLoc(), loop.getLowerBound().drop_front(kept),
      loop.getUpperBound().drop_front(kept), loop.getStep().drop_front(kept));
  SmallVector<Value> ivs(outer.getInductionVars());
  for (scf::ForOp inner : nest.loops)
    ivs.push_back(inner.getInductionVar());
  Block *body = nest.loops.back().getBody();
  Operation *reduce = loop.getBody()->getTerminator();
  rewriter.inlineBlockBefore(loop.getBody(), body->getTerminator(), ivs);
  rewriter.eraseOp(reduce);
  rewriter.eraseOp(loop);
}

struct TraceParallelLoopsPass final
    : trace::impl::TraceParallelLoopsPassBase<TraceParallelLoopsPass> {
  using Base::Base;

  void runOnOperation() override {
    // Outer loops first: a loop inside a kept one runs in order; one
    // inside a loop made sequential is decided on its own. A loop with
    // reductions always runs in order: a team would combine its partial
    // results in no fixed order.
    SmallVector<scf::ParallelOp> inOrder, kept;
    llvm::SmallPtrSet<Operation *, 8> keptOps;
    getOperation()->walk<WalkOrder::PreOrder>([&](scf::ParallelOp loop) {
      bool nested = false;
      for (Operation *up = loop->getParentOp(); up && !nested;
           up = up->getParentOp())
        nested = keptOps.contains(up);
      int64_t iterations = tripCount(loop);
      if (nested || loop.getNumReductions() != 0 || iterations < 2 ||
          times(iterations, work(*loop.getBody())) < minWork) {
        inOrder.push_back(loop);
      } else {
        kept.push_back(loop);
        keptOps.insert(loop);
      }
    });
    // The kept loops first: their bodies move, so the loops in order
    // inside them are still there. Then inner loops before the loops
    // around them, whose bodies are cloned.
    IRRewriter rewriter(&getContext());
    for (scf::ParallelOp loop : kept)
      keepLeadingDims(rewriter, loop);
    for (scf::ParallelOp loop : llvm::reverse(inOrder))
      runInOrder(rewriter, loop);
  }
};

} // namespace
