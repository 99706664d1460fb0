//===- TraceSchedule.cpp - order and recompute for a low peak -------------===//
//
// Two steps on each single-block function, both judged by the memory model
// of LiveBytes.h (the one trace-memory-report prints):
//
//  1. Live-range splitting by recomputation, the algorithm of XLA's
//     HloRematerialization: at the peak, a value that is live across it but
//     not read there is dropped and computed again, from values live at its
//     next reader, just before that reader. Its producers are cloned with it
//     when their own values are dead by then (a chain of at most
//     `max-chain` ops; a matmul only with a short contraction, as
//     attention's scores). The clones read the rest through
//     trace.optimization_barrier, which keeps the pipelines' CSE from
//     merging them with the originals. The candidate that lowers the peak
//     most is taken (fewest FLOPs on ties); a split that does not lower
//     (peak, live-byte area) is undone. This is what bounds the backward's peak under tight
//     trace-remat budgets: a value recomputed once for the first backward op
//     that needs it would otherwise stay live until its last reader.
//  2. Reordering: a greedy list schedule that runs, among the ready ops, the
//     one that adds the fewest bytes (allocations minus what it frees), as
//     PyTorch Inductor's reorder_for_peak_memory does; like Inductor, the
//     original order is kept when it is no worse.
//
// Both are written here rather than taken from MLIR: upstream has no
// memory-driven scheduler or rematerializer for tensor programs.
//
//===----------------------------------------------------------------------===//

#include "trace/Dialect/Trace/IR/TraceInterfaces.h"
#include "trace/Dialect/Trace/IR/TraceOps.h"
#include "trace/Dialect/Trace/Transforms/Autodiff.h"
#include "trace/Dialect/Trace/Analysis/LiveBytes.h"
#include "trace/Dialect/Trace/Transforms/Passes.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/RegionUtils.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/Debug.h"

#include <queue>
#include <tuple>

#define DEBUG_TYPE "trace-schedule"

namespace mlir::trace {
#define GEN_PASS_DEF_TRACESCHEDULEPASS
#include "trace/Dialect/Trace/Transforms/Passes.h.inc"
} // namespace mlir::trace

using namespace mlir;
using namespace mlir::trace;

namespace {

/// What a schedule is judged by: the peak first, then the area.
std::pair<int64_t, int64_t> memoryCost(const LiveBytes &live) {
  return {live.getPeak(), live.getArea()};
}

int64_t flopsOf(Operation *op) {
  auto cost = dyn_cast<CostOpInterface>(op);
  return cost ? cost.getFlops() : trace::detail::defaultFlops(op);
}

/// Live-range splitting at the peak (step 1 above).
class Splitter {
public:
  Splitter(Block &block, int64_t maxChain, int64_t maxFlopsPerElement,
           int64_t maxMatmulFlopsPerElement, int64_t flopBudget)
      : block(block), maxChain(maxChain),
        maxFlopsPerElement(maxFlopsPerElement),
        maxMatmulFlopsPerElement(maxMatmulFlopsPerElement),
        flopBudget(flopBudget) {}

  /// Splits until no split lowers the peak; returns the ops cloned.
  int64_t run();
  int64_t getExtraFlops() const { return extraFlops; }

private:
  /// One proposed split: the ops to clone (producers first), the uses after
  /// the peak to redirect to the clones, and what it gains and costs.
  struct Candidate {
    Value root;
    SmallVector<Operation *> chain;
    SmallVector<std::pair<Operation *, unsigned>> lateUses;
    Operation *insertBefore = nullptr;
    /// Storages the chain reads without cloning them.
    SmallVector<Value> reads;
    int64_t reduction = 0;
    int64_t flops = 0;
  };
  /// A split made in the IR, to undo it.
  struct Applied {
    SmallVector<Operation *> clones, barriers;
    SmallVector<std::tuple<Operation *, unsigned, Value>> redirected;
  };
  static constexpr size_t kBatch = 8;

  Applied apply(const Candidate &candidate);
  void undo(Applied &done);

  /// Whether `op` may be computed a second time: pure, one result, no
  /// regions, not a convolution, not pinned by a must_save policy, and at
  /// most `maxFlopsPerElement` FLOPs per element it produces
  /// (`maxMatmulFlopsPerElement` for a matmul).
  bool isRecomputable(Operation *op) const;
  bool plan(const LiveBytes &live, const StorageRange &range, int64_t peak,
            Candidate &candidate) const;

