//===- ResidentSimulation.cpp - what planned buffers make resident --------===//
//
// See ResidentSimulation.h and trace-resident-report's description.
//
//===----------------------------------------------------------------------===//

#include "ResidentSimulation.h"

#include "trace/Dialect/Trace/IR/TraceDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/MapVector.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::trace;

namespace {

int64_t residentBytes(int64_t bytes) {
  return bytes >= kResidentMapped
             ? llvm::divideCeil(bytes, kResidentPage) * kResidentPage
             : bytes;
}

/// Bytes of a statically shaped memref; 0 when dynamic.
int64_t memrefBytes(Type type) {
  auto memref = dyn_cast<MemRefType>(type);
  if (!memref || !memref.hasStaticShape())
    return 0;
  Type element = memref.getElementType();
  // index is 64 bits on the hosts this runs on (the LLVM lowering's).
  int64_t bits = element.isIndex()        ? 64
                 : element.isIntOrFloat() ? element.getIntOrFloatBitWidth()
                                          : 0;
  return memref.getNumElements() * llvm::divideCeil(bits, 8);
}

/// Whether memrefBytes knows `type`'s size (a static shape of integers,
/// floats or indices; zero elements is a known 0).
bool knownSize(Type type) {
  auto memref = dyn_cast<MemRefType>(type);
  return memref && memref.hasStaticShape() &&
         (memref.getElementType().isIntOrFloat() ||
          memref.getElementType().isIndex());
}

std::optional<int64_t> constantIndex(Value value) {
  if (auto c = value.getDefiningOp<arith::ConstantIndexOp>())
    return c.value();
  return std::nullopt;
}

/// One allocation or argument the function makes resident.
struct Resident {
  int64_t bytes = 0;
  bool resident = false;
  bool donated = false, out = false;
};

/// `value`'s root (an allocation, an argument, a call's result) through
/// views; for a view of an arena, the byte range it covers.
Value root(Value value, std::optional<std::pair<int64_t, int64_t>> &range) {
  range.reset();
  while (Operation *def = value.getDefiningOp()) {
    if (auto view = dyn_cast<memref::ViewOp>(def)) {
      std::optional<int64_t> shift = constantIndex(view.getByteShift());
      int64_t bytes = memrefBytes(view.getType());
      if (shift && bytes && !range)
        range = std::make_pair(*shift, *shift + bytes);
      value = view.getSource();
      continue;
    }
    auto viewLike = dyn_cast<ViewLikeOpInterface>(def);
    if (!viewLike)
      break;
    value = viewLike.getViewSource();
  }
  return value;
}

/// The lifetimes of the buffers cut from `arena` (trace-plan-buffers'
/// `memref.view`s at constant offsets), as page ranges of the arena that
/// become live before the op at a position of `body` and die after the
/// op at a position: a buffer is live from the first op that touches it
/// (its bytes are written before they are read) to the last that uses
/// it, through views, casts and any other op free of memory effects that
/// yields a memref. None where a view's offset is not a constant.
struct ArenaLifetimes {
  /// Position -> page ranges [first, last) that start or end there.
  std::map<size_t, SmallVector<std::pair<int64_t, int64_t>>> starts, ends;
};

std::optional<ArenaLifetimes>
arenaLifetimes(Block &body, Value arena, int64_t pages,
               const DenseMap<Operation *, size_t> &position) {
  ArenaLifetimes lifetimes;
  for (Operation *user : arena.getUsers()) {
    auto view = dyn_cast<memref::ViewOp>(user);
    if (!view)
      continue;
    std::optional<int64_t> shift = constantIndex(view.getByteShift());
    if (!shift)
      return std::nullopt;
    // A zero-size view (one byte in the plan) is touched as the whole
    // arena (`root` finds no range for it).
    int64_t bytes = memrefBytes(view.getType());
    if (!bytes)
      return std::nullopt;
    std::optional<size_t> first, last;
    SmallVector<Value> worklist{view.getResult()};
    while (!worklist.empty()) {
      Value current = worklist.pop_back_val();
      for (Operation *use : current.getUsers()) {
        // Yielded from a region or carried into one: an alias this walk
        // does not follow.
        if (use->hasTrait<OpTrait::IsTerminator>() ||
            isa<RegionBranchOpInterface>(use))
          return std::nullopt;
        // A view, a cast, the metadata of a descriptor: the same bytes;
        // so is its address as an integer.
        if (isa<memref::ExtractAlignedPointerAsIndexOp>(use))
          llvm::append_range(worklist, use->getResults());
        else if (isMemoryEffectFree(use))
          for (Value result : use->getResults())
            if (isa<BaseMemRefType>(result.getType()))
              worklist.push_back(result);
        Operation *inBody = body.findAncestorOpInBlock(*use);
        if (!inBody)
          continue;
        size_t at = position.at(inBody);
        last = std::max(last.value_or(0), at);
        if (!isMemoryEffectFree(inBody))
          first = std::min(first.value_or(at), at);
      }
    }
    if (!first)
      continue;
    std::pair<int64_t, int64_t> range{
        std::clamp<int64_t>(*shift / kResidentPage, 0, pages),
        std::clamp<int64_t>((*shift + bytes - 1) / kResidentPage + 1, 0,
                            pages)};
    lifetimes.starts[*first].push_back(range);
    lifetimes.ends[*last].push_back(range);
  }
  return lifetimes;
}

} // namespace

