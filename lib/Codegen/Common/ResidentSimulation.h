//===- ResidentSimulation.h - what planned buffers make resident -*- C++
//-*-===//
//
// A simulation of what a function's buffers make resident, op by op, read
// off the planned memref IR (after trace-plan-buffers): the arena's pages,
// the library's own allocations, the caller's out-parameters as they are
// written, the donated arguments as they are freed, the pages handed back.
// trace-resident-report prints it; trace-prune-releases keeps the releases
// it shows lower the peak. The rules are in trace-resident-report's
// description (Passes.td).
//
//===----------------------------------------------------------------------===//

#ifndef TRACE_CODEGEN_COMMON_RESIDENTSIMULATION_H
#define TRACE_CODEGEN_COMMON_RESIDENTSIMULATION_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallVector.h"

#include <map>
#include <string>

namespace mlir::trace {

/// The page the simulation counts in; the runtime rounds to the real one.
constexpr int64_t kResidentPage = 4096;
/// glibc maps a block of this size or more on its own (the bench's
/// MALLOC_MMAP_THRESHOLD_): whole pages, resident once touched, returned
/// on free. Smaller buffers come from the heap, counted by their bytes.
constexpr int64_t kResidentMapped = 65536;

/// What one function makes resident, relative to its entry.
struct ResidentProfile {
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
  /// What of them was freed before the peak. Where this is 0, every
  /// donated value is still to be read when the peak comes, so no plan
  /// that gives their bytes to the temporaries lowers the peak.
  int64_t freedDonatedBeforePeak = 0;
  /// The most bytes live at once: over the ops, what is resident less
  /// the arena's resident pages that hold no live buffer (one is live
  /// from the first op that touches it to its last use), a callee's live
  /// peak on top during its call. The peak if each arena page were
  /// resident only while a buffer on it is live: no placement with these
  /// buffers' page footprints, in this op order, does better, one that
  /// gives the donated values' bytes to the temporaries included (a
  /// donated value is live until its free, at its last read).
  int64_t livePeak = 0;
  int64_t arenaBytes = 0, arenaPeak = 0, releasedBytes = 0;
  bool modelled = true;
  std::string why;

  /// Each op of the body in order: the most it made resident while it ran
  /// (a call: with its callee's peak on top), and whether the arena was
  /// still allocated after it.
  struct Step {
    Operation *op;
    int64_t resident;
    bool arenaLive;
  };
  SmallVector<Step> steps;
  /// Each trace_rt_release_pages call: its step, the bytes it handed
  /// back (resident pages only), and the steps at which an op makes its
  /// pages resident again, with their bytes (ascending; pages that stay
  /// out go with the arena).
  struct Release {
    func::CallOp call;
    size_t step;
    int64_t bytes;
    SmallVector<std::pair<size_t, int64_t>> back;
  };
  SmallVector<Release> releases;
  /// Each trace_rt_populate_pages call and the bytes it made resident.
  struct Populate {
    func::CallOp call;
    int64_t bytes;
  };
  SmallVector<Populate> populates;
};

class ResidentSimulator {
public:
  /// `topLevel`: a function the caller calls (its arguments are inputs,
  /// out-parameters or donated); otherwise a callee whose arguments are
  /// all its caller's, counted there. Profiles are cached: simulate again
  /// with a fresh simulator after changing the IR.
  const ResidentProfile &simulate(func::FuncOp function, bool topLevel);

private:
  ResidentProfile run(func::FuncOp function, bool topLevel);

  /// By function and whether it is top-level (std::map: references stay).
  std::map<std::pair<Operation *, bool>, ResidentProfile> profiles;
  DenseSet<Operation *> running;
};

} // namespace mlir::trace

#endif // TRACE_CODEGEN_COMMON_RESIDENTSIMULATION_H
