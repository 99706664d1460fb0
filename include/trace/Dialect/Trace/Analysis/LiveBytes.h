//===- LiveBytes.h - live bytes over a straight-line schedule ---*- C++ -*-===//
//
// The memory model trace-memory-report measures and trace-schedule
// optimizes: one block, executed in op order; each non-view result is a new
// allocation of its static size; a view (trace.reshape, trace.transpose, ...)
// shares its operand's storage; a storage is freed after the last op that
// reads it or any view of it; block arguments are live from the start until
// their last reader; values the terminator returns stay live to the end;
// an elementwise result may take the storage of an operand that dies there.
//
//===----------------------------------------------------------------------===//

#ifndef TRACE_TRANSFORMS_LIVEBYTES_H
#define TRACE_TRANSFORMS_LIVEBYTES_H

#include "mlir/IR/Block.h"
#include "llvm/ADT/DenseMap.h"

#include <vector>

namespace mlir::trace {

/// Whether `op`'s result shares its operand's storage.
bool isStorageView(Operation *op);

/// One storage: its root value (a block argument or a non-view result), its
/// size, and the op indices between which it is live. `begin` is -1 for a
/// block argument; `end` is the index of the last op reading it (or a view
/// of it), the number of ops if the terminator returns it, and `begin` for
/// a result nothing reads (allocated and freed by its op). An argument
/// nothing reads has `end` = -1.
///
/// A storage that `end`'s op overwrites is `reused`: an elementwise op (or a
/// fusion computing a result elementwise from it) reading it last, with a
/// result of the same size that is not returned, writes that result over it
/// in place, as one-shot bufferization does with a dying input of the same
/// type. Its bytes then count as freed when that op allocates.
struct StorageRange {
  Value root;
  int64_t bytes = 0;
  int64_t begin = -1;
  int64_t end = -1;
  bool reused = false;

  /// The first op at which the storage no longer counts.
  int64_t freedAt() const { return reused ? end : end + 1; }
};

/// Live ranges and the live-bytes timeline of a block.
class LiveBytes {
public:
  explicit LiveBytes(Block &block);

  /// The block's ops without its terminator, in order.
  ArrayRef<Operation *> getOps() const { return ops; }
  int64_t indexOf(Operation *op) const { return index.lookup(op); }
  /// The storage `value` lives in (itself, unless it is a view).
  Value rootOf(Value value) const {
    auto it = roots.find(value);
    return it == roots.end() ? value : it->second;
  }
  /// The range of the storage `value` lives in.
  const StorageRange &rangeOf(Value value) const {
    return ranges[rangeIndex.lookup(rootOf(value))];
  }
  ArrayRef<StorageRange> getRanges() const { return ranges; }

  /// Live bytes at each op: after it allocates its results, before it frees
  /// what it read last.
  ArrayRef<int64_t> getTimeline() const { return timeline; }
  /// Bytes of the block's arguments, all live before the first op.
  int64_t getArgumentBytes() const { return argumentBytes; }
  /// The larger of the argument bytes and the timeline's maximum.
  int64_t getPeak() const { return peak; }
  /// The first op where the peak is reached, or -1 if it is the arguments.
  int64_t getPeakIndex() const { return peakIndex; }
  /// The sum of the timeline: live bytes integrated over the schedule.
  int64_t getArea() const { return area; }

private:
  std::vector<Operation *> ops;
  llvm::DenseMap<Operation *, int64_t> index;
  llvm::DenseMap<Value, Value> roots;
  llvm::DenseMap<Value, unsigned> rangeIndex;
  std::vector<StorageRange> ranges;
  std::vector<int64_t> timeline;
  int64_t argumentBytes = 0, peak = 0, peakIndex = -1, area = 0;
};

} // namespace mlir::trace

#endif // TRACE_TRANSFORMS_LIVEBYTES_H
