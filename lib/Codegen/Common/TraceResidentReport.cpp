//===- TraceResidentReport.cpp - the planned step's resident bytes --------===//
//
// A simulation of what a function's buffers make resident, op by op, read
// off the planned memref IR (after trace-plan-buffers): the arena's pages,
// the library's own allocations, the caller's out-parameters as they are
// written, the donated arguments as they are freed, the pages handed back.
// See the pass description in Passes.td.
//
//===----------------------------------------------------------------------===//

#include "trace/Codegen/Common/Passes.h"
#include "trace/Dialect/Trace/IR/TraceDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/ScopeExit.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/ToolOutputFile.h"

#include <algorithm>
#include <map>

#define DEBUG_TYPE "trace-resident-report"

namespace mlir::trace {
#define GEN_PASS_DEF_TRACERESIDENTREPORTPASS
#include "trace/Codegen/Common/Passes.h.inc"
} // namespace mlir::trace

using namespace mlir;

namespace {

constexpr int64_t kPage = 4096;
/// glibc maps a block of this size or more on its own (the bench's
/// MALLOC_MMAP_THRESHOLD_): whole pages, resident once touched, returned
/// on free. Smaller buffers come from the heap, counted by their bytes.
constexpr int64_t kMapped = 65536;

int64_t residentBytes(int64_t bytes) {
  return bytes >= kMapped ? llvm::divideCeil(bytes, kPage) * kPage : bytes;
}

/// Bytes of a statically shaped memref; 0 when dynamic.
int64_t memrefBytes(Type type) {
  auto memref = dyn_cast<MemRefType>(type);
  if (!memref || !memref.hasStaticShape() ||
      !memref.getElementType().isIntOrFloat())
    return 0;
  return memref.getNumElements() *
         llvm::divideCeil(memref.getElementType().getIntOrFloatBitWidth(), 8);
}

std::optional<int64_t> constantIndex(Value value) {
  if (auto c = value.getDefiningOp<arith::ConstantIndexOp>())
    return c.value();
  return std::nullopt;
}

/// What one function makes resident, relative to its entry.
struct Profile {
  std::string name;
  int64_t peak = 0;
  /// The op at which the peak is reached (null: at the entry).
  Operation *peakAt = nullptr;
  /// Resident at the return and not freed: written out-parameters and the
  /// allocations it returns (the saved values of @f_fwd).
  int64_t held = 0;
  /// The caller's out-parameters, and the allocations returned.
  int64_t outBytes = 0, returnedBytes = 0;
  /// Donated arguments (resident at entry) and what of them was freed.
  int64_t donatedBytes = 0, freedDonatedBytes = 0;
  int64_t arenaBytes = 0, arenaPeak = 0, releasedBytes = 0;
  bool modelled = true;
  std::string why;
};

class Simulator {
public:
  /// `topLevel`: a function the caller calls (its arguments are inputs,
  /// out-parameters or donated); otherwise a callee whose arguments are
  /// all its caller's, counted there.
  const Profile &simulate(func::FuncOp function, bool topLevel) {
    std::pair<Operation *, bool> key{function, topLevel};
    auto it = profiles.find(key);
    if (it != profiles.end())
      return it->second;
    // A recursive call is not modelled (a step's functions have none).
    if (!running.insert(function).second) {
      Profile recursive;
      recursive.name = function.getSymName().str();
      recursive.modelled = false;
      recursive.why = "a recursive call";
      return profiles.try_emplace(key, std::move(recursive)).first->second;
    }
    Profile profile = run(function, topLevel);
    running.erase(function);
    return profiles.try_emplace(key, std::move(profile)).first->second;
  }

private:
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

