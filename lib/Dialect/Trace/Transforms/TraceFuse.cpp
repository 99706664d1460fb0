//===- TraceFuse.cpp - form trace.fusion regions --------------------------===//
//
// Greedy fusion in the manner of XLA's GPU instruction fusion: groups of
// ops are merged producer-into-consumer, then horizontally, under the rules
// in the pass description, and each group of two or more ops becomes one
// trace.fusion region. The analysis works on ops in their original order;
// only the last step rewrites the block.
//
//===----------------------------------------------------------------------===//

#include "trace/Dialect/Trace/Transforms/Passes.h"

#include "trace/Dialect/Trace/IR/TraceOps.h"
#include "trace/Dialect/Trace/IR/TraceTraits.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/PointerUnion.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SetVector.h"

#include <deque>

#define DEBUG_TYPE "trace-fuse"

namespace mlir::trace {
#define GEN_PASS_DEF_TRACEFUSEPASS
#include "trace/Dialect/Trace/Transforms/Passes.h.inc"
} // namespace mlir::trace

using namespace mlir;
using namespace mlir::trace;

namespace {

enum class Role {
  None,      // stays outside every fusion
  Loop,      // elementwise, broadcast or view: one element per iteration
  Reduction, // the root of an input fusion
  Splat,     // a splat constant: cloned into the fusions that read it
};

bool isSplatConstant(Operation *op) {
  if (isa<FullOp>(op))
    return true;
  if (auto constant = dyn_cast<ConstantOp>(op))
    if (auto dense = dyn_cast<DenseElementsAttr>(constant.getValue()))
      return dense.isSplat();
  return false;
}

Role classify(Operation *op) {
  if (!isa_and_nonnull<TraceDialect>(op->getDialect()))
    return Role::None;
  if (isSplatConstant(op))
    return Role::Splat;
  // A transpose read only by matmuls is no kernel: the matmul reads its
  // operand transposed in place (trace-fold-transpose-into-matmul).
  if (isa<TransposeOp>(op) &&
      llvm::all_of(op->getUsers(), llvm::IsaPred<MatmulOp>))
    return Role::None;
  if (op->hasTrait<mlir::OpTrait::Elementwise>() ||
      isa<BroadcastInDimOp, ReshapeOp, TransposeOp, SliceOp>(op))
    return Role::Loop;
  if (op->hasTrait<trace::OpTrait::ReductionOp>())
    return Role::Reduction;
  return Role::None;
}

int64_t numElements(Value value) {
  return cast<ShapedType>(value.getType()).getNumElements();
}

/// A candidate fusion. `space` is its iteration space's element count: the
/// result size of its loop ops, the operand size of its reductions.
struct Group {
  SmallVector<Operation *> ops;
  int64_t space = 0;
  /// The shape of the loop nest: a loop fusion's root result, an input
  /// fusion's reduced operand. Siblings with no edge between them become
  /// one loop nest only if these are equal.
  ArrayRef<int64_t> shape;
  /// The reduced operand's type and dims, for an input fusion: sibling
  /// reductions share both, or they are no one loop nest.
  Type reducedType;
  ArrayRef<int64_t> reducedDims;
  bool alive = true;
  /// The group's place in a topological order of the contracted graph.
  int64_t rank = 0;
};

class BlockFusion {
public:
  BlockFusion(Block &block, int64_t maxOps, int64_t maxInputs)
      : block(block), maxOps(maxOps), maxInputs(maxInputs) {}

  /// Forms the fusions; `counter` numbers them across the function.
  LogicalResult run(unsigned &counter);
  static LogicalResult sortKeepingOrder(Block &block);

private:
  Group *groupOf(Operation *op) {
    auto it = groupIndex.find(op);
    return it == groupIndex.end() ? nullptr : &groups[it->second];
  }
  bool isMember(Operation *op, const Group &group) {
    Group *g = groupOf(op);
    return g == &group;
  }

