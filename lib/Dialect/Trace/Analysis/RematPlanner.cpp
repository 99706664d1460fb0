//===- RematPlanner.cpp - what trace-remat saves and recomputes -----------===//
//
// The model, the cut and the budget step are described in RematPlanner.h.
//
//===----------------------------------------------------------------------===//

#include "trace/Dialect/Trace/Analysis/RematPlanner.h"

#include "trace/Support/Knapsack.h"
#include "trace/Support/MaxFlow.h"

#include <algorithm>
#include <cmath>

using namespace mlir::trace;
using namespace mlir::trace::remat;

Plan remat::evaluate(llvm::ArrayRef<Node> nodes, const std::vector<bool> &keep) {
  size_t n = nodes.size();
  Plan plan;
  plan.valid = true;
  plan.saved.assign(n, false);
  plan.recomputed.assign(n, false);
  std::vector<bool> reached(n, false);
  for (size_t i = 0; i < n; ++i)
    reached[i] = nodes[i].neededByBackward;
  // Operands precede their users: one sweep from the last node back.
  for (size_t i = n; i-- > 0;) {
    if (!reached[i])
      continue;
    const Node &node = nodes[i];
    if (node.kind == Node::Kind::Argument) {
      plan.saved[i] = true;
      plan.argumentBytes += node.bytes;
      ++plan.numSaved;
      continue;
    }
    if (node.kind == Node::Kind::Op && keep[i] && !node.mustRecompute) {
      plan.saved[i] = true;
      plan.activationBytes += node.bytes;
      ++plan.numSaved;
      continue;
    }
    if (node.mustSave)
      plan.valid = false;
    plan.recomputed[i] = true;
    plan.recomputeFlops += node.flops;
    ++plan.numRecomputed;
    for (int operand : node.operands)
      reached[operand] = true;
  }
  return plan;
}