  Block &block;
  int64_t maxChain, maxFlopsPerElement, maxMatmulFlopsPerElement, flopBudget;
  int64_t extraFlops = 0;
};

bool Splitter::isRecomputable(Operation *op) const {
  if (op->getNumResults() != 1 || op->getNumRegions() != 0 ||
      op->hasTrait<mlir::OpTrait::IsTerminator>() || !isMemoryEffectFree(op) ||
      isa<ConvolutionOp>(op))
    return false;
  if (isa<MatmulOp>(op) &&
      flopsOf(op) >
          maxMatmulFlopsPerElement *
              cast<RankedTensorType>(op->getResult(0).getType())
                  .getNumElements())
    return false;
  if (auto policy = op->getAttrOfType<StringAttr>(kRematAttrName))
    if (policy.getValue() == "must_save")
      return false;
  auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!type || !type.hasStaticShape())
    return false;
  return flopsOf(op) <= maxFlopsPerElement * std::max<int64_t>(
                                                 type.getNumElements(), 1);
}

/// Proposes dropping `range`'s storage after the peak op and computing it
/// again before its next reader. Fails when that is impossible.
bool Splitter::plan(const LiveBytes &live, const StorageRange &range,
                    int64_t peak, Candidate &candidate) const {
  Operation *def = range.root.getDefiningOp();
  if (!def || !isRecomputable(def))
    return false;
  ArrayRef<Operation *> ops = live.getOps();
  auto indexOf = [&](Operation *op) {
    return op->hasTrait<mlir::OpTrait::IsTerminator>()
               ? static_cast<int64_t>(ops.size())
               : live.indexOf(op);
  };
  // Readers after the peak of the storage's values defined up to the peak
  // (the root and its views).
  int64_t next = std::numeric_limits<int64_t>::max();
  SmallVector<Value> worklist{range.root};
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    for (OpOperand &use : value.getUses()) {
      Operation *user = use.getOwner();
      if (user->getBlock() != &block)
        return false;
      int64_t at = indexOf(user);
      if (at > peak) {
        candidate.lateUses.push_back({user, use.getOperandNumber()});
        next = std::min(next, at);
      } else if (isStorageView(user)) {
        worklist.push_back(user->getResult(0));
      }
    }
  }
  if (candidate.lateUses.empty())
    return false;
  candidate.insertBefore =
      next == static_cast<int64_t>(ops.size()) ? block.getTerminator()
                                               : ops[next];

  // The chain to clone, producers first: the storage's own values always,
  // other values only if they are dead by `next` and may be recomputed.
  // Values that are neither are kept live until `next`; if they were dead
  // at the peak, that costs their bytes there.
  llvm::SmallDenseSet<Value, 16> cloned, extended;
  int64_t extension = 0, planned = 0;
  std::function<bool(Value)> resolve = [&](Value value) -> bool {
    if (cloned.contains(value))
      return true;
    bool ownStorage = live.rootOf(value) == range.root;
    const StorageRange &where = live.rangeOf(value);
    if (!ownStorage && where.end >= next) {
      candidate.reads.push_back(where.root);
      return true;
    }
    Operation *producer = value.getDefiningOp();
    bool recompute = producer && producer->getBlock() == &block &&
                     (isStorageView(producer) || isRecomputable(producer)) &&
                     planned < maxChain;
    if (!recompute) {
      if (ownStorage)
        return false;
      if (extended.insert(where.root).second && where.end < peak)
        extension += where.bytes;
      candidate.reads.push_back(where.root);
      return true;
    }
    ++planned;
    for (Value operand : producer->getOperands())
      if (!resolve(operand))
        return false;
    cloned.insert(value);
    candidate.chain.push_back(producer);
    candidate.flops += flopsOf(producer);
    return true;
  };
  for (auto [user, operand] : candidate.lateUses)
    if (!resolve(user->getOperand(operand)))
      return false;
  candidate.root = range.root;
  candidate.reduction = range.bytes - extension;
  return true;
}

