//===- TraceSplitDeallocs.cpp - one dealloc per fresh allocation ----------===//
//
// Ownership-based deallocation leaves one `bufferization.dealloc` per block
// with every buffer of the block. Upstream's
// buffer-deallocation-simplification splits it with a pattern that asks
// BufferOriginAnalysis::isSameAllocation about each memref against every
// other memref, then each split-off dealloc about its memref against every
// retained value: O(N^2 + N R) queries, each a walk. A deep model's
// backward frees thousands of buffers and retains hundreds of results, so
// that time grows faster than the depth (docs/Benchmarks.md, compile
// time against depth).
//
// The split needs less: the origin of each value, found once (the source
// through view-like ops, memref.extract_strided_metadata included), then
// set lookups. This pass does the split that upstream's
// SplitDeallocWhenNotAliasingAnyOther and
// RemoveRetainedMemrefsGuaranteedToNotAlias would do, for the memrefs whose
// answer is certain, and leaves every other case to them: they then see
// deallocs of one memref and a few retained values.
//
//===----------------------------------------------------------------------===//

#include "trace/Codegen/Common/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

#define DEBUG_TYPE "trace-split-deallocs"

namespace mlir::trace {
#define GEN_PASS_DEF_TRACESPLITDEALLOCSPASS
#include "trace/Codegen/Common/Passes.h.inc"
} // namespace mlir::trace

using namespace mlir;

namespace {

/// Where a memref's storage comes from, as far as one walk up the view-like
/// ops can tell.
struct Origin {
  enum Kind { Allocation, EntryArgument, Unknown } kind;
  Value value; // the allocated value or the argument; null when unknown
};

Origin originOf(Value value, Block &entry) {
  while (auto view = value.getDefiningOp<ViewLikeOpInterface>())
    value = view.getViewSource();
  if (auto arg = dyn_cast<BlockArgument>(value))
    if (arg.getOwner() == &entry)
      return {Origin::EntryArgument, value};
  if (Operation *def = value.getDefiningOp())
    if (hasEffect<MemoryEffects::Allocate>(def, value))
      return {Origin::Allocation, value};
  return {Origin::Unknown, Value()};
}

/// Splits `dealloc`; returns whether it changed anything.
bool split(bufferization::DeallocOp dealloc, Block &entry,
           RewriterBase &rewriter) {
  // How many memrefs of this dealloc come from each allocation.
  DenseMap<Value, unsigned> sharers;
  SmallVector<Origin> memrefOrigins;
  for (Value memref : dealloc.getMemrefs()) {
    memrefOrigins.push_back(originOf(memref, entry));
    if (memrefOrigins.back().kind == Origin::Allocation)
      ++sharers[memrefOrigins.back().value];
  }
  // A memref of unknown origin may alias any allocation: then nothing can
  // be split off with certainty.
  if (llvm::any_of(memrefOrigins,
                   [](Origin o) { return o.kind == Origin::Unknown; }))
    return false;

  // Retained values by origin; those of unknown origin may alias any.
  ValueRange retained = dealloc.getRetained();
  DenseMap<Value, SmallVector<unsigned>> retainedByAllocation;
  SmallVector<unsigned> retainedUnknown;
  for (auto [i, value] : llvm::enumerate(retained)) {
    Origin origin = originOf(value, entry);
    if (origin.kind == Origin::Allocation)
      retainedByAllocation[origin.value].push_back(i);
    else if (origin.kind == Origin::Unknown)
      retainedUnknown.push_back(i);
  }

  Location loc = dealloc.getLoc();
  rewriter.setInsertionPoint(dealloc);
  SmallVector<Value> restMemrefs, restConditions;
  // contributions[i]: the updated conditions to or into retained value i.
  SmallVector<SmallVector<Value, 1>> contributions(retained.size());
  unsigned splitOff = 0;
  for (auto [memref, condition, origin] :
       llvm::zip_equal(dealloc.getMemrefs(), dealloc.getConditions(),
                       memrefOrigins)) {
    // Another memref of the same allocation (or an argument, which may
    // alias other arguments) stays with the rest.
    if (origin.kind != Origin::Allocation || sharers[origin.value] != 1) {
      restMemrefs.push_back(memref);
      restConditions.push_back(condition);
      continue;
    }
    SmallVector<unsigned> kept(retainedUnknown);
    auto same = retainedByAllocation.find(origin.value);
    if (same != retainedByAllocation.end())
      kept.append(same->second);
    llvm::sort(kept);
    SmallVector<Value> keptValues = llvm::map_to_vector(
        kept, [&](unsigned i) { return retained[i]; });
    auto own = bufferization::DeallocOp::create(rewriter, loc, memref,
                                                condition, keptValues);
    for (auto [i, updated] : llvm::zip_equal(kept, own.getUpdatedConditions()))
      contributions[i].push_back(updated);
    ++splitOff;
  }
  if (splitOff == 0)
    return false;

  if (!restMemrefs.empty()) {
    auto rest = bufferization::DeallocOp::create(rewriter, loc, restMemrefs,
                                                 restConditions, retained);
    for (auto [i, updated] : llvm::enumerate(rest.getUpdatedConditions()))
      contributions[i].insert(contributions[i].begin(), updated);
  }
  SmallVector<Value> replacements;
  Value falseValue;
  for (SmallVector<Value, 1> &terms : contributions) {
    if (terms.empty()) {
      if (!falseValue)
        falseValue = arith::ConstantOp::create(rewriter, loc,
                                               rewriter.getBoolAttr(false));
      replacements.push_back(falseValue);
      continue;
    }
    Value disjunction = terms.front();
    for (Value term : llvm::drop_begin(terms))
      disjunction = arith::OrIOp::create(rewriter, loc, disjunction, term);
    replacements.push_back(disjunction);
  }
  rewriter.replaceOp(dealloc, replacements);
  return true;
}

struct TraceSplitDeallocsPass final
    : trace::impl::TraceSplitDeallocsPassBase<TraceSplitDeallocsPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    SmallVector<bufferization::DeallocOp> deallocs;
    // A dealloc of one memref is already as split as it gets.
    func.walk([&](bufferization::DeallocOp op) {
      if (op.getMemrefs().size() > 1)
        deallocs.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (bufferization::DeallocOp dealloc : deallocs)
      split(dealloc, func.getBody().front(), rewriter);
  }
};

} // namespace
