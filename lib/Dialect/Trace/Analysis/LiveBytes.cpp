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
#include "trace/Dialect/Trace/IR/TraceTraits.h"

using namespace mlir;
using namespace mlir::trace;

bool mlir::trace::isStorageView(Operation *op) {
  return op->hasTrait<trace::OpTrait::ViewOp>() && op->getNumOperands() >= 1 &&
         op->getNumResults() == 1;
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
  if (!block.empty() && block.back().hasTrait<mlir::OpTrait::IsTerminator>())
    for (Value operand : block.back().getOperands())
      read(operand, numOps);

  // A difference array: +bytes where a range begins, -bytes after it ends.
  std::vector<int64_t> delta(ops.size() + 1, 0);
  for (const StorageRange &range : ranges) {
    if (range.end < 0)
      continue;
    delta[std::max<int64_t>(range.begin, 0)] += range.bytes;
    if (range.end + 1 <= numOps)
      delta[range.end + 1] -= range.bytes;
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
