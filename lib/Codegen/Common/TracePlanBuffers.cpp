//===- TracePlanBuffers.cpp - temporaries in one arena by liveness --------===//
//
// Static memory planning of a function's temporaries: the intervals from
// each planned buffer's first use to its `memref.dealloc`, in the order of the
// function's one block, form an interval graph; buffers whose intervals
// overlap get disjoint byte ranges of one arena. See the pass description
// in Passes.td.
//
//===----------------------------------------------------------------------===//

#include "trace/Codegen/Common/Passes.h"
#include "trace/Dialect/Trace/IR/TraceDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <map>

#define DEBUG_TYPE "trace-plan-buffers"

namespace mlir::trace {
#define GEN_PASS_DEF_TRACEPLANBUFFERSPASS
#include "trace/Codegen/Common/Passes.h.inc"
} // namespace mlir::trace

using namespace mlir;

namespace {

constexpr int64_t kAlignment = 64;
/// The page the plan counts in (the runtime rounds to the real one), and
/// the fewest bytes a populate call is worth: below two pages, a fault.
constexpr int64_t kPage = 4096;
constexpr int64_t kMinPopulateBytes = 2 * kPage;
/// With release-between-lifetimes, the fewest dead bytes a release hands
/// back at once; trace-prune-releases then keeps only the releases that
/// lower the peak.
constexpr int64_t kMinReleaseBytes = 16 * kPage;
/// The arena itself starts on a page, so that its pages are the pages the
/// kernel counts: a release or populate of arena pages [a, b) is the
/// kernel's pages [a, b), as trace-resident-report counts them.
constexpr int64_t kArenaAlignment = kPage;

int64_t alignUp(int64_t bytes) {
  return (bytes + kAlignment - 1) / kAlignment * kAlignment;
}

/// One planned buffer: live from the op at `start` to the one at `end`
/// (block positions, both inclusive), `bytes` long (aligned), at `offset`.
struct Buffer {
  memref::AllocOp alloc;
  memref::DeallocOp dealloc;
  int64_t start, end, bytes, offset = -1;
  /// The first op that reads or writes it (not a view of it): where its
  /// pages become resident. -1: none does.
  int64_t touch = -1;
};

/// The first op of `block` that touches `value` through its views: a use
/// that is not itself a view (or cast) and not its dealloc; null if none.
Operation *firstTouch(Value value, Block &block) {
  Operation *first = nullptr;
  SmallVector<Value> worklist{value};
  while (!worklist.empty()) {
    Value current = worklist.pop_back_val();
    for (Operation *user : current.getUsers()) {
      if (isa<ViewLikeOpInterface>(user) && user->getNumResults() == 1 &&
          user->getOperand(0) == current) {
        worklist.push_back(user->getResult(0));
        continue;
      }
      // Reading a shape touches no byte (as trace-resident-report counts).
      Operation *inBlock = block.findAncestorOpInBlock(*user);
      if (!inBlock || isa<memref::DeallocOp>(inBlock) ||
          isMemoryEffectFree(inBlock))
        continue;
      if (!first || inBlock->isBeforeInBlock(first))
        first = inBlock;
    }
  }
  return first;
}

/// The byte size of a buffer of `type` laid out as the LLVM lowering stores
/// it: static shape, identity layout, default memory space, an integer or
/// float element type of 1, 2, 4, 8 or 16 bytes (i24 or f80 would take
/// more); nullopt otherwise.
std::optional<int64_t> contiguousBytes(Type type) {
  auto memref = dyn_cast<MemRefType>(type);
  if (!memref || !memref.hasStaticShape() || !memref.getLayout().isIdentity() ||
      memref.getMemorySpace() || !memref.getElementType().isIntOrFloat())
    return std::nullopt;
  unsigned bits = memref.getElementType().getIntOrFloatBitWidth();
  if (bits < 8 || bits > 128 || !llvm::isPowerOf2_32(bits))
    return std::nullopt;
  return memref.getNumElements() * (bits / 8);
}

/// The alloc's byte size (at least 1) when it can live in the arena: a
/// contiguous buffer with an alignment the arena's offsets satisfy;
/// otherwise 0.
int64_t plannableBytes(memref::AllocOp alloc) {
  std::optional<int64_t> bytes = contiguousBytes(alloc.getType());
  if (!bytes)
    return 0;
  if (std::optional<uint64_t> align = alloc.getAlignment())
    if (*align > static_cast<uint64_t>(kAlignment))
      return 0;
  return std::max<int64_t>(*bytes, 1);
}

/// The one `memref.dealloc` of `alloc`'s result in `block`, or null.
memref::DeallocOp deallocInBlock(memref::AllocOp alloc, Block &block) {
  memref::DeallocOp found;
  for (Operation *user : alloc->getUsers())
    if (auto dealloc = dyn_cast<memref::DeallocOp>(user)) {
      if (found || dealloc->getBlock() != &block)
        return nullptr;
      found = dealloc;
    }
  return found;
}

/// Greedy by size: largest first, each at the lowest aligned offset where
/// it overlaps no placed buffer that is live at the same time. Returns the
/// arena's size.
int64_t assignOffsets(MutableArrayRef<Buffer> buffers) {
  SmallVector<Buffer *> order;
  for (Buffer &buffer : buffers)
    order.push_back(&buffer);
  std::stable_sort(order.begin(), order.end(),
                   [](Buffer *a, Buffer *b) { return a->bytes > b->bytes; });
  int64_t arena = 0;
  SmallVector<Buffer *> placed;
  for (Buffer *buffer : order) {
    // Byte ranges of the placed buffers whose lifetimes overlap this one.
    SmallVector<std::pair<int64_t, int64_t>> taken;
    for (Buffer *other : placed)
      if (other->start <= buffer->end && buffer->start <= other->end)
        taken.push_back({other->offset, other->offset + other->bytes});
    llvm::sort(taken);
    int64_t offset = 0;
    for (auto [begin, end] : taken) {
      if (offset + buffer->bytes <= begin)
        break;
      offset = std::max(offset, end);
    }
    buffer->offset = offset;
    arena = std::max(arena, offset + buffer->bytes);
    placed.push_back(buffer);
  }
  return arena;
}

/// The most bytes of `buffers` live at once (the bound no placement beats).
int64_t livePeak(ArrayRef<Buffer> buffers) {
  SmallVector<std::pair<int64_t, int64_t>> events; // (position, +-bytes)
  for (const Buffer &buffer : buffers) {
    events.push_back({buffer.start, buffer.bytes});
    events.push_back({buffer.end + 1, -buffer.bytes});
  }
  llvm::sort(events, [](auto a, auto b) {
    return a.first != b.first ? a.first < b.first : a.second < b.second;
  });
  int64_t live = 0, peak = 0;
  for (auto [position, delta] : events) {
    live += delta;
    peak = std::max(peak, live);
  }
  return peak;
}

/// Each page's lifetimes: the buffers on it, merged where they overlap or
/// follow one another with no op between, as [start, end] positions and
/// the first position an op touches one of them (-1: none does). Between
/// two lifetimes the page holds nothing: the next buffer's bytes are
/// written before they are read.
struct PageLife {
  int64_t start, end, touch;
};

std::vector<SmallVector<PageLife, 2>> pageLives(ArrayRef<Buffer> buffers,
                                                int64_t arenaBytes) {
  int64_t numPages = (arenaBytes + kPage - 1) / kPage;
  std::vector<SmallVector<PageLife, 2>> lives(numPages);
  for (const Buffer &buffer : buffers)
    for (int64_t page = buffer.offset / kPage,
                 last = (buffer.offset + buffer.bytes - 1) / kPage;
         page <= last; ++page)
      lives[page].push_back({buffer.start, buffer.end, buffer.touch});
  for (auto &life : lives) {
    llvm::sort(life, [](const PageLife &a, const PageLife &b) {
      return a.start < b.start;
    });
    SmallVector<PageLife, 2> merged;
    for (const PageLife &next : life) {
      if (merged.empty() || next.start > merged.back().end + 1) {
        merged.push_back(next);
        continue;
      }
      PageLife &last = merged.back();
      last.end = std::max(last.end, next.end);
      if (next.touch >= 0)
        last.touch = last.touch < 0 ? next.touch
                                    : std::min(last.touch, next.touch);
    }
    life = std::move(merged);
  }
  return lives;
}

/// Calls `fn(offset, bytes)` for each run of contiguous pages in the
/// sorted `pages` of an arena of `arenaBytes`. The arena's last page may be
/// partial: a run stops at the arena's end (the bytes past it are the
/// allocator's, the next block's header).
void forEachRun(ArrayRef<int64_t> pages, int64_t arenaBytes,
                function_ref<void(int64_t, int64_t)> fn) {
  for (size_t i = 0; i < pages.size();) {
    size_t j = i + 1;
    while (j < pages.size() && pages[j] == pages[j - 1] + 1)
      ++j;
    int64_t offset = pages[i] * kPage;
    fn(offset, std::min<int64_t>((pages[j - 1] + 1) * kPage, arenaBytes) -
                   offset);
    i = j;
  }
}

/// Where the arena's pages die: after the op at position `at`, the pages
/// of `offset .. offset + bytes` hold nothing until a later op writes
/// them again, if one does.
struct Release {
  int64_t at, offset, bytes;
};

/// The releases of the pages `lives` describes (an arena of `arenaBytes`):
/// a page dies at the end of its last lifetime (`betweenLifetimes`: of each
/// of its lifetimes). Dead pages are handed
/// back in batches of at least `minBytes` (then the rest at the end is the
/// arena's own free), each a run of contiguous pages; a page a lifetime
/// takes again before its batch goes is left out of it. The page size is
/// a guess the runtime rounds to the real one.
SmallVector<Release> planReleases(ArrayRef<SmallVector<PageLife, 2>> lives,
                                  int64_t arenaBytes, int64_t minBytes,
                                  bool betweenLifetimes) {
  // Positions in order, with the pages that die after each: (page, the
  // start of its next lifetime, or none).
  constexpr int64_t kNever = std::numeric_limits<int64_t>::max();
  std::map<int64_t, SmallVector<std::pair<int64_t, int64_t>>> dying;
  for (auto [page, life] : llvm::enumerate(lives))
    for (auto [i, span] : llvm::enumerate(life))
      if (betweenLifetimes || i + 1 == life.size())
        dying[span.end].push_back(
            {static_cast<int64_t>(page),
             i + 1 < life.size() ? life[i + 1].start : kNever});
  SmallVector<Release> releases;
  SmallVector<std::pair<int64_t, int64_t>> pending;
  for (auto &[at, pages] : dying) {
    // Pages a lifetime holds again by now are not dead any more.
    llvm::erase_if(pending, [&](auto page) { return page.second <= at; });
    pending.append(pages.begin(), pages.end());
    if (static_cast<int64_t>(pending.size()) * kPage < minBytes)
      continue;
    SmallVector<int64_t> dead;
    for (auto [page, next] : pending)
      dead.push_back(page);
    llvm::sort(dead);
    forEachRun(dead, arenaBytes, [&](int64_t offset, int64_t bytes) {
      releases.push_back({at, offset, bytes});
    });
    pending.clear();
  }
  return releases;
}

/// Where an op touches the arena's pages first in one of their lifetimes:
/// before the op at position `at`, the pages of `offset .. offset +
/// bytes`.
struct Populate {
  int64_t at, offset, bytes;
};

/// The runs of at least `minBytes` of pages that each position touches
/// first in a lifetime of theirs (`firstOnly`: in their first). The first
/// lifetime's pages are fresh; a later one's are resident again only
/// where a release went between (trace-prune-releases drops the populate
/// of pages that stayed).
SmallVector<Populate> planPopulates(ArrayRef<SmallVector<PageLife, 2>> lives,
                                    int64_t arenaBytes, int64_t minBytes,
                                    bool firstOnly) {
  std::map<int64_t, SmallVector<int64_t>> touched; // position -> pages
  for (auto [page, life] : llvm::enumerate(lives))
    for (const PageLife &span : life) {
      if (span.touch < 0)
        continue;
      touched[span.touch].push_back(page);
      if (firstOnly)
        break;
    }
  SmallVector<Populate> populates;
  for (auto &[at, pages] : touched) {
    llvm::sort(pages);
    forEachRun(pages, arenaBytes, [&](int64_t offset, int64_t bytes) {
      if (bytes >= minBytes)
        populates.push_back({at, offset, bytes});
    });
  }
  return populates;
}

/// Declares the runtime's `name`(arena, offset, bytes): one of
/// trace_rt_release_pages and trace_rt_populate_pages.
func::FuncOp pagesFunction(ModuleOp module, StringRef name) {
  if (auto existing = module.lookupSymbol<func::FuncOp>(name))
    return existing;
  MLIRContext *ctx = module.getContext();
  OpBuilder builder = OpBuilder::atBlockBegin(module.getBody());
  auto index = builder.getIndexType();
  auto callee = func::FuncOp::create(
      builder, module.getLoc(), name,
      builder.getFunctionType(
          {MemRefType::get({ShapedType::kDynamic}, builder.getI8Type()), index,
           index},
          {}));
  callee.setPrivate();
  // The runtime implements the C interface (_mlir_ciface_<name>).
  callee->setAttr("llvm.emit_c_interface", UnitAttr::get(ctx));
  return callee;
}

/// Places `function`'s temporaries in one arena; the arena's allocation,
/// or null when there is nothing to plan.
memref::AllocOp planFunction(func::FuncOp function, bool print,
                             size_t minBuffers, bool releasePages,
                             bool releaseBetween, bool populatePages) {
  if (function.isExternal() || !function.getBody().hasOneBlock())
    return nullptr;
  Block &block = function.getBody().front();
  Operation *terminator = block.getTerminator();

  DenseMap<Operation *, int64_t> position;
  int64_t index = 0;
  for (Operation &op : block)
    position[&op] = index++;

  SmallVector<Buffer> buffers;
  for (auto alloc : block.getOps<memref::AllocOp>()) {
    int64_t bytes = plannableBytes(alloc);
    memref::DeallocOp dealloc = bytes ? deallocInBlock(alloc, block) : nullptr;
    if (!dealloc || !alloc->isBeforeInBlock(dealloc))
      continue;
    // Live from its first use: until then no byte of it is touched (an
    // allocation often sits well before the op that writes it).
    int64_t start = position[dealloc];
    for (Operation *user : alloc->getUsers())
      if (Operation *inBlock = block.findAncestorOpInBlock(*user))
        start = std::min(start, position[inBlock]);
    Buffer buffer{alloc, dealloc, start, position[dealloc], alignUp(bytes)};
    if (Operation *touch = firstTouch(alloc, block))
      buffer.touch = position[touch];
    buffers.push_back(buffer);
  }
  // One buffer alone gains nothing from an arena of its own (but one
  // the caller's plan places does).
  if (buffers.size() < minBuffers)
    return nullptr;

  int64_t arenaBytes = assignOffsets(buffers);
  if (print)
    function.emitRemark() << "trace-plan-buffers: " << buffers.size()
                          << " buffers in an arena of " << arenaBytes
                          << " bytes; their live peak is " << livePeak(buffers)
                          << " bytes";

  OpBuilder builder(function.getContext());
  builder.setInsertionPointToStart(&block);
  Location loc = function.getLoc();
  auto arenaType = MemRefType::get({arenaBytes}, builder.getI8Type());
  auto arena = memref::AllocOp::create(
      builder, loc, arenaType, builder.getI64IntegerAttr(kArenaAlignment));
  SmallVector<Operation *> atPosition(position.size());
  for (auto [op, i] : position)
    atPosition[i] = op;
  Value dynamic;
  auto pagesCall = [&](StringRef name, OpBuilder &at, int64_t offset,
                       int64_t bytes) {
    func::FuncOp callee =
        pagesFunction(function->getParentOfType<ModuleOp>(), name);
    if (!dynamic) {
      OpBuilder after(arena->getContext());
      after.setInsertionPointAfter(arena);
      dynamic = memref::CastOp::create(
          after, loc, callee.getFunctionType().getInput(0), arena);
    }
    Value offsetValue = arith::ConstantIndexOp::create(at, loc, offset);
    Value bytesValue = arith::ConstantIndexOp::create(at, loc, bytes);
    func::CallOp::create(at, loc, callee,
                         ValueRange{dynamic, offsetValue, bytesValue});
  };
  std::vector<SmallVector<PageLife, 2>> lives;
  if (releasePages || populatePages)
    lives = pageLives(buffers, arenaBytes);
  if (releasePages) {
    // Each batch right after the op that ends its pages' lifetime (the
    // dealloc of their last buffer, about to go), so the resident set
    // shrinks as eager's does.
    SmallVector<Release> releases = planReleases(
        lives, arenaBytes,
        releaseBetween ? kMinReleaseBytes
                       : std::max<int64_t>(256 * 1024, arenaBytes / 16),
        releaseBetween);
    // Pages that die after the last op doing work go with the arena.
    int64_t lastWork = -1;
    for (auto [i, op] : llvm::enumerate(atPosition))
      if (!isa<memref::DeallocOp>(op) && !op->hasTrait<OpTrait::IsTerminator>())
        lastWork = static_cast<int64_t>(i);
    for (const Release &release : releases) {
      if (release.at >= lastWork)
        continue;
      OpBuilder at(function.getContext());
      at.setInsertionPointAfter(atPosition[release.at]);
      pagesCall("trace_rt_release_pages", at, release.offset, release.bytes);
    }
  }
  if (populatePages) {
    // Each run just before the op that first touches it in a lifetime:
    // the same pages become resident at the same op, in one call instead
    // of a fault each.
    for (const Populate &populate :
         planPopulates(lives, arenaBytes, kMinPopulateBytes,
                       /*firstOnly=*/!(releasePages && releaseBetween))) {
      OpBuilder at(atPosition[populate.at]);
      pagesCall("trace_rt_populate_pages", at, populate.offset, populate.bytes);
    }
  }
  for (Buffer &buffer : buffers) {
    builder.setInsertionPoint(buffer.alloc);
    Value offset = arith::ConstantIndexOp::create(
        builder, buffer.alloc.getLoc(), buffer.offset);
    Value view = memref::ViewOp::create(builder, buffer.alloc.getLoc(),
                                        buffer.alloc.getType(), arena, offset,
                                        ValueRange());
    buffer.alloc.getResult().replaceAllUsesWith(view);
    buffer.dealloc.erase();
    buffer.alloc.erase();
  }
  builder.setInsertionPoint(terminator);
  memref::DeallocOp::create(builder, loc, arena);
  return arena;
}

/// The calls of `function` if `module` uses it only in func.call ops in
/// single-block regions; none otherwise.
std::optional<SmallVector<func::CallOp>> onlyCalls(func::FuncOp function,
                                                   ModuleOp module) {
  if (!function.isPrivate())
    return std::nullopt;
  std::optional<SymbolTable::UseRange> uses = function.getSymbolUses(module);
  if (!uses)
    return std::nullopt;
  SmallVector<func::CallOp> calls;
  for (const SymbolTable::SymbolUse &use : *uses) {
    auto call = dyn_cast<func::CallOp>(use.getUser());
    if (!call || !call->getParentRegion()->hasOneBlock())
      return std::nullopt;
    calls.push_back(call);
  }
  return calls;
}

/// Makes `arena`, `function`'s, its last argument, and gives each call a
/// buffer of its own for it, allocated just before the call and freed just
/// after: the caller's plan then places it with its own temporaries.
void liftArena(func::FuncOp function, memref::AllocOp arena,
               ArrayRef<func::CallOp> calls) {
  auto type = cast<MemRefType>(arena.getType());
  unsigned index = function.getNumArguments();
  if (failed(function.insertArgument(index, type, {}, arena.getLoc())))
    return;
  for (Operation *user : llvm::make_early_inc_range(arena->getUsers()))
    if (isa<memref::DeallocOp>(user))
      user->erase();
  arena.getResult().replaceAllUsesWith(function.getArgument(index));
  arena.erase();
  for (func::CallOp call : calls) {
    OpBuilder builder(call);
    Value scratch = memref::AllocOp::create(
        builder, call.getLoc(), type, builder.getI64IntegerAttr(kAlignment));
    SmallVector<Value> operands(call.getOperands());
    operands.push_back(scratch);
    auto replacement =
        func::CallOp::create(builder, call.getLoc(), function, operands);
    replacement->setDiscardableAttrs(call->getDiscardableAttrDictionary());
    call.replaceAllUsesWith(replacement.getResults());
    call.erase();
    builder.setInsertionPointAfter(replacement);
    memref::DeallocOp::create(builder, replacement.getLoc(), scratch);
  }
}

/// Makes each out-parameter of a public function (an argument after its
/// trace.inputs first ones: the caller's fresh buffer), and each
/// allocation left outside the arena (one it returns), resident in one
/// call of the runtime's trace_rt_populate_buffer(address, bytes) just
/// before the op that first uses it.
void populateOutsideArena(func::FuncOp function) {
  if (function.isExternal() || !function.getBody().hasOneBlock())
    return;
  Block &block = function.getBody().front();
  SmallVector<std::pair<Value, int64_t>> buffers;
  if (auto inputs = function->getAttrOfType<IntegerAttr>(
          trace::TraceDialect::kInputsAttrName))
    for (BlockArgument arg : function.getArguments())
      if (arg.getArgNumber() >= inputs.getInt())
        buffers.push_back({arg, contiguousBytes(arg.getType()).value_or(0)});
  for (auto alloc : block.getOps<memref::AllocOp>())
    if (!llvm::any_of(alloc->getUsers(),
                      [](Operation *u) { return isa<memref::ViewOp>(u); }))
      buffers.push_back({alloc, contiguousBytes(alloc.getType()).value_or(0)});
  ModuleOp module = function->getParentOfType<ModuleOp>();
  for (auto [value, bytes] : buffers) {
    // Two pages or more: one call instead of a fault a page.
    if (bytes < kMinPopulateBytes)
      continue;
    Operation *first = firstTouch(value, block);
    if (!first || first->hasTrait<OpTrait::IsTerminator>())
      continue;
    constexpr StringLiteral name = "trace_rt_populate_buffer";
    auto callee = module.lookupSymbol<func::FuncOp>(name);
    OpBuilder builder(first);
    auto index = builder.getIndexType();
    if (!callee) {
      OpBuilder top = OpBuilder::atBlockBegin(module.getBody());
      callee = func::FuncOp::create(top, module.getLoc(), name,
                                    top.getFunctionType({index, index}, {}));
      callee.setPrivate();
    }
    Location loc = first->getLoc();
    Value address =
        memref::ExtractAlignedPointerAsIndexOp::create(builder, loc, value);
    Value size = arith::ConstantIndexOp::create(builder, loc, bytes);
    func::CallOp::create(builder, loc, callee, ValueRange{address, size});
  }
}

struct TracePlanBuffersPass final
    : trace::impl::TracePlanBuffersPassBase<TracePlanBuffersPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    // Callees first (a layer's function, trace-outline-repeats): a callee's
    // arena becomes its caller's temporary, for the length of the call, so
    // one plan covers both and the two peaks do not add up.
    SmallVector<func::FuncOp> order;
    DenseSet<Operation *> visited;
    std::function<void(func::FuncOp)> visit = [&](func::FuncOp function) {
      if (!visited.insert(function).second)
        return;
      function.walk([&](func::CallOp call) {
        if (auto callee = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
                call, call.getCalleeAttr()))
          visit(callee);
      });
      order.push_back(function);
    };
    for (auto function : module.getOps<func::FuncOp>())
      visit(function);
    for (func::FuncOp function : order) {
      std::optional<SmallVector<func::CallOp>> calls =
          onlyCalls(function, module);
      bool lift = calls && !calls->empty();
      memref::AllocOp arena =
          planFunction(function, print, lift ? 1 : 2, releasePages && !lift,
                       releaseBetween, populatePages && !lift);
      if (arena && lift)
        liftArena(function, arena, *calls);
      if (populatePages && !lift && function.isPublic())
        populateOutsideArena(function);
    }
  }
};

} // namespace