const ResidentProfile &ResidentSimulator::simulate(func::FuncOp function,
                                                   bool topLevel) {
  std::pair<Operation *, bool> key{function, topLevel};
  auto it = profiles.find(key);
  if (it != profiles.end())
    return it->second;
  // A recursive call is not modelled (a step's functions have none).
  if (!running.insert(function).second) {
    ResidentProfile recursive;
    recursive.name = function.getSymName().str();
    recursive.modelled = false;
    recursive.why = "a recursive call";
    return profiles.try_emplace(key, std::move(recursive)).first->second;
  }
  ResidentProfile profile = run(function, topLevel);
  running.erase(function);
  return profiles.try_emplace(key, std::move(profile)).first->second;
}

ResidentProfile ResidentSimulator::run(func::FuncOp function, bool topLevel) {
  ResidentProfile p;
  p.name = function.getSymName().str();
  if (!function.getBody().hasOneBlock()) {
    p.modelled = false;
    p.why = "more than one block";
    return p;
  }
  Block &body = function.getBody().front();
  llvm::MapVector<Value, Resident> buffers;
  Value arena;
  llvm::BitVector arenaPages;
  // Which release handed each arena page back, while it stays out.
  SmallVector<int> releasedBy;
  int64_t current = 0;

  // Whether the arena is still allocated, and the most resident while
  // the current op runs (a callee's peak on top).
  bool arenaLive = false;
  int64_t during = 0, duringLive = 0;
  // `live`: all of `current` counts towards the live bytes (not a
  // callee's peak, whose own idle pages are not live).
  auto note = [&](Operation *op, bool live = true) {
    during = std::max(during, current);
    if (live)
      duringLive = std::max(duringLive, current);
    if (current > p.peak) {
      p.peak = current;
      p.peakAt = op;
      p.freedDonatedBeforePeak = p.freedDonatedBytes;
    }
  };
  if (topLevel) {
    // Donated arguments are the ones it frees (trace-free-donated).
    DenseSet<Value> freed;
    for (auto dealloc : body.getOps<memref::DeallocOp>())
      if (isa<BlockArgument>(dealloc.getMemref()))
        freed.insert(dealloc.getMemref());
    auto inputs = function->getAttrOfType<IntegerAttr>(
        trace::TraceDialect::kInputsAttrName);
    for (BlockArgument arg : function.getArguments()) {
      int64_t bytes = memrefBytes(arg.getType());
      if (!bytes)
        continue;
      Resident buffer;
      buffer.bytes = residentBytes(bytes);
      if (freed.contains(arg)) {
        // Resident already: @f_fwd wrote it.
        buffer.donated = buffer.resident = true;
        p.donatedBytes += buffer.bytes;
      } else if (inputs && arg.getArgNumber() >= inputs.getInt()) {
        // An out-parameter: the caller's fresh buffer, resident as it is
        // written.
        buffer.out = true;
        p.outBytes += buffer.bytes;
      } else {
        continue; // An input, resident before the call.
      }
      buffers[arg] = buffer;
    }
  }
  // The arena trace-plan-buffers made: memref<N x i8> that views cut.
  for (auto alloc : body.getOps<memref::AllocOp>()) {
    MemRefType type = alloc.getType();
    if (type.getRank() == 1 && type.getElementType().isInteger(8) &&
        type.hasStaticShape() &&
        llvm::any_of(alloc->getUsers(),
                     [](Operation *u) { return isa<memref::ViewOp>(u); })) {
      arena = alloc;
      arenaLive = true;
      p.arenaBytes = type.getNumElements();
      arenaPages.resize(llvm::divideCeil(p.arenaBytes, kResidentPage));
      releasedBy.assign(arenaPages.size(), -1);
      break;
    }
  }
  auto arenaResident = [&] {
    return static_cast<int64_t>(arenaPages.count()) * kResidentPage;
  };
  // The pages bytes [begin, end) of the arena touch; a range past the
  // arena (hand-written IR) is clipped to it.
  auto touchArena = [&](int64_t begin, int64_t end) {
    if (begin >= end)
      return;
    int64_t before = arenaResident();
    int64_t pages = arenaPages.size();
    int64_t first = std::clamp<int64_t>(begin / kResidentPage, 0, pages),
            last = std::clamp<int64_t>((end - 1) / kResidentPage + 1, 0, pages);
    for (int64_t page = first; page < last; ++page) {
      int &by = releasedBy[page];
      if (by < 0 || arenaPages[page])
        continue;
      auto &back = p.releases[by].back;
      if (back.empty() || back.back().first != p.steps.size())
        back.push_back({p.steps.size(), 0});
      back.back().second += kResidentPage;
      by = -1;
    }
    arenaPages.set(first, last);
    current += arenaResident() - before;
    p.arenaPeak = std::max(p.arenaPeak, arenaResident());
  };
  auto touch = [&](Value value) {
    std::optional<std::pair<int64_t, int64_t>> range;
    Value base = root(value, range);
    if (base == arena) {
      if (range)
        touchArena(range->first, range->second);
      else
        touchArena(0, p.arenaBytes);
      return;
    }
    auto it = buffers.find(base);
    if (it == buffers.end() || it->second.resident)
      return;
    it->second.resident = true;
    current += it->second.bytes;
  };
  auto free = [&](Value value) {
    std::optional<std::pair<int64_t, int64_t>> range;
    Value base = root(value, range);
    if (base == arena) {
      current -= arenaResident();
      arenaPages.reset();
      arenaLive = false;
      return;
    }
    auto it = buffers.find(base);
    if (it == buffers.end())
      return;
    if (it->second.resident) {
      current -= it->second.bytes;
      if (it->second.donated)
        p.freedDonatedBytes += it->second.bytes;
    }
    buffers.erase(it);
  };

  auto notModelled = [&](StringRef why, Operation *at) {
    if (!p.modelled)
      return;
    p.modelled = false;
    std::string text;
    llvm::raw_string_ostream os(text);
    os << why << " (" << at->getName() << " at ";
    at->getLoc().print(os);
    os << ")";
    p.why = text;
  };
  auto step = [&](Operation &op) {
    if (auto alloc = dyn_cast<memref::AllocOp>(op)) {
      if (alloc.getResult() == arena)
        return;
      if (!knownSize(alloc.getType()))
        notModelled("an allocation of unknown size", &op);
      else if (int64_t bytes = memrefBytes(alloc.getType()))
        buffers[alloc] = Resident{residentBytes(bytes)};
      return;
    }
    if (auto dealloc = dyn_cast<memref::DeallocOp>(op)) {
      free(dealloc.getMemref());
      return;
    }
    if (auto call = dyn_cast<func::CallOp>(op)) {
      if (call.getCallee() == "trace_rt_populate_pages" && arena &&
          call.getNumOperands() == 3) {
        std::optional<int64_t> offset = constantIndex(call.getOperand(1));
        std::optional<int64_t> bytes = constantIndex(call.getOperand(2));
        if (offset && bytes) {
          // Every page the range touches, as the runtime does.
          int64_t before = arenaResident();
          touchArena(std::max<int64_t>(*offset, 0), *offset + *bytes);
          p.populates.push_back({call, arenaResident() - before});
          note(&op);
          return;
        }
      }
      if (call.getCallee() == "trace_rt_populate_buffer" &&
          call.getNumOperands() == 2)
        if (auto pointer =
                call.getOperand(0)
                    .getDefiningOp<memref::ExtractAlignedPointerAsIndexOp>()) {
          touch(pointer.getSource());
          note(&op);
          return;
        }
      if (call.getCallee() == "trace_rt_release_pages" && arena &&
          call.getNumOperands() == 3) {
        std::optional<int64_t> offset = constantIndex(call.getOperand(1));
        std::optional<int64_t> bytes = constantIndex(call.getOperand(2));
        if (offset && bytes) {
          // Whole pages inside the range and the arena only, as the
          // runtime does.
          int64_t first =
              llvm::divideCeil(std::max<int64_t>(*offset, 0), kResidentPage);
          int64_t last =
              std::min(*offset + *bytes, p.arenaBytes) / kResidentPage;
          int64_t before = arenaResident();
          for (int64_t page = first; page < last; ++page)
            if (arenaPages[page])
              releasedBy[page] = p.releases.size();
          if (last > first)
            arenaPages.reset(first, last);
          current -= before - arenaResident();
          p.releasedBytes += before - arenaResident();
          p.releases.push_back(
              {call, p.steps.size(), before - arenaResident(), {}});
        }
        return;
      }
      for (Value operand : call.getOperands())
        if (isa<MemRefType>(operand.getType()))
          touch(operand);
      note(&op);
      auto callee = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
          call, call.getCalleeAttr());
      if (callee && !callee.isExternal()) {
        // A layer's function: its own allocations, on top of ours, for
        // the length of the call.
        const ResidentProfile &inner = simulate(callee, /*topLevel=*/false);
        if (!inner.modelled) {
          p.modelled = false;
          p.why = "@" + inner.name + ": " + inner.why;
        }
        duringLive = std::max(duringLive, current + inner.livePeak);
        current += inner.peak;
        note(&op, /*live=*/false);
        current -= inner.peak;
      }
      for (Value result : call.getResults())
        if (int64_t bytes = memrefBytes(result.getType())) {
          buffers[result] = Resident{residentBytes(bytes), /*resident=*/true};
          current += buffers[result].bytes;
        }
      note(&op);
      return;
    }
    if (auto ret = dyn_cast<func::ReturnOp>(op)) {
      for (Value operand : ret.getOperands()) {
        std::optional<std::pair<int64_t, int64_t>> range;
        auto it = buffers.find(root(operand, range));
        if (it != buffers.end() && !it->second.out && !it->second.donated) {
          touch(operand);
          p.returnedBytes += it->second.bytes;
        }
      }
      note(&op);
      return;
    }
    // Creating a view, reading a shape: no byte is touched.
    if (isa<ViewLikeOpInterface>(op) || isMemoryEffectFree(&op))
      return;
    // Any other op touches every buffer it or its regions use.
    op.walk([&](Operation *nested) {
      // An allocation in a loop's body comes and goes with each trip,
      // which one step of this simulation does not follow.
      if (isa<memref::AllocOp>(nested))
        notModelled("an allocation inside a region", nested);
      for (Value operand : nested->getOperands())
        if (isa<MemRefType>(operand.getType()))
          touch(operand);
    });
    note(&op);
  };
  // The live bytes: what is resident less the arena's resident pages
  // that hold no live buffer (kept for a later buffer, or not yet handed
  // back). Every other resident byte is live: a donated value until its
  // free at its last read, an out-parameter from its write on, an
  // allocation of the library's own until its free.
  DenseMap<Operation *, size_t> position;
  for (Operation &op : body)
    position[&op] = position.size();
  std::optional<ArenaLifetimes> lifetimes;
  if (arena)
    lifetimes = arenaLifetimes(body, arena, arenaPages.size(), position);
  SmallVector<int> liveCount(arenaPages.size());
  llvm::BitVector livePages(arenaPages.size()), idle;
  auto mark = [&](auto found, auto &byPosition, int delta) {
    if (found == byPosition.end())
      return;
    for (auto [first, last] : found->second)
      for (int64_t page = first; page < last; ++page) {
        liveCount[page] += delta;
        livePages[page] = liveCount[page] > 0;
      }
  };
  for (Operation &op : body) {
    size_t at = p.steps.size();
    if (lifetimes)
      mark(lifetimes->starts.find(at), lifetimes->starts, +1);
    // The arena's idle pages as the op starts: those it makes resident
    // are its own buffers'.
    int64_t idleBytes = 0;
    if (lifetimes) {
      idle = arenaPages;
      idle.reset(livePages);
      idleBytes = static_cast<int64_t>(idle.count()) * kResidentPage;
    }
    during = duringLive = current;
    step(op);
    p.steps.push_back({&op, std::max(during, current), arenaLive});
    p.livePeak =
        std::max(p.livePeak, std::max(duringLive, current) - idleBytes);
    if (lifetimes)
      mark(lifetimes->ends.find(at), lifetimes->ends, -1);
  }
  // Without the buffers' lifetimes, every resident page counts as live.
  if (arena && !lifetimes)
    p.livePeak = std::max(p.livePeak, p.peak);
  // What stays resident after the return: the arena and every
  // temporary are freed by then; out-parameters and returned buffers
  // are the caller's.
  for (auto &[value, buffer] : buffers)
    if (buffer.resident && !buffer.donated)
      p.held += buffer.bytes;
  return p;
}