namespace {

/// The cut with the cost of saving a byte set to `weight` FLOPs. All finite
/// capacities are scaled down together when their sum would come near
/// kInfinite (huge weights on big graphs), so that no sum saturates; the
/// ratios stay, only the rounding of small costs changes.
Plan cutWithWeight(llvm::ArrayRef<Node> nodes, double weight, bool allowBanned,
                   bool useSaveWeights) {
  int n = static_cast<int>(nodes.size());
  constexpr double kInf = -1; // marks an infinite capacity below
  struct Edge {
    int from, to;
    double capacity;
  };
  std::vector<Edge> edges;
  const int source = 0, sink = 1;
  auto in = [](int i) { return 2 + 2 * i; };
  auto out = [](int i) { return 3 + 2 * i; };
  double total = 0;
  for (int i = 0; i < n; ++i) {
    const Node &node = nodes[i];
    if (node.kind != Node::Kind::Op)
      continue; // Only out(i) is used: never reached from the source.
    double save = double(node.bytes) * weight;
    if (useSaveWeights)
      save *= node.saveWeight;
    edges.push_back({in(i), out(i), node.mustRecompute ? kInf : save});
    bool noRecompute =
        node.mustSave || (node.banned && !allowBanned && !node.mustRecompute);
    if (noRecompute || node.flops > 0)
      edges.push_back({source, in(i), noRecompute ? kInf : double(node.flops)});
    for (int operand : node.operands)
      edges.push_back({out(operand), in(i), kInf});
    if (node.neededByBackward)
      edges.push_back({out(i), sink, kInf});
  }
  for (int i = 0; i < n; ++i)
    if (nodes[i].kind != Node::Kind::Op && nodes[i].neededByBackward)
      edges.push_back({out(i), sink, kInf});
  for (const Edge &edge : edges)
    if (edge.capacity != kInf)
      total += edge.capacity;
  double scale = std::min(1.0, std::ldexp(1.0, 61) / std::max(total, 1.0));
  FlowGraph graph(2 + 2 * n);
  for (const Edge &edge : edges)
    graph.addEdge(edge.from, edge.to,
                  edge.capacity == kInf
                      ? FlowGraph::kInfinite
                      : static_cast<int64_t>(std::llround(edge.capacity * scale)));
  if (graph.maxFlow(source, sink) >= FlowGraph::kInfinite)
    return Plan(); // invalid: some value must be saved and recomputed
  std::vector<bool> side = graph.sourceSide();
  std::vector<bool> keep(n, false);
  for (int i = 0; i < n; ++i)
    keep[i] = nodes[i].kind == Node::Kind::Op && side[in(i)] && !side[out(i)];
  return evaluate(nodes, keep);
}

/// Step (a) of the budget: from `start`, recompute more of what it saves,
/// freeing at least start.activationBytes - budget bytes at the least sum
/// of chain FLOPs. The chain of a value s is its op and, transitively, the
/// producers `start` neither saves nor recomputes; a must-save producer on
/// the way is saved instead (its bytes are subtracted from what s frees).
/// Returns an invalid plan when the candidates cannot free enough.
Plan knapsackFrom(llvm::ArrayRef<Node> nodes, const Plan &start,
                  int64_t budget) {
  size_t n = nodes.size();
  auto available = [&](int i) {
    return nodes[i].kind != Node::Kind::Op || start.saved[i] ||
           start.recomputed[i];
  };
  std::vector<int> candidates;
  std::vector<knapsack::Item> items;
  std::vector<int> stamp(n, -1), stack;
  for (size_t s = 0; s < n; ++s) {
    if (!start.saved[s] || nodes[s].kind != Node::Kind::Op || nodes[s].mustSave)
      continue;
    int64_t flops = 0, bytes = nodes[s].bytes;
    stack.assign(1, static_cast<int>(s));
    stamp[s] = static_cast<int>(s);
    while (!stack.empty()) {
      int v = stack.back();
      stack.pop_back();
      flops += nodes[v].flops;
      for (int u : nodes[v].operands) {
        if (available(u) || stamp[u] == static_cast<int>(s))
          continue;
        stamp[u] = static_cast<int>(s);
        if (nodes[u].mustSave)
          bytes -= nodes[u].bytes;
        else
          stack.push_back(u);
      }
    }
    if (bytes <= 0)
      continue;
    candidates.push_back(static_cast<int>(s));
    items.push_back({bytes, static_cast<double>(flops)});
  }
  knapsack::Result chosen =
      knapsack::solve(items, start.activationBytes - budget);
  if (!chosen.hasSelection())
    return Plan();
  std::vector<bool> keep = start.saved;
  for (int i : chosen.chosen)
    keep[candidates[i]] = false;
  for (size_t i = 0; i < n; ++i)
    if (nodes[i].mustSave)
      keep[i] = true;
  return evaluate(nodes, keep);
}

bool fits(const Plan &plan, int64_t budget) {
  return plan.valid && plan.activationBytes <= budget;
}

/// Step (c), a local search from a plan that fits. Moves: save one value
/// the plan recomputes, then, if that breaks the budget, repair it with
/// step (a) (recompute other saved values instead: this covers swaps of
/// one value for several). Every move is scored exactly by evaluate(); the
/// best one (FLOPs saved per byte for moves within the slack, FLOPs saved
/// otherwise; those first) is taken while some move lowers the FLOPs.
/// `work` (nodes visited) bounds the step on big graphs, where it stops
/// early with the best plan so far; repairs (a knapsack each) are tried on
/// graphs of at most kMaxRepairNodes nodes only.
constexpr size_t kMaxRepairNodes = 4096;
Plan localSearch(llvm::ArrayRef<Node> nodes, Plan plan, int64_t budget,
                 int64_t &work) {
  size_t n = nodes.size();
  while (work > 0) {
    int64_t slack = budget - plan.activationBytes;
    std::vector<bool> keep = plan.saved;
    Plan bestAdd, bestSwap;
    double bestAddScore = 0;
    int64_t bestSwapFlops = plan.recomputeFlops;
    for (size_t r = 0; r < n && work > 0; ++r) {
      const Node &node = nodes[r];
      if (!plan.recomputed[r] || node.kind != Node::Kind::Op ||
          node.mustRecompute)
        continue;
      work -= static_cast<int64_t>(n);
      keep[r] = true;
      Plan candidate = evaluate(nodes, keep);
      keep[r] = false;
      if (!candidate.valid || candidate.recomputeFlops >= plan.recomputeFlops)
        continue;
      if (node.bytes <= slack) {
        double score =
            double(plan.recomputeFlops - candidate.recomputeFlops) /
            double(std::max<int64_t>(node.bytes, 1));
        if (score > bestAddScore) {
          bestAddScore = score;
          bestAdd = std::move(candidate);
        }
        continue;
      }
      if (bestAdd.valid || n > kMaxRepairNodes)
        continue;
      work -= static_cast<int64_t>(n);
      Plan repaired = knapsackFrom(nodes, candidate, budget);
      if (fits(repaired, budget) && repaired.recomputeFlops < bestSwapFlops) {
        bestSwapFlops = repaired.recomputeFlops;
        bestSwap = std::move(repaired);
      }
    }
    if (bestAdd.valid)
      plan = std::move(bestAdd);
    else if (bestSwap.valid)
      plan = std::move(bestSwap);
    else
      return plan;
  }
  return plan;
}

} // namespace