  /// A node of the contracted graph: a group, or an op in none.
  using Node = llvm::PointerUnion<Group *, Operation *>;
  Node nodeOf(Operation *op) {
    if (Group *g = groupOf(op))
      return g;
    return op;
  }
  int64_t &rankOf(Node node) {
    if (auto *g = dyn_cast<Group *>(node))
      return g->rank;
    return opRank[cast<Operation *>(node)];
  }
  /// Calls `fn` on each node `node` has an edge to (`forward`) or from.
  void forEachNeighbour(Node node, bool forward,
                        function_ref<void(Node)> fn);
  /// The nodes a path from `start` reaches, in the direction given, among
  /// those ranked strictly between `start` and `end`; `end` is not entered.
  /// Sets `reached` if a path of at least one such node arrives at `end`.
  SmallVector<Node> window(Node start, Node end, bool forward, bool &reached);

  bool compatible(const Group &a, const Group &b, bool horizontal);
  bool withinLimits(const Group &a, const Group &b);
  void tryMerge(Group &a, Group &b, bool horizontal);
  void duplicateIntoReaders();
  bool duplicate(Group &producer, Group &reader, ArrayRef<Value> values);
  void materialize(Group &group, unsigned index);

  Block &block;
  int64_t maxOps, maxInputs;
  std::deque<Group> groups;
  DenseMap<Operation *, unsigned> groupIndex;
  DenseMap<Operation *, unsigned> position;
  /// Ranks of the ops in no group.
  DenseMap<Operation *, int64_t> opRank;
};

/// Producer-consumer merges must not put a reduction's result and a reader
/// of it into one fusion; both kinds need the same iteration space, and two
/// input fusions the same reduced shape (sibling reductions). Horizontal
/// merges join only fusions of the same kind.
bool BlockFusion::compatible(const Group &a, const Group &b, bool horizontal) {
  if (a.space != b.space)
    return false;
  if (a.reducedType && b.reducedType &&
      (a.reducedType != b.reducedType || a.reducedDims != b.reducedDims))
    return false;
  if (horizontal && (static_cast<bool>(a.reducedType) !=
                         static_cast<bool>(b.reducedType) ||
                     a.shape != b.shape))
    return false;
  auto readsReductionOf = [&](const Group &consumer, const Group &producer) {
    for (Operation *op : consumer.ops)
      for (Value operand : op->getOperands())
        if (Operation *def = operand.getDefiningOp();
            def && isMember(def, producer) && classify(def) == Role::Reduction)
          return true;
    return false;
  };
  return !readsReductionOf(a, b) && !readsReductionOf(b, a);
}

void BlockFusion::forEachNeighbour(Node node, bool forward,
                                   function_ref<void(Node)> fn) {
  auto *group = dyn_cast<Group *>(node);
  Operation *single = group ? nullptr : cast<Operation *>(node);
  ArrayRef<Operation *> ops =
      group ? ArrayRef<Operation *>(group->ops) : ArrayRef(single);
  auto visit = [&](Operation *other) {
    // Ops in nested regions belong to their ancestor in this block.
    Operation *top = block.findAncestorOpInBlock(*other);
    if (!top)
      return;
    Node neighbour = nodeOf(top);
    if (neighbour != node)
      fn(neighbour);
  };
  for (Operation *op : ops) {
    if (forward) {
      for (Operation *user : op->getUsers())
        visit(user);
      continue;
    }
    op->walk([&](Operation *nested) {
      for (Value operand : nested->getOperands())
        if (Operation *def = operand.getDefiningOp())
          visit(def);
    });
  }
}

SmallVector<BlockFusion::Node> BlockFusion::window(Node start, Node end,
                                                   bool forward,
                                                   bool &reached) {
  int64_t lo = std::min(rankOf(start), rankOf(end));
  int64_t hi = std::max(rankOf(start), rankOf(end));
  SmallVector<Node> found, stack;
  DenseSet<Node> seen;
  auto push = [&](Node node, bool direct) {
    if (node == end) {
      // A direct edge is the merge itself, not a detour.
      reached |= !direct;
      return;
    }
    int64_t rank = rankOf(node);
    if (rank > lo && rank < hi && seen.insert(node).second) {
      found.push_back(node);
      stack.push_back(node);
    }
  };
  forEachNeighbour(start, forward, [&](Node n) { push(n, true); });
  while (!stack.empty() && !reached)
    forEachNeighbour(stack.pop_back_val(), forward,
                     [&](Node n) { push(n, false); });
  return found;
}

bool BlockFusion::withinLimits(const Group &a, const Group &b) {
  if (static_cast<int64_t>(a.ops.size() + b.ops.size()) > maxOps)
    return false;
  llvm::SmallDenseSet<Value, 16> inputs;
  for (const Group *g : {&a, &b})
    for (Operation *op : g->ops)
      for (Value operand : op->getOperands()) {
        Operation *def = operand.getDefiningOp();
        if (def && (isMember(def, a) || isMember(def, b) ||
                    classify(def) == Role::Splat))
          continue;
        inputs.insert(operand);
      }
  return static_cast<int64_t>(inputs.size()) <= maxInputs;
}

/// Merging must not make the fused region an input of itself: no use-def
/// path may leave one group, pass through a node in neither, and reach the
/// other. The nodes keep a topological order (ranks) of the contracted
/// graph, so such a path can only run from the lower-ranked group to the
/// higher and through nodes ranked between them: the search is bounded as
/// in XLA's GraphCycles::ContractEdge, and the ranks are then repaired as
/// Pearce and Kelly's dynamic topological order does. Without the bound a
/// search per merge attempt walked the rest of the function, quadratic in
/// depth.
void BlockFusion::tryMerge(Group &a, Group &b, bool horizontal) {
  if (&a == &b || !a.alive || !b.alive || !compatible(a, b, horizontal) ||
      !withinLimits(a, b))
    return;
  Group *lo = a.rank < b.rank ? &a : &b, *hi = lo == &a ? &b : &a;
  bool reached = false;
  SmallVector<Node> after = window(lo, hi, /*forward=*/true, reached);
  if (reached)
    return;
  SmallVector<Node> before = window(hi, lo, /*forward=*/false, reached);
  assert(!reached && "a backward path where no forward path is");
  // What lo reaches must follow the merged group, what reaches hi precede
  // it; both sets keep their own order, in the ranks they and the two
  // groups held.
  auto byRank = [&](Node x, Node y) { return rankOf(x) < rankOf(y); };
  llvm::sort(after, byRank);
  llvm::sort(before, byRank);
  SmallVector<int64_t> ranks = {lo->rank, hi->rank};
  for (Node node : llvm::concat<Node>(before, after))
    ranks.push_back(rankOf(node));
  llvm::sort(ranks);
  size_t next = 0;
  for (Node node : before)
    rankOf(node) = ranks[next++];
  int64_t merged = ranks[next++];
  ++next;
  for (Node node : after)
    rankOf(node) = ranks[next++];
  b.rank = merged;
  unsigned into = groupIndex.lookup(b.ops.front());
  for (Operation *op : a.ops) {
    b.ops.push_back(op);
    groupIndex[op] = into;
  }
  // The merged loop nest is the reduction's, if there is one, else the
  // consumer's (b's).
  if (!b.reducedType) {
    b.reducedType = a.reducedType;
    b.reducedDims = a.reducedDims;
    if (a.reducedType)
      b.shape = a.shape;
  }
  a.ops.clear();
  a.alive = false;
}

LogicalResult BlockFusion::run(unsigned &counter) {
  for (auto [index, op] : llvm::enumerate(block)) {
    position[&op] = index;
    opRank[&op] = index;
  }
  for (Operation &op : block) {
    Role role = classify(&op);
    if (role != Role::Loop && role != Role::Reduction)
      continue;
    // Dynamic shapes never reach here (the dialect has static shapes only),
    // but a zero-result op would have no iteration space.
    if (op.getNumResults() != 1)
      continue;
    Group group;
    group.ops.push_back(&op);
    if (role == Role::Reduction) {
      group.space = numElements(op.getOperand(0));
      group.shape = cast<ShapedType>(op.getOperand(0).getType()).getShape();
      group.reducedType = op.getOperand(0).getType();
      group.reducedDims =
          cast<DenseI64ArrayAttr>(op.getAttr("dimensions")).asArrayRef();
    } else {
      group.space = numElements(op.getResult(0));
      group.shape = cast<ShapedType>(op.getResult(0).getType()).getShape();
    }
    group.rank = position[&op];
    groupIndex[&op] = groups.size();
    groups.push_back(std::move(group));
  }

  // Producer-consumer: consumers first, so a producer joins the latest of
  // its readers and earlier readers can join that group in turn.
  for (Operation &op : llvm::reverse(block)) {
    Group *consumer = groupOf(&op);
    if (!consumer)
      continue;
    for (Value operand : op.getOperands()) {
      Operation *def = operand.getDefiningOp();
      if (!def || def->getBlock() != &block)
        continue;
      Group *producer = groupOf(def);
      consumer = groupOf(&op);
      if (producer && producer != consumer)
        tryMerge(*producer, *consumer, /*horizontal=*/false);
    }
  }

  // Horizontal: fusions that read a common value.
  auto mergeReaders = [&](Value value) {
    // One reader per group; groups are looked up again after each merge.
    SmallVector<Operation *> readers;
    for (Operation *user : value.getUsers())
      if (Group *g = groupOf(user);
          g && llvm::none_of(readers, [&](Operation *r) {
            return groupOf(r) == g;
          }))
        readers.push_back(user);
    for (size_t i = 0; i < readers.size(); ++i)
      for (size_t j = i + 1; j < readers.size(); ++j)
        tryMerge(*groupOf(readers[j]), *groupOf(readers[i]),
                 /*horizontal=*/true);
  };
  for (BlockArgument arg : block.getArguments())
    mergeReaders(arg);
  for (Operation &op : block)
    for (Value result : op.getResults())
      mergeReaders(result);

  duplicateIntoReaders();

  bool changed = false;
  // A lone elementwise op gains nothing from a region; a lone reduction
  // does: inside a fusion its accumulator's fill is folded into the
  // reduction loop (trace-lower-fusions), one kernel instead of two.
  // A group of reshapes and slices only moves nothing: they are views of
  // their operands once bufferized, no kernel at all.
  for (Group &group : groups) {
    if (!group.alive || (group.ops.size() < 2 && !group.reducedType) ||
        llvm::all_of(group.ops, llvm::IsaPred<ReshapeOp, SliceOp>))
      continue;
    materialize(group, counter++);
    changed = true;
  }
  // Readers of a fusion's early results may precede the fusion, which sits
  // where its last op was; the cycle check guarantees that an order exists.
  if (changed && failed(sortKeepingOrder(block)))
    return block.getParentOp()->emitError(
        "trace-fuse formed fusions that depend on each other in a cycle");
  return success();
}

/// Topologically sorts `block`, moving only the ops that must move: each op
/// stays in its place unless an operand is defined after it, and then
/// waits until just after the last of those definitions. Upstream's
/// sortTopologically schedules in sweeps, every op already ready going
/// ahead of the first one that is not; after fusion that floated every
/// op reading only arguments (weight transposes, zero fills, recomputation
/// from saved values) to the top of @f_bwd, undoing trace-schedule's order
/// and tripling the backward's measured peak.
LogicalResult BlockFusion::sortKeepingOrder(Block &block) {
  SmallVector<Operation *> ops;
  for (Operation &op : block.without_terminator())
    ops.push_back(&op);
  DenseSet<Operation *> pending(ops.begin(), ops.end());
  // The ops of this block an op (or an op nested in it) reads.
  auto producers = [&](Operation *op) {
    SmallVector<Operation *> found;
    op->walk([&](Operation *nested) {
      for (Value operand : nested->getOperands())
        if (Operation *def = operand.getDefiningOp())
          if (Operation *inBlock = block.findAncestorOpInBlock(*def))
            if (inBlock != op)
              found.push_back(inBlock);
    });
    return found;
  };
  DenseMap<Operation *, unsigned> missing;
  DenseMap<Operation *, SmallVector<Operation *>> waiting;
  SmallVector<Operation *> order;
  // Emits `first`, then each waiter whose last missing producer was just
  // emitted, right after it and in original order (depth first, on an
  // explicit stack: a chain of waiters can be as long as the block).
  auto emit = [&](Operation *first) {
    SmallVector<Operation *> stack = {first};
    while (!stack.empty()) {
      Operation *op = stack.pop_back_val();
      order.push_back(op);
      pending.erase(op);
      auto it = waiting.find(op);
      if (it == waiting.end())
        continue;
      SmallVector<Operation *> waiters = std::move(it->second);
      waiting.erase(it);
      for (Operation *waiter : llvm::reverse(waiters))
        if (--missing[waiter] == 0)
          stack.push_back(waiter);
    }
  };
  for (Operation *op : ops) {
    unsigned count = 0;
    for (Operation *def : producers(op))
      if (pending.contains(def) && def != op) {
        ++count;
        waiting[def].push_back(op);
      }
    if (count == 0)
      emit(op);
    else
      missing[op] = count;
  }
  if (order.size() != ops.size())
    return failure();
  Operation *terminator = block.getTerminator();
  for (Operation *op : order)
    op->moveBefore(terminator);
  return success();
}

/// Producer duplication across fusions. A group's values that only one
/// other (later) group reads would be written out at full size and held
/// until that reader runs. Where they are cheap loop ops over the reader's
/// iteration space, computed from fewer bytes than they take, the reader
/// computes them again from those bytes instead, as XLA duplicates cheap
/// producers into each consumer fusion. GELU's backward reads three
/// products of the forward's pre-activation (x/2, x/sqrt(2), 1 + erf(..));
/// recomputed from the matmul's output, a recomputed MLP holds 4 MB
/// across its backward instead of 12.
void BlockFusion::duplicateIntoReaders() {
  for (Group &producer : groups) {
    if (!producer.alive)
      continue;
    llvm::MapVector<Group *, SmallVector<Value>> byReader;
    for (Operation *op : producer.ops)
      for (Value value : op->getResults()) {
        Group *only = nullptr;
        bool single = true;
        for (Operation *user : value.getUsers()) {
          Group *g = groupOf(block.findAncestorOpInBlock(*user));
          if (g == &producer)
            continue;
          if (!g || (only && only != g)) {
            single = false;
            break;
          }
          only = g;
        }
        if (single && only)
          byReader[only].push_back(value);
      }
    for (auto &[reader, values] : byReader)
      if (duplicate(producer, *reader, values))
        // Clones sit before their readers; the next duplication and
        // materialize order a group's ops by position, which must not tie.
        for (auto [index, op] : llvm::enumerate(block))
          position[&op] = index;
  }
}

bool BlockFusion::duplicate(Group &producer, Group &reader,
                            ArrayRef<Value> values) {
  // The cone: loop ops of `producer` over the reader's iteration space.
  // Its leaves (inputs of the producer, or its values of another kind or
  // size, such as a reduction's result) are what the reader then reads.
  constexpr size_t kMaxCone = 16;
  llvm::SetVector<Operation *> cone;
  llvm::SetVector<Value> leaves;
  std::function<bool(Value)> visit = [&](Value value) -> bool {
    Operation *def = value.getDefiningOp();
    if (def && classify(def) == Role::Splat)
      return true;
    bool inCone = def && isMember(def, producer) &&
                  classify(def) == Role::Loop && def->getNumResults() == 1 &&
                  numElements(value) == reader.space;
    if (!inCone) {
      leaves.insert(value);
      return true;
    }
    if (cone.contains(def))
      return true;
    for (Value operand : def->getOperands())
      if (!visit(operand))
        return false;
    cone.insert(def);
    return cone.size() <= kMaxCone;
  };
  for (Value value : values)
    if (!isMember(value.getDefiningOp(), producer) ||
        classify(value.getDefiningOp()) != Role::Loop || !visit(value) ||
        !cone.contains(value.getDefiningOp()))
      return false;
  if (reader.ops.size() + cone.size() > static_cast<size_t>(maxOps))
    return false;
  // Nor past the reader's input limit: its inputs now, less the values,
  // plus the leaves it does not read yet.
  llvm::SmallDenseSet<Value, 16> inputs(leaves.begin(), leaves.end());
  for (Operation *op : reader.ops)
    for (Value operand : op->getOperands()) {
      Operation *def = operand.getDefiningOp();
      if ((def && (isMember(def, reader) || classify(def) == Role::Splat)) ||
          llvm::is_contained(values, operand))
        continue;
      inputs.insert(operand);
    }
  if (static_cast<int64_t>(inputs.size()) > maxInputs)
    return false;

  // Bytes: what stops being held until the reader runs, against leaves
  // that would not otherwise live that long.
  int64_t readerEnd = 0;
  for (Operation *op : reader.ops)
    readerEnd = std::max<int64_t>(readerEnd, position.lookup(op));
  auto livesTo = [&](Value value) {
    int64_t end = -1;
    for (Operation *user : value.getUsers())
      if (Operation *at = block.findAncestorOpInBlock(*user))
        end = std::max<int64_t>(end, isMember(at, reader)
                                         ? readerEnd
                                         : position.lookup(at));
    return end;
  };
  int64_t freed = 0, held = 0;
  for (Value value : values)
    freed += getTensorBytes(value.getType());
  for (Value leaf : leaves)
    if (livesTo(leaf) < readerEnd)
      held += getTensorBytes(leaf.getType());
  if (freed <= held)
    return false;

  // Clones before each value's first reader in `reader`, in the cone's
  // order (producers first); values are taken by that reader's position,
  // so a clone shared by two values is made before both.
  SmallVector<std::pair<Operation *, Value>> firsts;
  for (Value value : values) {
    Operation *first = nullptr;
    for (Operation *user : value.getUsers()) {
      Operation *at = block.findAncestorOpInBlock(*user);
      if (isMember(at, reader) &&
          (!first || position.lookup(at) < position.lookup(first)))
        first = at;
    }
    firsts.push_back({first, value});
  }
  llvm::stable_sort(firsts, [&](auto &a, auto &b) {
    return position.lookup(a.first) < position.lookup(b.first);
  });
  unsigned readerIndex = groupIndex.lookup(reader.ops.front());
  IRMapping mapping;
  OpBuilder builder(block.getParentOp()->getContext());
  for (auto [first, value] : firsts) {
    builder.setInsertionPoint(first);
    // The cone ops `value` is computed from.
    llvm::SmallPtrSet<Operation *, 16> slice;
    SmallVector<Value> worklist{value};
    while (!worklist.empty()) {
      Operation *def = worklist.pop_back_val().getDefiningOp();
      if (def && cone.contains(def) && slice.insert(def).second)
        llvm::append_range(worklist, def->getOperands());
    }
    for (Operation *op : cone) {
      if (mapping.contains(op->getResult(0)) || !slice.contains(op))
        continue;
      Operation *clone = builder.clone(*op, mapping);
      reader.ops.push_back(clone);
      groupIndex[clone] = readerIndex;
      position[clone] = position.lookup(first);
    }
    value.replaceUsesWithIf(mapping.lookup(value), [&](OpOperand &use) {
      return isMember(block.findAncestorOpInBlock(*use.getOwner()), reader);
    });
  }
  // What the producer no longer needs.
  for (Operation *op : llvm::reverse(cone)) {
    if (!op->use_empty())
      continue;
    llvm::erase(producer.ops, op);
    groupIndex.erase(op);
    position.erase(op);
    op->erase();
  }
  if (producer.ops.empty())
    producer.alive = false;
  return true;
}

void BlockFusion::materialize(Group &group, unsigned index) {
  llvm::sort(group.ops, [&](Operation *a, Operation *b) {
    return position.lookup(a) < position.lookup(b);
  });
  Operation *last = group.ops.back();
  MLIRContext *ctx = last->getContext();
  DenseSet<Operation *> members(group.ops.begin(), group.ops.end());

  llvm::SetVector<Value> inputs;
  llvm::SetVector<Operation *> splats;
  for (Operation *op : group.ops)
    for (Value operand : op->getOperands()) {
      Operation *def = operand.getDefiningOp();
      if (def && members.contains(def))
        continue;
      if (def && classify(def) == Role::Splat)
        splats.insert(def);
      else
        inputs.insert(operand);
    }
  SmallVector<Value> outputs;
  for (Operation *op : group.ops)
    for (Value result : op->getResults())
      if (llvm::any_of(result.getUsers(), [&](Operation *user) {
            return !members.contains(block.findAncestorOpInBlock(*user));
          }))
        outputs.push_back(result);

  bool input = static_cast<bool>(group.reducedType);
  StringRef kind = input ? "input" : "loop";
  OpBuilder builder(last);
  builder.setInsertionPointAfter(last);
  auto fusion = FusionOp::create(
      builder, last->getLoc(), ValueRange(outputs).getTypes(),
      inputs.getArrayRef(),
      builder.getStringAttr((kind + "_" + Twine(index)).str()));
  fusion->setAttr("trace.fusion_kind", StringAttr::get(ctx, kind));
  Block *body = builder.createBlock(&fusion.getBody());
  IRMapping mapping;
  for (Value value : inputs)
    mapping.map(value, body->addArgument(value.getType(), value.getLoc()));
  for (Operation *splat : splats)
    builder.clone(*splat, mapping);
  for (Operation *op : group.ops)
    builder.clone(*op, mapping);
  SmallVector<Value> yielded;
  for (Value value : outputs)
    yielded.push_back(mapping.lookup(value));
  YieldOp::create(builder, last->getLoc(), yielded);

  for (auto [output, result] : llvm::zip_equal(outputs, fusion.getResults()))
    output.replaceUsesWithIf(result, [&](OpOperand &use) {
      return !members.contains(block.findAncestorOpInBlock(*use.getOwner()));
    });
  for (Operation *op : llvm::reverse(group.ops)) {
    groupIndex.erase(op);
    position.erase(op);
    op->erase();
  }
  for (Operation *splat : splats)
    if (splat->use_empty()) {
      position.erase(splat);
      splat->erase();
    }
}

/// Gives each reader of a broadcast that grows its operand a copy of its
/// own, so each copy fuses into its reader and the broadcast is never a
/// fusion's result: the readers then read the small operand, as XLA
/// duplicates cheap producers into consumers. A softmax's row sum,
/// broadcast once for two fusions, was otherwise written out at the
/// scores' full size (8 MB a layer of an attention backward).
void splitBroadcasts(Block &block) {
  for (auto broadcast :
       llvm::make_early_inc_range(block.getOps<BroadcastInDimOp>())) {
    if (numElements(broadcast.getResult()) <=
        numElements(broadcast.getOperand()))
      continue;
    SmallVector<Operation *> readers;
    for (Operation *user : broadcast->getUsers())
      if (!llvm::is_contained(readers, user))
        readers.push_back(user);
    OpBuilder builder(broadcast);
    for (Operation *reader : llvm::drop_begin(readers)) {
      builder.setInsertionPoint(reader);
      Operation *copy = builder.clone(*broadcast);
      reader->replaceUsesOfWith(broadcast.getResult(), copy->getResult(0));
    }
  }
}

struct TraceFusePass final : trace::impl::TraceFusePassBase<TraceFusePass> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (maxOps < 2 || maxInputs < 1) {
      func.emitError("trace-fuse needs max-ops >= 2 and max-inputs >= 1, got ")
          << static_cast<int64_t>(maxOps) << " and "
          << static_cast<int64_t>(maxInputs);
      return signalPassFailure();
    }
    if (func.isExternal())
      return;
    // The function body and each checkpoint body, fused apart: a fusion
    // never crosses a region's boundary.
    SmallVector<Block *> blocks{&func.getBody().front()};
    func.walk([&](CheckpointOp checkpoint) {
      blocks.push_back(&checkpoint.getBody().front());
    });
    unsigned counter = 0;
    for (Block *block : blocks)
      splitBroadcasts(*block);
    for (Block *block : blocks)
      if (failed(BlockFusion(*block, maxOps, maxInputs).run(counter)))
        return signalPassFailure();
  }
};

} // namespace
