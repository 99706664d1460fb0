//===- TraceOutlineRepeats.cpp - one function per kind of layer -----------===//
//
// The layers of a repeated block become calls of one function per kind of
// layer, found by the module path in the ops' locations and confirmed by
// comparing the outlined bodies' text. See the pass description in
// Passes.td.
//
// Upstream MLIR has no outliner of repeated op sequences (its outlining
// utilities outline a region, or a GPU launch, given by the caller); what
// is written here is the choice of the sequences, and the sharing test is
// the one trace-outline-kernels uses.
//
//===----------------------------------------------------------------------===//

#include "trace/Dialect/Trace/IR/TraceDialect.h"
#include "trace/Dialect/Trace/IR/TraceOps.h"
#include "trace/Dialect/Trace/Transforms/Passes.h"
#include "trace/Support/StructuralPrinting.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"

#define DEBUG_TYPE "trace-outline-repeats"

namespace mlir::trace {
#define GEN_PASS_DEF_TRACEOUTLINEREPEATSPASS
#include "trace/Dialect/Trace/Transforms/Passes.h.inc"
} // namespace mlir::trace

using namespace mlir;

namespace {

/// The layer `loc` belongs to: its first name, up to and with the first
/// numeric component ("blocks.3" of "blocks.3.attn.qkv"); none for a name
/// without one.
std::optional<StringRef> layerOf(Location loc) {
  std::optional<StringRef> layer;
  loc->walk([&](Location inner) {
    auto name = dyn_cast<NameLoc>(inner);
    if (!name)
      return WalkResult::advance();
    StringRef path = name.getName().getValue();
    size_t end = 0;
    while (end < path.size()) {
      size_t dot = path.find('.', end);
      StringRef part = path.slice(end, dot);
      end = dot == StringRef::npos ? path.size() : dot;
      if (!part.empty() &&
          llvm::all_of(part, [](char c) { return llvm::isDigit(c); })) {
        layer = path.take_front(end);
        break;
      }
      ++end;
    }
    return WalkResult::interrupt();
  });
  return layer;
}

/// A stretch of one block's ops, `first` to `last` inclusive, of one layer.
struct Run {
  StringRef layer;
  Operation *first, *last;
  llvm::DenseSet<Operation *> ops;
  llvm::SetVector<Value> inputs;
  SmallVector<Value> escaping;
  func::FuncOp candidate;
};

/// The runs of `block` of at least `minOps` ops.
SmallVector<std::unique_ptr<Run>> findRuns(Block &block, int64_t minOps) {
  SmallVector<std::unique_ptr<Run>> runs;
  std::unique_ptr<Run> run;
  auto close = [&]() {
    if (!run)
      return;
    // Nested ops count: a checkpoint region is a whole layer in one op.
    int64_t size = 0;
    for (Operation &op : llvm::make_range(
             run->first->getIterator(), std::next(run->last->getIterator()))) {
      run->ops.insert(&op);
      op.walk([&](Operation *) { ++size; });
    }
    if (size >= minOps)
      runs.push_back(std::move(run));
    run.reset();
  };
  for (Operation &op : block.without_terminator()) {
    std::optional<StringRef> layer = layerOf(op.getLoc());
    if (!layer)
      continue;
    if (run && run->layer == *layer) {
      run->last = &op;
      continue;
    }
    close();
    run = std::make_unique<Run>();
    run->layer = *layer;
    run->first = run->last = &op;
  }
  close();
  return runs;
}

/// Fills `run`'s inputs and escaping values, and clones it into a
/// function (not yet in any module) named `name`.
func::FuncOp buildCandidate(Run &run, Block &block, StringRef name) {
  auto inRun = [&](Operation *op) {
    Operation *top = block.findAncestorOpInBlock(*op);
    return top && run.ops.contains(top);
  };
  auto definedInRun = [&](Value value) {
    if (auto arg = dyn_cast<BlockArgument>(value))
      return arg.getOwner() != &block && inRun(arg.getOwner()->getParentOp());
    return inRun(value.getDefiningOp());
  };
  Block::iterator end = std::next(run.last->getIterator());
  for (Operation &op : llvm::make_range(run.first->getIterator(), end)) {
    op.walk([&](Operation *inner) {
      for (Value operand : inner->getOperands())
        if (!definedInRun(operand))
          run.inputs.insert(operand);
    });
    for (Value result : op.getResults())
      if (llvm::any_of(result.getUsers(),
                       [&](Operation *user) { return !inRun(user); }))
        run.escaping.push_back(result);
  }

  auto type = FunctionType::get(run.first->getContext(),
                                ValueRange(run.inputs.getArrayRef()).getTypes(),
                                ValueRange(run.escaping).getTypes());
  auto fn = func::FuncOp::create(run.first->getLoc(), name, type);
  Block *entry = fn.addEntryBlock();
  OpBuilder builder = OpBuilder::atBlockBegin(entry);
  IRMapping mapping;
  mapping.map(run.inputs.getArrayRef(), entry->getArguments());
  for (Operation &op : llvm::make_range(run.first->getIterator(), end))
    builder.clone(op, mapping);
  SmallVector<Value> results;
  for (Value value : run.escaping)
    results.push_back(mapping.lookup(value));
  func::ReturnOp::create(builder, run.last->getLoc(), results);
  // A layer's names differ from the next layer's, and so do the labels of
  // its fusions (numbered through the function) and checkpoint regions
  // (the layer's path); its computation does not. A shared body names no
  // one layer.
  fn.walk([](Operation *op) {
    op->removeAttr(trace::TraceDialect::kNameAttrName);
    if (auto fusion = dyn_cast<trace::FusionOp>(op))
      fusion.removeNameAttr();
    else if (auto region = dyn_cast<trace::CheckpointOp>(op))
      region.removeNameAttr();
  });
  return fn;
}

/// Replaces `run` by a call of `callee`. `replaced` maps the values of the
/// runs replaced before it (an input of this one may be one) to the calls'
/// results, and gets this run's.
void replaceByCall(Run &run, func::FuncOp callee, Block &block,
                   llvm::DenseMap<Value, Value> &replaced) {
  SmallVector<Value> inputs;
  for (Value input : run.inputs)
    inputs.push_back(replaced.lookup_or(input, input));
  OpBuilder builder(run.first);
  auto call =
      func::CallOp::create(builder, run.first->getLoc(), callee, inputs);
  for (auto [value, result] :
       llvm::zip_equal(run.escaping, call.getResults())) {
    replaced[value] = result;
    value.replaceUsesWithIf(result, [&](OpOperand &use) {
      Operation *top = block.findAncestorOpInBlock(*use.getOwner());
      return !top || !run.ops.contains(top);
    });
  }
  // Last to first, so each op's users are gone before it.
  SmallVector<Operation *> ops;
  for (Operation &op : llvm::make_range(run.first->getIterator(),
                                        std::next(run.last->getIterator())))
    ops.push_back(&op);
  for (Operation *op : llvm::reverse(ops))
    op->erase();
}

/// True for a transpose of the last two dims of a matrix or a batch of
/// them: the one trace-fold-transpose-into-matmul folds into a matmul
/// operand (a matmul of rank 4 or more reads a collapsed operand, which
/// it does not fold).
bool swapsLastTwo(trace::TransposeOp transpose) {
  ArrayRef<int64_t> perm = transpose.getPermutation();
  int64_t rank = perm.size();
  if (rank < 2 || rank > 3)
    return false;
  for (int64_t i = 0; i < rank; ++i) {
    int64_t expected = i < rank - 2 ? i : (i == rank - 2 ? rank - 1 : rank - 2);
    if (perm[i] != expected)
      return false;
  }
  return true;
}

/// Folds each transpose of a transpose (TransposeOp's folder) and erases
/// the transposes left unread. trace-schedule's recomputations leave such
/// pairs, a recomputed weight's transpose transposed back for the
/// backward's matmul, after the training step's last canonicalization; the
/// inner transpose is then read by a transpose, not only by matmuls, and
/// would not sink.
void foldTransposePairs(Block &block) {
  SmallVector<trace::TransposeOp> outers;
  block.walk([&](trace::TransposeOp transpose) {
    if (transpose.getOperand().getDefiningOp<trace::TransposeOp>())
      outers.push_back(transpose);
  });
  for (trace::TransposeOp transpose : outers) {
    SmallVector<OpFoldResult> folded;
    if (failed(transpose->fold(folded)) || folded.size() != 1)
      continue;
    auto value = dyn_cast<Value>(folded.front());
    if (value && value != transpose.getResult()) {
      transpose.getResult().replaceAllUsesWith(value);
      transpose->erase();
    }
  }
  // No transpose reads a transpose now, so erasing one leaves no other
  // unread: one walk.
  block.walk([&](trace::TransposeOp transpose) {
    if (transpose->use_empty())
      transpose->erase();
  });
}

/// Moves each transpose that only matmuls read, and that they fold, to
/// just before each of its readers, a clone per reader, so that it lands
/// in the reader's run: trace-fold-transpose-into-matmul folds it into the
/// matmul, which it can only do inside one function. (Autodiff emits a
/// layer's weight transposes together, apart from the matmuls.) Other
/// transposes are real work, and stay where they are, computed once.
void sinkMatmulTransposes(Block &block) {
  SmallVector<trace::TransposeOp> transposes;
  for (auto transpose : block.getOps<trace::TransposeOp>())
    if (!transpose->use_empty() && swapsLastTwo(transpose) &&
        llvm::all_of(transpose->getUsers(), [&](Operation *user) {
          return isa<trace::MatmulOp>(user) && user->getBlock() == &block;
        }))
      transposes.push_back(transpose);
  for (trace::TransposeOp transpose : transposes) {
    for (OpOperand &use : llvm::make_early_inc_range(transpose->getUses())) {
      // The reader's location puts the clone in the reader's layer.
      OpBuilder builder(use.getOwner());
      Operation *clone = builder.clone(*transpose);
      clone->setLoc(use.getOwner()->getLoc());
      use.set(clone->getResult(0));
    }
    transpose->erase();
  }
}

struct TraceOutlineRepeatsPass final
    : trace::impl::TraceOutlineRepeatsPassBase<TraceOutlineRepeatsPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    // The candidates live in a scratch module until they are shared or
    // dropped.
    OwningOpRef<ModuleOp> scratch = ModuleOp::create(module.getLoc());
    struct Site {
      Block *block;
      std::unique_ptr<Run> run;
    };
    SmallVector<Site> sites;
    for (auto fn : llvm::make_early_inc_range(module.getOps<func::FuncOp>())) {
      if (fn.isExternal() || !fn.getBody().hasOneBlock())
        continue;
      Block &block = fn.getBody().front();
      foldTransposePairs(block);
      sinkMatmulTransposes(block);
      for (std::unique_ptr<Run> &run : findRuns(block, minOps)) {
        // An identifier ("forward_bwd_blocks_3"): the GPU pipeline names
        // a layer's kernels after it, and PTX names take no dots.
        std::string name = (fn.getSymName() + "_" + run->layer).str();
        for (char &c : name)
          if (!llvm::isAlnum(c) && c != '_')
            c = '_';
        run->candidate = buildCandidate(*run, block, name);
        scratch->push_back(run->candidate);
        sites.push_back({&block, std::move(run)});
      }
    }

