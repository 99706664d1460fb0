//===- TracePruneReleases.cpp - keep the releases that lower the peak -----===//
//
// trace-plan-buffers(release-pages) hands every dead page of an arena back.
// Each page handed back costs a fault when the next step touches it again
// (the heap gives the arena the same addresses): on the 4-layer GPT that
// was 8099 faults a step, a third of its time. Only a release before the
// peak lowers the peak; this pass keeps those and drops the others,
// reading ResidentSimulation's curve of the planned function. See the
// pass description in Passes.td.
//
//===----------------------------------------------------------------------===//

#include "ResidentSimulation.h"

#include "trace/Codegen/Common/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace mlir::trace {
#define GEN_PASS_DEF_TRACEPRUNERELEASESPASS
#include "trace/Codegen/Common/Passes.h.inc"
} // namespace mlir::trace

using namespace mlir;

namespace {

/// Erases `call` and the operands nothing else uses (its constants, the
/// arena's cast once no release is left).
void eraseRelease(func::CallOp call) {
  SmallVector<Value> operands(call.getOperands());
  call.erase();
  for (Value operand : operands)
    if (Operation *def = operand.getDefiningOp())
      if (def->use_empty())
        def->erase();
}

struct TracePruneReleasesPass final
    : trace::impl::TracePruneReleasesPassBase<TracePruneReleasesPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    trace::ResidentSimulator simulator;
    for (auto function : module.getOps<func::FuncOp>()) {
      if (function.isExternal() || !function.isPublic())
        continue;
      const trace::ResidentProfile &p =
          simulator.simulate(function, /*topLevel=*/true);
      // Without a model of the function, every release stays.
      if (!p.modelled || p.releases.empty())
        continue;
      SmallVector<int64_t> curve;
      for (const auto &step : p.steps)
        curve.push_back(step.resident);
      // Latest first: dropping a release keeps its pages resident from
      // there to the arena's free, which the peak must absorb.
      SmallVector<func::CallOp> dropped;
      int64_t keptBytes = 0, allBytes = 0;
      for (const auto &release : llvm::reverse(p.releases)) {
        allBytes += release.bytes;
        size_t end = release.step + 1;
        int64_t most = 0;
        while (end < curve.size() && p.steps[end].arenaLive)
          most = std::max(most, curve[end++]);
        if (most + release.bytes > p.peak) {
          keptBytes += release.bytes;
          continue;
        }
        for (size_t s = release.step + 1; s < end; ++s)
          curve[s] += release.bytes;
        dropped.push_back(release.call);
      }
      if (print)
        function.emitRemark()
            << "trace-prune-releases: kept "
            << p.releases.size() - dropped.size() << " of " << p.releases.size()
            << " page releases (" << keptBytes << " of " << allBytes
            << " bytes); peak " << p.peak << " bytes";
      for (func::CallOp call : dropped)
        eraseRelease(call);
    }
  }
};

} // namespace
