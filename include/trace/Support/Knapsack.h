//===- Knapsack.h - min-cost covering knapsack --------------------*- C++ -*-===//
//
// The budget step of `trace-remat`: among candidate activations, each freeing
// `bytes` of saved memory if it is recomputed instead of saved and costing
// `cost` to recompute (FLOPs, or any non-negative cost model), choose a set
// that frees at least `required` bytes at the least total cost:
//
//   minimize sum_{i in S} cost_i   subject to   sum_{i in S} bytes_i >= required.
//
// This is the covering ("minimization") 0-1 knapsack; it is NP-hard, so the
// exact solvers have stated limits and `solve` falls back to the greedy one.
//
// * solveExact: dynamic programming over bytes, in units of the greatest
//   common divisor of the item sizes below `required`, capped at `required`:
//   O(n * T) time and (n + 64) * (T + 1) bits, T = ceil(required / gcd); used
//   when that table fits `maxTableBits`. Tensor sizes share large powers of
//   two, so T is usually small. Otherwise depth-first branch and bound, items
//   in ratio order, pruned by the fractional (LP) relaxation and started
//   from the greedy solution; it gives up after `maxSearchSteps` steps, or
//   at once for more than 10000 items (its recursion depth).
//   Exact up to a relative 1e-12 of the cost (the tolerance of the pruning
//   test, against rounding in the bound).
// * solveGreedy: O(n log n), within a factor 2 of the optimum (below).
// * solveExhaustive: all 2^n subsets, n <= 20; the reference for tests.
// * solve: exact when it finishes within the limits, greedy otherwise.
//
// The greedy and its bound. Sort the items with bytes > 0 by cost / bytes
// ascending (rho_1 <= rho_2 <= ...). Walk them keeping a partial set P that
// never covers: when bytes(P) + bytes_k >= required, item k is critical and
// P + {k} is a candidate; otherwise k joins P. The answer is the cheapest of
// these candidates and of the single items that cover alone, after dropping
// chosen items (most expensive first) that are not needed to cover.
//
// Claim: its cost is at most 2 * OPT. Let O be an optimal set. Not every item
// of O joins P (P never covers, O does), so let k be the first item of O, in
// sorted order, that is critical. The items of O before k all joined P, so
// P_k (P when k is reached) contains O_<k. The other items of P_k have ratio
// <= rho_k and fewer than required - bytes(O_<k) <= bytes(O_>=k) bytes in
// all, while every item of O_>=k has ratio >= rho_k. Hence
//   cost(P_k) <= cost(O_<k) + rho_k * bytes(O_>=k) <= cost(O_<k) + cost(O_>=k)
//             = OPT,
// and cost_k <= OPT since k is in O, so the candidate P_k + {k} costs at most
// 2 * OPT. The other candidates and the pruning only lower the cost. (Ratios
// are compared as doubles: up to that rounding.) KnapsackTest checks the
// bound against solveExhaustive.
//
//===----------------------------------------------------------------------===//

#ifndef TRACE_SUPPORT_KNAPSACK_H
#define TRACE_SUPPORT_KNAPSACK_H

#include "llvm/ADT/ArrayRef.h"

#include <cstdint>
#include <vector>

namespace mlir::trace::knapsack {

struct Item {
  /// Memory freed if chosen (bytes); items with bytes <= 0 are never chosen.
  int64_t bytes = 0;
  /// Cost of choosing it; finite and >= 0.
  double cost = 0;
};

enum class Status {
  /// The selection is optimal (exact solvers, or nothing had to be freed).
  Optimal,
  /// The selection covers `required`, within the greedy's factor 2.
  Approximate,
  /// The items together free fewer than `required` bytes; no selection.
  Infeasible,
  /// solveExact / solveExhaustive: the instance exceeds the limits; no
  /// selection.
  TooLarge,
};

struct Result {
  Status status = Status::Infeasible;
  /// Indices into the items, ascending.
  std::vector<int> chosen;
  /// Bytes freed by `chosen` (saturating at INT64_MAX) and their total cost.
  int64_t bytes = 0;
  double cost = 0;

  bool hasSelection() const {
    return status == Status::Optimal || status == Status::Approximate;
  }
};

struct Limits {
  /// The dynamic program runs when (n + 64) * (ceil(required / gcd) + 1) is
  /// at most this (2^26 bits: an 8 MiB table, a small part of a compile).
  int64_t maxTableBits = int64_t{1} << 26;
  /// Branch and bound gives up after this many steps (nodes plus the items
  /// scanned by their bounds), so that it stays a small part of a compile.
  int64_t maxSearchSteps = int64_t{1} << 24;
};

Result solveExact(llvm::ArrayRef<Item> items, int64_t required,
                  const Limits &limits = {});
Result solveGreedy(llvm::ArrayRef<Item> items, int64_t required);
/// TooLarge for more than kMaxExhaustiveItems items.
Result solveExhaustive(llvm::ArrayRef<Item> items, int64_t required);
inline constexpr int kMaxExhaustiveItems = 20;
/// solveExact if it finishes within `limits`, else solveGreedy.
Result solve(llvm::ArrayRef<Item> items, int64_t required,
             const Limits &limits = {});

/// "optimal", "approximate", "infeasible", "too large".
const char *statusName(Status status);

} // namespace mlir::trace::knapsack

#endif // TRACE_SUPPORT_KNAPSACK_H