int64_t Splitter::run() {
  int64_t numCloned = 0;
  llvm::DenseSet<Value> rejected;
  auto live = std::make_unique<LiveBytes>(block);
  // Each accepted step lowers (peak, area); the cap only guards time.
  int64_t maxSteps = 2 * static_cast<int64_t>(live->getOps().size()) + 64;
  for (int64_t step = 0; step < maxSteps; ++step) {
    int64_t peak = live->getPeakIndex();
    if (peak < 0)
      break;
    Operation *peakOp = live->getOps()[peak];
    llvm::SmallDenseSet<Value, 8> readAtPeak;
    for (Value operand : peakOp->getOperands())
      readAtPeak.insert(live->rootOf(operand));
    SmallVector<Candidate> candidates;
    for (const StorageRange &range : live->getRanges()) {
      if (range.begin < 0 || range.begin >= peak || range.end <= peak ||
          readAtPeak.contains(range.root) || rejected.contains(range.root))
        continue;
      Candidate candidate;
      if (plan(*live, range, peak, candidate) && candidate.reduction > 0)
        candidates.push_back(std::move(candidate));
    }
    llvm::stable_sort(candidates, [](const Candidate &a, const Candidate &b) {
      return std::make_tuple(-a.reduction, a.flops) <
             std::make_tuple(-b.reduction, b.flops);
    });
    // A batch of splits that do not touch each other's storage, so that one
    // rebuild of the live ranges judges them all (rebuilding after every
    // split dominated the pass's time). A batch that does not help is
    // retried as its best split alone.
    SmallVector<const Candidate *> batch;
    llvm::SmallDenseSet<Value, 32> touched;
    int64_t batchFlops = 0;
    for (const Candidate &candidate : candidates) {
      if (batch.size() == kBatch ||
          extraFlops + batchFlops + candidate.flops > flopBudget)
        break;
      if (touched.contains(candidate.root) ||
          llvm::any_of(candidate.reads,
                       [&](Value root) { return touched.contains(root); }))
        continue;
      batch.push_back(&candidate);
      batchFlops += candidate.flops;
      touched.insert(candidate.root);
      touched.insert(candidate.reads.begin(), candidate.reads.end());
    }
    if (batch.empty())
      break;
    while (true) {
      SmallVector<Applied> applied;
      for (const Candidate *candidate : batch)
        applied.push_back(apply(*candidate));
      auto next = std::make_unique<LiveBytes>(block);
      if (memoryCost(*next) < memoryCost(*live)) {
        // A value whose every reader now reads its clone was moved rather
        // than recomputed: drop the original.
        // (Two splits of a batch may clone the same producer.)
        llvm::SmallPtrSet<Operation *, 16> erased;
        for (auto [candidate, done] :
             llvm::reverse(llvm::zip(batch, applied))) {
          extraFlops += candidate->flops;
          numCloned += static_cast<int64_t>(done.clones.size());
          bool moved = true;
          for (auto [original, clone] :
               llvm::reverse(llvm::zip(candidate->chain, done.clones))) {
            if (erased.contains(original))
              continue;
            if (!isOpTriviallyDead(original)) {
              moved = false;
              continue;
            }
            if (!original->hasAttr(kRecomputedAttrName))
              clone->removeAttr(kRecomputedAttrName);
            extraFlops -= flopsOf(original);
            --numCloned;
            erased.insert(original);
            original->erase();
          }
          // A chain moved whole has no original left to be merged with.
          if (moved)
            for (Operation *barrier : done.barriers) {
              barrier->getResult(0).replaceAllUsesWith(barrier->getOperand(0));
              barrier->erase();
            }
        }
        if (!erased.empty())
          next = std::make_unique<LiveBytes>(block);
        LLVM_DEBUG(llvm::dbgs() << "trace-schedule: " << batch.size()
                                << " splits, peak " << live->getPeak()
                                << " -> " << next->getPeak() << "\n");
        live = std::move(next);
        rejected.clear();
        break;
      }
      for (Applied &done : llvm::reverse(applied))
        undo(done);
      if (batch.size() == 1) {
        rejected.insert(batch.front()->root);
        break;
      }
      batch.resize(1);
    }
  }
  return numCloned;
}

