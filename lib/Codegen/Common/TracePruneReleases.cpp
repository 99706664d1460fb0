//===- TracePruneReleases.cpp - keep the releases that lower the peak -----===//
//
// trace-plan-buffers(release-pages) hands every dead page of an arena back.
// Each page handed back costs a fault when the next step touches it again
// (the heap gives the arena the same addresses): on the 4-layer GPT that
// was 8099 faults a step, a third of its time. This pass drops, latest
// first, each release without which no later step would rise above the
// function's peak, reading ResidentSimulation's curve of the planned
// function. See the pass description in Passes.td.
//
//===----------------------------------------------------------------------===//

#include "ResidentSimulation.h"

#include "trace/Codegen/Common/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"

#include <limits>

namespace mlir::trace {
#define GEN_PASS_DEF_TRACEPRUNERELEASESPASS
#include "trace/Codegen/Common/Passes.h.inc"
} // namespace mlir::trace

using namespace mlir;

namespace {

/// Erases `call` and what only it used (its constants, the arena's cast
/// once no pages call is left).
void eraseCall(func::CallOp call) {
  llvm::SetVector<Operation *> defs;
  for (Value operand : call.getOperands())
    if (Operation *def = operand.getDefiningOp())
      defs.insert(def);
  call.erase();
  for (Operation *def : defs)
    if (isOpTriviallyDead(def))
      def->erase();
}

/// The public functions some call of the module calls: their own peak is
/// part of their caller's, which this pass does not weigh.
DenseSet<Operation *> calledPublicFunctions(ModuleOp module) {
  DenseSet<Operation *> called;
  module.walk([&](func::CallOp call) {
    if (auto callee = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
            call, call.getCalleeAttr()))
      if (callee.isPublic())
        called.insert(callee);
  });
  return called;
}

struct TracePruneReleasesPass final
    : trace::impl::TracePruneReleasesPassBase<TracePruneReleasesPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    // `again` simulates each function after its releases went (the
    // callees it caches are not changed here).
    trace::ResidentSimulator simulator, again;
    DenseSet<Operation *> called = calledPublicFunctions(module);
    for (auto function : module.getOps<func::FuncOp>()) {
      if (function.isExternal() || !function.isPublic() ||
          called.contains(function))
        continue;
      const trace::ResidentProfile &p =
          simulator.simulate(function, /*topLevel=*/true);
      // Without a model of the function, every release stays.
      if (!p.modelled)
        continue;
      SmallVector<int64_t> curve;
      for (const auto &step : p.steps)
        curve.push_back(step.resident);
      // Latest first: dropping a release keeps its pages resident from
      // there until an op makes them resident again, or to the arena's
      // free, which the peak must absorb.
      SmallVector<func::CallOp> dropped;
      int64_t keptBytes = 0, allBytes = 0;
      for (const auto &release : llvm::reverse(p.releases)) {
        allBytes += release.bytes;
        // The most resident after it while the arena lives, with its pages
        // still there; none (the arena's dealloc follows): the release
        // does nothing.
        size_t end = release.step + 1;
        while (end < curve.size() && p.steps[end].arenaLive)
          ++end;
        // What of its pages would still be resident at each step after
        // it, had it not gone.
        SmallVector<int64_t> held;
        int64_t bytes = release.bytes;
        auto back = release.back.begin();
        for (size_t s = release.step + 1; s < end; ++s) {
          for (; back != release.back.end() && back->first <= s; ++back)
            bytes -= back->second;
          if (bytes == 0)
            break;
          held.push_back(bytes);
        }
        bool lowers = false;
        for (auto [i, bytes] : llvm::enumerate(held))
          lowers |= curve[release.step + 1 + i] + bytes > p.peak;
        if (lowers) {
          keptBytes += release.bytes;
          continue;
        }
        for (auto [i, bytes] : llvm::enumerate(held))
          curve[release.step + 1 + i] += bytes;
        dropped.push_back(release.call);
      }
      size_t releases = p.releases.size();
      int64_t peak = p.peak;
      for (func::CallOp call : dropped)
        eraseCall(call);
      // The populates of pages no release handed back (a later lifetime
      // of a page that stayed) make nothing resident.
      SmallVector<func::CallOp> idle;
      for (const auto &populate :
           again.simulate(function, /*topLevel=*/true).populates)
        if (populate.bytes == 0)
          idle.push_back(populate.call);
      for (func::CallOp call : idle)
        eraseCall(call);
      if (print && (releases || !idle.empty()))
        function.emitRemark()
            << "trace-prune-releases: kept " << releases - dropped.size()
            << " of " << releases << " page releases (" << keptBytes
            << " of " << allBytes << " bytes), dropped " << idle.size()
            << " populates of resident pages; peak " << peak << " bytes";
    }
  }
};

} // namespace