  Profile run(func::FuncOp function, bool topLevel) {
    Profile p;
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
    int64_t current = 0;

    auto note = [&](Operation *op) {
      if (current > p.peak) {
        p.peak = current;
        p.peakAt = op;
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
        p.arenaBytes = type.getNumElements();
        arenaPages.resize(llvm::divideCeil(p.arenaBytes, kPage));
        break;
      }
    }
    auto arenaResident = [&] {
      return static_cast<int64_t>(arenaPages.count()) * kPage;
    };
    auto touch = [&](Value value) {
      std::optional<std::pair<int64_t, int64_t>> range;
      Value base = root(value, range);
      if (base == arena) {
        int64_t before = arenaResident();
        // A range past the arena (hand-written IR) is clipped to it.
        int64_t pages = arenaPages.size();
        if (range && range->first < range->second)
          arenaPages.set(std::clamp<int64_t>(range->first / kPage, 0, pages),
                         std::clamp<int64_t>((range->second - 1) / kPage + 1,
                                             0, pages));
        else
          arenaPages.set();
        current += arenaResident() - before;
        p.arenaPeak = std::max(p.arenaPeak, arenaResident());
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

    for (Operation &op : body) {
      if (auto alloc = dyn_cast<memref::AllocOp>(op)) {
        if (alloc.getResult() != arena)
          if (int64_t bytes = memrefBytes(alloc.getType()))
            buffers[alloc] = Resident{residentBytes(bytes)};
        continue;
      }
      if (auto dealloc = dyn_cast<memref::DeallocOp>(op)) {
        free(dealloc.getMemref());
        continue;
      }
      if (auto call = dyn_cast<func::CallOp>(op)) {
        if (call.getCallee() == "trace_rt_release_pages" && arena &&
            call.getNumOperands() == 3) {
          std::optional<int64_t> offset = constantIndex(call.getOperand(1));
          std::optional<int64_t> bytes = constantIndex(call.getOperand(2));
          if (offset && bytes) {
            // Whole pages inside the range and the arena only, as the
            // runtime does.
            int64_t first = llvm::divideCeil(std::max<int64_t>(*offset, 0),
                                             kPage);
            int64_t last =
                std::min(*offset + *bytes, p.arenaBytes) / kPage;
            int64_t before = arenaResident();
            if (last > first)
              arenaPages.reset(first, last);
            current -= before - arenaResident();
            p.releasedBytes += before - arenaResident();
          }
          continue;
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
          const Profile &inner = simulate(callee, /*topLevel=*/false);
          if (!inner.modelled) {
            p.modelled = false;
            p.why = "@" + inner.name + ": " + inner.why;
          }
          current += inner.peak;
          note(&op);
          current -= inner.peak;
        }
        for (Value result : call.getResults())
          if (int64_t bytes = memrefBytes(result.getType())) {
            buffers[result] = Resident{residentBytes(bytes), /*resident=*/true};
            current += buffers[result].bytes;
          }
        note(&op);
        continue;
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
        continue;
      }
      // Creating a view, reading a shape: no byte is touched.
      if (isa<ViewLikeOpInterface>(op) || isMemoryEffectFree(&op))
        continue;
      // Any other op touches every buffer it or its regions use.
      op.walk([&](Operation *nested) {
        for (Value operand : nested->getOperands())
          if (isa<MemRefType>(operand.getType()))
            touch(operand);
      });
      note(&op);
    }
    // What stays resident after the return: the arena and every
    // temporary are freed by then; out-parameters and returned buffers
    // are the caller's.
    for (auto &[value, buffer] : buffers)
      if (buffer.resident && !buffer.donated)
        p.held += buffer.bytes;
    return p;
  }

  /// By function and whether it is top-level (std::map: references stay).
  std::map<std::pair<Operation *, bool>, Profile> profiles;
  DenseSet<Operation *> running;
};

std::string locationString(Operation *op) {
  if (!op)
    return "entry";
  std::string text;
  llvm::raw_string_ostream os(text);
  os << op->getName() << " at ";
  op->getLoc().print(os);
  return text;
}

struct TraceResidentReportPass final
    : trace::impl::TraceResidentReportPassBase<TraceResidentReportPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    // trace.inputs has done its work here: it must not reach LLVM.
    llvm::scope_exit strip([&] {
      for (auto function : module.getOps<func::FuncOp>())
        function->removeAttr(trace::TraceDialect::kInputsAttrName);
    });
    if (!print && output.empty())
      return;
    Simulator simulator;
    llvm::json::Array functions;
    for (auto function : module.getOps<func::FuncOp>()) {
      if (function.isExternal() || !function.isPublic())
        continue;
      const Profile &p = simulator.simulate(function, /*topLevel=*/true);
      if (print) {
        InFlightDiagnostic remark = function.emitRemark();
        remark << "trace-resident-report: peak " << p.peak
               << " bytes above the entry, holds " << p.held
               << " at the return; arena " << p.arenaBytes << " ("
               << p.arenaPeak << " resident at most, " << p.releasedBytes
               << " released), donated " << p.donatedBytes << " ("
               << p.freedDonatedBytes << " freed)";
        if (!p.modelled)
          remark << "; not modelled: " << p.why;
      }
      functions.push_back(llvm::json::Object{
          {"name", p.name},
          {"modelled", p.modelled},
          {"peak_bytes", p.peak},
          {"peak_at", locationString(p.peakAt)},
          {"held_bytes", p.held},
          {"out_bytes", p.outBytes},
          {"returned_bytes", p.returnedBytes},
          {"donated_bytes", p.donatedBytes},
          {"freed_donated_bytes", p.freedDonatedBytes},
          {"arena_bytes", p.arenaBytes},
          {"arena_resident_peak_bytes", p.arenaPeak},
          {"released_bytes", p.releasedBytes}});
    }
    if (output.empty())
      return;
    std::string message;
    auto file = openOutputFile(output, &message);
    if (!file) {
      module.emitError() << "trace-resident-report: cannot write '" << output
                         << "': " << message;
      return signalPassFailure();
    }
    file->os() << llvm::formatv(
        "{0:2}\n", llvm::json::Value(llvm::json::Object{
                       {"page_bytes", kPage},
                       {"mapped_from_bytes", kMapped},
                       {"functions", std::move(functions)}}));
    if (file->os().has_error()) {
      module.emitError() << "trace-resident-report: cannot write '" << output
                         << "': " << file->os().error().message();
      file->os().clear_error();
      return signalPassFailure();
    }
    file->keep();
  }
};

} // namespace