Plan remat::minCut(llvm::ArrayRef<Node> nodes, const CostModel &model,
                   bool allowBanned) {
  return cutWithWeight(nodes, static_cast<double>(model.byteWeight),
                       allowBanned, /*useSaveWeights=*/true);
}

BudgetResult remat::fitBudget(llvm::ArrayRef<Node> nodes, const Plan &plain,
                              int64_t budget, const CostModel &model) {
  if (fits(plain, budget))
    return {plain, true, "min-cut"};

  // (b) Bisect log2(weight) in quarter steps over [-16, 48] for the
  // smallest weight whose cut fits; weights that large make any byte
  // outweigh all the FLOPs of a model. The budget is in real bytes, so
  // these cuts leave out the prefer_* weights (they shape the plain cut,
  // which the knapsack step starts from).
  constexpr int kLow = -16 * 4, kHigh = 48 * 4;
  auto weightOf = [](int step) { return std::exp2(step / 4.0); };
  auto cutAtStep = [&](int step) {
    return cutWithWeight(nodes, weightOf(step), /*allowBanned=*/true,
                         /*useSaveWeights=*/false);
  };
  Plan fewest = cutAtStep(kHigh);
  if (!fits(fewest, budget))
    return {fewest, false, "fewest bytes"};
  int lo = kLow, hi = kHigh; // cutAtStep(hi) fits
  std::vector<Plan> fitting = {fewest}, over = {plain};
  Plan low = cutAtStep(lo);
  if (fits(low, budget)) {
    fitting.push_back(std::move(low));
  } else {
    if (low.valid)
      over.push_back(std::move(low));
    while (hi - lo > 1) {
      int mid = lo + (hi - lo) / 2;
      Plan plan = cutAtStep(mid);
      if (fits(plan, budget)) {
        hi = mid;
        fitting.push_back(std::move(plan));
      } else {
        lo = mid;
        if (plan.valid)
          over.push_back(std::move(plan));
      }
    }
  }

  // (a) from the plain cut and from every cut of the bisection that did
  // not fit; then step (c) from every plan that fits, the cheapest first.
  BudgetResult best{fitting.back(), true, "lagrangian"};
  std::vector<std::pair<Plan, const char *>> starts;
  for (Plan &plan : fitting)
    starts.push_back({std::move(plan), "lagrangian"});
  for (const Plan &plan : over) {
    Plan repaired = knapsackFrom(nodes, plan, budget);
    if (fits(repaired, budget))
      starts.push_back({std::move(repaired), "knapsack"});
  }
  std::stable_sort(starts.begin(), starts.end(), [](auto &a, auto &b) {
    return a.first.recomputeFlops < b.first.recomputeFlops;
  });
  // A bounded number of node visits keeps the search a small part of the
  // compile; a budget many times larger found no better plan on the GPT
  // fixtures.
  int64_t work = int64_t{1} << 22;
  for (auto &[plan, method] : starts) {
    Plan improved = localSearch(nodes, std::move(plan), budget, work);
    if (improved.recomputeFlops < best.plan.recomputeFlops)
      best = {std::move(improved), true, method};
  }
  return best;
}
