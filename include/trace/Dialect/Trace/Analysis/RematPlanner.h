//===- RematPlanner.h - what trace-remat saves and recomputes ----*- C++ -*-===//
//
// The decision of trace-remat on an abstract graph, without IR, so that unit
// tests can compare it with brute force on random graphs. The pass builds one
// Node per forward argument and op of @f_grad and applies the Plan with the
// shared forward/backward split (Autodiff.h).
//
// The model. Every forward value is either saved (the forward keeps it for
// the backward: its bytes count), recomputed (the backward runs its op again:
// its FLOPs count), or neither (the backward does not need it). A value the
// backward reads must be saved or recomputed, and a recomputed op's operands
// likewise. Arguments are always available (weights and inputs are alive
// anyway; they cost no activation bytes); operand-free sources (full,
// constant, iota) are always rebuilt, for free.
//
// The plain partition is a minimum s-t cut (AOTAutograd's
// min_cut_rematerialization_partition): each op node v is split into
// v_in -> v_out with the capacity of saving it; data edges u_out -> v_in and
// edges v_out -> sink for values the backward reads are infinite; an edge
// source -> v_in carries the cost of recomputing v (infinite when v may not
// be recomputed). A finite cut with v_in on the source side and v_out on the
// sink side saves v; v_in on the sink side recomputes v. Any finite cut is a
// valid plan (the infinite data edges force a recomputed op's operands to
// be saved or recomputed too), and a minimum cut minimizes exactly
//
//     byteWeight * sum(saveWeight * bytes of saved values)
//         + sum(FLOPs of recomputed ops)
//
// over all valid plans. With the default byteWeight (1024 FLOPs per byte)
// bytes dominate and FLOPs break ties: of two plans saving the same bytes,
// the one recomputing less wins.
//
// The budget. When the plain cut saves more activation bytes than allowed,
// what else to recompute is chosen to add the fewest FLOPs (matmuls and large
// reductions may now be recomputed; must-save and checkpoint constraints
// stay). The problem is NP-hard (a knapsack constraint on a cut), so:
//  (a) a covering knapsack (Knapsack.h) over the values a plan saves:
//      recomputing value s frees its bytes and costs the FLOPs of the chain
//      that recomputes it, down to what the plan saves or recomputes
//      already (chains that share ops are over-counted);
//  (b) the Lagrangian relaxation: cuts with bytes weighted more heavily,
//      bisected (log scale) for the smallest weight whose plan fits; each
//      such cut is exactly optimal for its trade-off, but the budget
//      usually falls between two of them; the cuts that did not fit are
//      finished by (a);
//  (c) a local search from every plan (a) and (b) give: save one more
//      recomputed value, within the slack, or followed by (a) to repair the
//      budget (a swap of one value for several), while the FLOPs drop.
// The plan with the fewest FLOPs wins. RematPlannerTest measures it against
// exhaustive search on random graphs of up to 16 ops: within 10% of the
// optimum on every one of ~18000 budgeted instances (worst 1.09x), at the
// optimum on 99.9%. On big graphs (c) is bounded (evaluations of the whole
// graph are counted; repairs only up to 4096 nodes), so it may stop early.
//
//===----------------------------------------------------------------------===//

#ifndef TRACE_TRANSFORMS_REMATPLANNER_H
#define TRACE_TRANSFORMS_REMATPLANNER_H

#include "llvm/ADT/ArrayRef.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mlir::trace::remat {

struct Node {
  enum class Kind {
    /// An op of the forward: saved, recomputed, or not needed.
    Op,
    /// A function argument: always available, costs no activation bytes.
    Argument,
    /// An operand-free source: rebuilt in the backward, never saved.
    Source,
  };
  Kind kind = Kind::Op;
  /// Bytes of the value (saving it), FLOPs of its op (recomputing it).
  int64_t bytes = 0;
  int64_t flops = 0;
  /// The nodes it reads; each index is smaller than this node's.
  std::vector<int> operands;
  /// A backward op (or a gradient) reads it.
  bool neededByBackward = false;
  /// Hard constraints: never recomputed (must_save, save-names); never
  /// saved (inside a checkpoint region, must_recompute).
  bool mustSave = false;
  bool mustRecompute = false;
  /// Not recomputed by the plain cut (matmuls, large reductions); a budget
  /// may recompute it.
  bool banned = false;
  /// Scales the cost of saving it in the cut (prefer_save 0.5,
  /// prefer_recompute 2).
  double saveWeight = 1.0;
};

/// The cost policy of the cut.
struct CostModel {
  /// Recompute FLOPs worth one byte of saved memory.
  int64_t byteWeight = 1024;
};

struct Plan {
  /// False when the constraints admit no plan (a value that must be saved
  /// and recomputed at once), or, from evaluate(), when the saved set
  /// forces recomputing a must-save value.
  bool valid = false;
  /// Per node: saved for the backward (arguments the backward reads
  /// included), recomputed in the backward (rebuilt sources included).
  std::vector<bool> saved;
  std::vector<bool> recomputed;
  /// Bytes of saved ops (activations) and of saved arguments.
  int64_t activationBytes = 0;
  int64_t argumentBytes = 0;
  int64_t recomputeFlops = 0;
  int numSaved = 0;
  int numRecomputed = 0;
};

/// Completes a choice of values to keep: walking back from what the backward
/// reads, a value in `keep` (or an argument) is saved and anything else is
/// recomputed, transitively. `keep` has one entry per node; entries of
/// values the walk does not reach are ignored.
Plan evaluate(llvm::ArrayRef<Node> nodes, const std::vector<bool> &keep);

/// The minimum cut. `allowBanned` lets banned nodes be recomputed.
Plan minCut(llvm::ArrayRef<Node> nodes, const CostModel &model,
            bool allowBanned = false);

struct BudgetResult {
  Plan plan;
  /// plan.activationBytes <= budget.
  bool met = false;
  /// Which candidate won: "min-cut", "knapsack", "lagrangian", or, when
  /// the budget is not met, "fewest bytes" (the plan saving the least).
  std::string method;
};

/// The plan with the fewest recompute FLOPs found that saves at most
/// `budget` activation bytes, starting from the plain cut `plain`. When no
/// plan fits, the one saving the fewest bytes found (met = false).
BudgetResult fitBudget(llvm::ArrayRef<Node> nodes, const Plan &plain,
                       int64_t budget, const CostModel &model);

} // namespace mlir::trace::remat

#endif // TRACE_TRANSFORMS_REMATPLANNER_H
