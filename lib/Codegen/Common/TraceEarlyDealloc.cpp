//===- TraceEarlyDealloc.cpp - free each buffer after its last use --------===//
//
// MLIR 22 has no liveness-based deallocation placement any more (the old
// -buffer-deallocation pass is gone; ownership-based deallocation puts a
// block's frees before its terminator), so this pass moves them up. It
// only moves a `memref.dealloc` within its block, to just after the last
// op of that block that reaches the buffer through any alias; whenever an
// alias leaves the block it leaves the dealloc alone.
//
//===----------------------------------------------------------------------===//

#include "trace/Codegen/Common/Passes.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

#define DEBUG_TYPE "trace-early-dealloc"

namespace mlir::trace {
#define GEN_PASS_DEF_TRACEEARLYDEALLOCPASS
#include "trace/Codegen/Common/Passes.h.inc"
} // namespace mlir::trace

using namespace mlir;

namespace {

/// Whether `value`, produced by an op that took a buffer, may point into
/// that buffer: memrefs, and the pointers and bases memref.extract_* ops
/// derive from it.
bool mayAlias(Value value) {
  if (isa<BaseMemRefType>(value.getType()))
    return true;
  Operation *def = value.getDefiningOp();
  return def && isa<memref::ExtractAlignedPointerAsIndexOp,
                    memref::ExtractStridedMetadataOp>(def);
}

/// The last op of `dealloc`'s block that uses its buffer through any
/// alias (null: no use), or failure when some alias leaves the block (used
/// in another block, or by a terminator, whose region's results or
/// successors would alias it) and the dealloc must stay.
FailureOr<Operation *> lastUseInBlock(memref::DeallocOp dealloc) {
  Block *block = dealloc->getBlock();
  SmallVector<Value> work{dealloc.getMemref()};
  DenseSet<Value> seen;
  Operation *last = nullptr;
  while (!work.empty()) {
    Value value = work.pop_back_val();
    if (!seen.insert(value).second)
      continue;
    for (OpOperand &use : value.getUses()) {
      Operation *user = use.getOwner();
      if (user == dealloc)
        continue;
      Operation *inBlock = block->findAncestorOpInBlock(*user);
      if (!inBlock || user->hasTrait<OpTrait::IsTerminator>() ||
          isa<memref::DeallocOp>(user))
        return failure();
      if (!last || last->isBeforeInBlock(inBlock))
        last = inBlock;
      for (Value result : user->getResults())
        if (mayAlias(result))
          work.push_back(result);
    }
  }
  return last;
}

struct TraceEarlyDeallocPass final
    : trace::impl::TraceEarlyDeallocPassBase<TraceEarlyDeallocPass> {
  void runOnOperation() override {
    SmallVector<memref::DeallocOp> deallocs;
    getOperation().walk(
        [&](memref::DeallocOp dealloc) { deallocs.push_back(dealloc); });
    for (memref::DeallocOp dealloc : deallocs) {
      FailureOr<Operation *> last = lastUseInBlock(dealloc);
      if (failed(last))
        continue; // an alias leaves the block
      // Unused: free it right after it is made (when that is in the block).
      Operation *after = *last;
      if (!after) {
        Operation *def = dealloc.getMemref().getDefiningOp();
        if (!def || def->getBlock() != dealloc->getBlock())
          continue;
        after = def;
      }
      if (after->isBeforeInBlock(dealloc) && after->getNextNode() != dealloc)
        dealloc->moveAfter(after);
    }
  }
};

} // namespace