Splitter::Applied Splitter::apply(const Candidate &candidate) {
  Applied done;
  OpBuilder builder(candidate.insertBefore);
  IRMapping map;
  // The chain reads what it does not clone through a barrier: otherwise
  // the CSE after trace-to-linalg finds the clones equal to the originals
  // (same ops, same operands) and merges them, undoing the split.
  llvm::SmallDenseSet<Operation *, 16> inChain(candidate.chain.begin(),
                                               candidate.chain.end());
  for (Operation *op : candidate.chain)
    for (Value operand : op->getOperands()) {
      Operation *producer = operand.getDefiningOp();
      if ((producer && inChain.contains(producer)) || map.contains(operand))
        continue;
      auto barrier =
          OptimizationBarrierOp::create(builder, op->getLoc(), operand);
      done.barriers.push_back(barrier);
      map.map(operand, barrier.getResult());
    }
  for (Operation *op : candidate.chain) {
    Operation *clone = builder.clone(*op, map);
    clone->setAttr(kRecomputedAttrName, builder.getUnitAttr());
    done.clones.push_back(clone);
  }
  for (auto [user, operand] : candidate.lateUses) {
    Value value = user->getOperand(operand);
    done.redirected.push_back({user, operand, value});
    user->setOperand(operand, map.lookup(value));
  }
  return done;
}

void Splitter::undo(Applied &done) {
  for (auto &[user, operand, value] : llvm::reverse(done.redirected))
    user->setOperand(operand, value);
  for (Operation *clone : llvm::reverse(done.clones))
    clone->erase();
  for (Operation *barrier : done.barriers)
    barrier->erase();
}

/// An op order for `block` by greedy list scheduling (step 2 above);
/// `peakFirst` ranks ready ops by the bytes they allocate before those
/// they free, otherwise by the difference.
std::vector<Operation *> listSchedule(Block &block, bool peakFirst) {
  LiveBytes live(block);
  ArrayRef<Operation *> ops = live.getOps();
  size_t n = ops.size();
  // Dependences: operands, nested regions' uses of values from above, and
  // the order among ops with side effects.
  std::vector<SmallVector<unsigned>> successors(n);
  std::vector<unsigned> pending(n, 0);
  auto addEdge = [&](Value value, unsigned to) {
    Operation *producer = value.getDefiningOp();
    if (!producer || producer->getBlock() != &block)
      return;
    successors[live.indexOf(producer)].push_back(to);
    ++pending[to];
  };
  std::optional<unsigned> lastEffect;
  for (auto [i, op] : llvm::enumerate(ops)) {
    unsigned to = static_cast<unsigned>(i);
    for (Value operand : op->getOperands())
      addEdge(operand, to);
    op->walk([&](Operation *nested) {
      if (nested != op)
        for (Value operand : nested->getOperands())
          addEdge(operand, to);
    });
    if (!isMemoryEffectFree(op)) {
      if (lastEffect) {
        successors[*lastEffect].push_back(to);
        ++pending[to];
      }
      lastEffect = to;
    }
  }
  // Readers left per storage; storages the terminator returns are pinned.
  llvm::DenseMap<Value, int64_t> readersLeft;
  std::vector<SmallVector<Value, 4>> reads(n);
  for (auto [i, op] : llvm::enumerate(ops)) {
    for (Value operand : op->getOperands()) {
      Value root = live.rootOf(operand);
      if (!llvm::is_contained(reads[i], root)) {
        reads[i].push_back(root);
        ++readersLeft[root];
      }
    }
  }
  llvm::DenseSet<Value> pinned;
  for (Value operand : block.getTerminator()->getOperands())
    pinned.insert(live.rootOf(operand));

  // Readers of each storage, to find the last one left when a storage is
  // down to one reader (its score then changes).
  llvm::DenseMap<Value, SmallVector<unsigned, 4>> readersOf;
  for (unsigned i = 0; i < n; ++i)
    for (Value root : reads[i])
      readersOf[root].push_back(i);
  std::vector<int64_t> allocated(n, 0), freedOwn(n, 0);
  for (unsigned i = 0; i < n; ++i) {
    if (isStorageView(ops[i]))
      continue;
    for (Value result : ops[i]->getResults()) {
      allocated[i] += getTensorBytes(result.getType());
      if (result.use_empty())
        freedOwn[i] += getTensorBytes(result.getType());
    }
  }
  using Score = std::tuple<int64_t, int64_t, unsigned>;
  auto score = [&](unsigned i) -> Score {
    int64_t freed = freedOwn[i];
    for (Value root : reads[i])
      if (readersLeft.lookup(root) == 1 && !pinned.contains(root))
        freed += live.rangeOf(root).bytes;
    return peakFirst ? Score(allocated[i], -freed, i)
                     : Score(allocated[i] - freed, 0, i);
  };
  // A min-heap of ready ops; an entry whose score is no longer current is
  // skipped when popped (scores only fall, when a storage is down to its
  // last reader, and such a reader is pushed again with its new score).
  std::priority_queue<Score, std::vector<Score>, std::greater<Score>> heap;
  std::vector<bool> isReady(n, false), done(n, false);
  for (unsigned i = 0; i < n; ++i)
    if (pending[i] == 0) {
      isReady[i] = true;
      heap.push(score(i));
    }
  std::vector<Operation *> order;
  order.reserve(n);
  while (!heap.empty()) {
    Score top = heap.top();
    heap.pop();
    unsigned chosen = std::get<2>(top);
    if (done[chosen] || top != score(chosen))
      continue;
    done[chosen] = true;
    order.push_back(ops[chosen]);
    for (Value root : reads[chosen])
      if (--readersLeft[root] == 1)
        for (unsigned reader : readersOf[root])
          if (!done[reader] && isReady[reader])
            heap.push(score(reader));
    for (unsigned succ : successors[chosen])
      if (--pending[succ] == 0) {
        isReady[succ] = true;
        heap.push(score(succ));
      }
  }
  return order;
}

