//===- LiveBytes.cpp - live bytes over a straight-line schedule -----------===//
//
// Written as a walk rather than with upstream's Liveness analysis: what is
// wanted is one number per program point of a single block, with views
// aliasing their operand's storage, which Liveness (per-block live-in/out
// sets of SSA values) does not model.
//
//===----------------------------------------------------------------------===//

#include "trace/Dialect/Trace/Analysis/LiveBytes.h"

#include "trace/Dialect/Trace/IR/TraceInterfaces.h"
#include "trace/Dialect/Trace/IR/TraceOps.h"
#include "trace/Dialect/Trace/IR/TraceTraits.h"

#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace mlir::trace;

bool mlir::trace::isStorageView(Operation *op) {
  return op->hasTrait<trace::OpTrait::ViewOp>() && op->getNumOperands() >= 1 &&
         op->getNumResults() == 1;
}

/// Whether `fusion`'s result `index` may be written over its operand
/// `operand`: inside the region, the operand's values flow only through
/// elementwise ops (each element read where it is written) to that result.
static bool fusionWritesInPlace(FusionOp fusion, unsigned index,
                                unsigned operand) {
  Block &body = fusion.getRegion().front();
  llvm::SetVector<Value> derived;
  derived.insert(body.getArgument(operand));
  for (size_t i = 0; i < derived.size(); ++i)
    for (Operation *user : derived[i].getUsers()) {
      if (isa<YieldOp>(user))
        continue;
      if (!user->hasTrait<mlir::OpTrait::Elementwise>())
        return false;
      derived.insert(user->getResults().begin(), user->getResults().end());
    }
  return derived.contains(body.getTerminator()->getOperand(index));
}

/// The operands `op`'s result `index` may be written over in place.
static bool writesInPlace(Operation *op, unsigned index, unsigned operand) {
  if (auto fusion = dyn_cast<FusionOp>(op))
    return fusionWritesInPlace(fusion, index, operand);
  return op->hasTrait<mlir::OpTrait::Elementwise>() &&
         op->getNumRegions() == 0;
}

LiveBytes::LiveBytes(Block &block) {
  for (Operation &op : block.without_terminator()) {
    index[&op] = static_cast<int64_t>(ops.size());
    ops.push_back(&op);
  }
  auto addRange = [&](Value root, int64_t begin) {
    rangeIndex[root] = ranges.size();
    int64_t bytes = getTensorBytes(root.getType());
    // A result is allocated by its op even if nothing reads it.
    ranges.push_back({root, bytes, begin, begin});
  };
  for (BlockArgument arg : block.getArguments()) {
    addRange(arg, -1);
    argumentBytes += ranges.back().bytes;
  }
  auto read = [&](Value value, int64_t when) {
    StorageRange &range = ranges[rangeIndex.lookup(rootOf(value))];
    range.end = std::max(range.end, when);
  };
  int64_t numOps = static_cast<int64_t>(ops.size());
  for (auto [i, op] : llvm::enumerate(ops)) {
    for (Value operand : op->getOperands())
      read(operand, i);
    if (isStorageView(op)) {
      roots[op->getResult(0)] = rootOf(op->getOperand(0));
      continue;
    }
    for (Value result : op->getResults())
      addRange(result, i);
  }
  llvm::DenseSet<Value> returned;
  if (!block.empty() && block.back().hasTrait<mlir::OpTrait::IsTerminator>())
    for (Value operand : block.back().getOperands()) {
      read(operand, numOps);
      returned.insert(rootOf(operand));
    }

  // In place: a result takes the storage of an operand of the same size
  // that dies at its op (not an argument's, not a view, one result each).
  for (auto [i, op] : llvm::enumerate(ops)) {
    if (isStorageView(op))
      continue;
    for (OpResult result : op->getResults()) {
      if (returned.contains(result))
        continue;
      int64_t bytes = ranges[rangeIndex.lookup(result)].bytes;
      for (OpOperand &operand : op->getOpOperands()) {
        Value value = operand.get();
        auto found = rangeIndex.find(value);
        if (found == rangeIndex.end())
          continue; // a view
        StorageRange &range = ranges[found->second];
        if (range.reused || range.begin < 0 ||
            range.end != static_cast<int64_t>(i) || range.bytes != bytes ||
            !writesInPlace(op, result.getResultNumber(),
                           operand.getOperandNumber()))
          continue;
        range.reused = true;
        break;
      }
    }
  }

  // A difference array: +bytes where a range begins, -bytes after it ends.
  std::vector<int64_t> delta(ops.size() + 1, 0);
  for (const StorageRange &range : ranges) {
    if (range.end < 0)
      continue;
    delta[std::max<int64_t>(range.begin, 0)] += range.bytes;
    if (range.freedAt() <= numOps)
      delta[range.freedAt()] -= range.bytes;
  }
  timeline.resize(ops.size());
  int64_t live = 0;
  peak = argumentBytes;
  for (int64_t i = 0; i < numOps; ++i) {
    live += delta[i];
    timeline[i] = live;
    area += live;
    if (live > peak) {
      peak = live;
      peakIndex = i;
    }
  }
}