    // Candidates by their printed body, under one name so that the name
    // does not tell them apart.
    llvm::StringMap<SmallVector<Run *>> byBody;
    SmallVector<llvm::StringMapEntry<SmallVector<Run *>> *> groupOf;
    for (Site &site : sites) {
      func::FuncOp fn = site.run->candidate;
      std::string name = fn.getSymName().str(), body;
      fn.setSymName("layer");
      {
        llvm::raw_string_ostream os(body);
        fn->print(os, trace::structuralPrintingFlags());
      }
      fn.setSymName(name);
      auto &group = *byBody.try_emplace(body).first;
      group.getValue().push_back(site.run.get());
      groupOf.push_back(&group);
    }

    // The shared functions, in the order of their first runs (not the
    // map's), so the module reads the same from one run to the next.
    SymbolTable symbols(module);
    llvm::DenseMap<Run *, func::FuncOp> callees;
    for (auto *group : groupOf) {
      ArrayRef<Run *> runs = group->getValue();
      if (runs.size() < 2 || callees.contains(runs.front()))
        continue;
      func::FuncOp shared = runs.front()->candidate;
      shared->remove();
      shared.setPrivate();
      // Kept as a call in LLVM too: inlining would undo the point.
      shared->setAttr("passthrough",
                      ArrayAttr::get(&getContext(), {StringAttr::get(
                                                        &getContext(),
                                                        "noinline")}));
      symbols.insert(shared);
      ++numFunctions;
      for (Run *run : runs)
        callees[run] = shared;
    }
    // In block order, so a run's inputs from an earlier run are found in
    // `replaced`.
    llvm::DenseMap<Value, Value> replaced;
    for (Site &site : sites) {
      auto callee = callees.find(site.run.get());
      if (callee == callees.end())
        continue;
      replaceByCall(*site.run, callee->second, *site.block, replaced);
      ++numRuns;
    }
  }
};

} // namespace