void applyOrder(Block &block, ArrayRef<Operation *> order) {
  Operation *terminator = block.getTerminator();
  for (Operation *op : order)
    op->moveBefore(terminator);
}

/// Reorders `block` by the better of the two list schedules, or keeps it.
void reorderForPeak(Block &block) {
  LiveBytes original(block);
  std::vector<Operation *> best(original.getOps().begin(),
                                original.getOps().end());
  auto bestCost = memoryCost(original);
  for (bool peakFirst : {false, true}) {
    std::vector<Operation *> order = listSchedule(block, peakFirst);
    if (order.size() != best.size())
      continue; // A cycle through regions; keep what we have.
    applyOrder(block, order);
    auto cost = memoryCost(LiveBytes(block));
    if (cost < bestCost) {
      bestCost = cost;
      best = std::move(order);
    }
  }
  applyOrder(block, best);
}

struct TraceSchedulePass final
    : trace::impl::TraceSchedulePassBase<TraceSchedulePass> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (!func.getBody().hasOneBlock())
      return;
    Block &block = func.getBody().front();
    // @f_grad's order is its meaning: the ops before its trace.forward_end
    // are the forward, which trace-remat reads.
    if (!block.getOps<ForwardEndOp>().empty())
      return;
    // Ops with regions that read values from above would hide uses from the
    // memory model; such functions are left as they are.
    bool hidden = false;
    block.walk([&](Operation *op) {
      if (op->getNumRegions() != 0 &&
          !op->hasTrait<mlir::OpTrait::IsIsolatedFromAbove>())
        hidden = true;
    });
    if (hidden)
      return;

    int64_t before = LiveBytes(block).getPeak();
    int64_t total = 0;
    for (Operation &op : block.without_terminator())
      total += flopsOf(&op);
    int64_t cloned = 0, extraFlops = 0;
    if (split) {
      Splitter splitter(block, maxChain, maxFlopsPerElement,
                        maxMatmulFlopsPerElement,
                        static_cast<int64_t>(maxExtraFlops * double(total)));
      cloned = splitter.run();
      extraFlops = splitter.getExtraFlops();
    }
    if (reorder)
      reorderForPeak(block);
    if (report)
      mlir::emitRemark(func.getLoc()) << "trace-schedule @" << func.getSymName()
                        << ": peak live bytes " << before << " -> "
                        << LiveBytes(block).getPeak() << "; " << cloned
                        << " ops recomputed again, " << extraFlops
                        << " FLOPs (" << total << " before)";
  }
};

} // namespace
