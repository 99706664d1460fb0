//===- Knapsack.cpp - min-cost covering knapsack --------------------------===//

#include "trace/Support/Knapsack.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>
#include <numeric>

using namespace mlir::trace;
using namespace mlir::trace::knapsack;

namespace {

constexpr int64_t kMaxBytes = std::numeric_limits<int64_t>::max();
constexpr double kInf = std::numeric_limits<double>::infinity();
/// Branch and bound recurses once per item taken: at most this deep.
constexpr size_t kMaxSearchItems = 10000;

int64_t addBytes(int64_t a, int64_t b) {
  return a >= kMaxBytes - b ? kMaxBytes : a + b;
}

/// A result with `chosen` sorted and its bytes and cost recomputed from the
/// items, so that every solver reports sums formed the same way.
Result makeResult(llvm::ArrayRef<Item> items, std::vector<int> chosen,
                  Status status) {
  Result result;
  result.status = status;
  std::sort(chosen.begin(), chosen.end());
  for (int i : chosen) {
    result.bytes = addBytes(result.bytes, items[i].bytes);
    result.cost += items[i].cost;
  }
  result.chosen = std::move(chosen);
  return result;
}

/// The result for the cases every solver shares: nothing to free, or not
/// enough to free. Returns false when the instance needs solving.
bool trivialResult(llvm::ArrayRef<Item> items, int64_t required, Result &result) {
#ifndef NDEBUG
  for (const Item &item : items)
    assert(item.cost >= 0 && std::isfinite(item.cost) &&
           "costs must be finite and non-negative");
#endif
  if (required <= 0) {
    result = makeResult(items, {}, Status::Optimal);
    return true;
  }
  int64_t total = 0;
  for (const Item &item : items)
    if (item.bytes > 0)
      total = addBytes(total, item.bytes);
  if (total < required) {
    result = Result();
    result.status = Status::Infeasible;
    return true;
  }
  return false;
}

/// The indices of the items with bytes > 0, by cost / bytes ascending (ties:
/// larger items first, then by index).
std::vector<int> byRatio(llvm::ArrayRef<Item> items) {
  std::vector<int> order;
  for (int i = 0, n = static_cast<int>(items.size()); i < n; ++i)
    if (items[i].bytes > 0)
      order.push_back(i);
  std::vector<double> ratio(items.size(), 0.0);
  for (int i : order)
    ratio[i] = items[i].cost / static_cast<double>(items[i].bytes);
  std::sort(order.begin(), order.end(), [&](int a, int b) {
    if (ratio[a] != ratio[b])
      return ratio[a] < ratio[b];
    if (items[a].bytes != items[b].bytes)
      return items[a].bytes > items[b].bytes;
    return a < b;
  });
  return order;
}

/// Drops chosen items, most expensive first, while the rest still cover.
void dropRedundant(llvm::ArrayRef<Item> items, int64_t required,
                   std::vector<int> &chosen) {
  std::vector<int> order = chosen;
  std::sort(order.begin(), order.end(), [&](int a, int b) {
    if (items[a].cost != items[b].cost)
      return items[a].cost > items[b].cost;
    return a < b;
  });
  int64_t bytes = 0;
  for (int i : chosen)
    bytes = addBytes(bytes, items[i].bytes);
  std::vector<bool> dropped(items.size(), false);
  for (int i : order) {
    // Saturated sums are never dropped from: the exact total is unknown.
    if (bytes == kMaxBytes || bytes - items[i].bytes < required)
      continue;
    bytes -= items[i].bytes;
    dropped[i] = true;
  }
  llvm::erase_if(chosen, [&](int i) { return dropped[i]; });
}

/// Dynamic program over bytes in units of `unit`; `target` units cover.
Result solveByTable(llvm::ArrayRef<Item> items, llvm::ArrayRef<int> useful,
                    int64_t required, int64_t unit, int64_t target) {
  size_t width = static_cast<size_t>(target) + 1;
  // best[j]: the least cost of freeing at least j units with the items so
  // far; took[i * width + j]: whether item useful[i] improved best[j].
  std::vector<double> best(width, kInf);
  best[0] = 0;
  std::vector<bool> took(useful.size() * width, false);
  for (size_t i = 0; i < useful.size(); ++i) {
    const Item &item = items[useful[i]];
    int64_t units = item.bytes >= required ? target : item.bytes / unit;
    for (int64_t j = target; j > 0; --j) {
      double candidate = best[std::max<int64_t>(j - units, 0)] + item.cost;
      if (candidate < best[j]) {
        best[j] = candidate;
        took[i * width + j] = true;
      }
    }
  }
  std::vector<int> chosen;
  int64_t j = target;
  for (size_t i = useful.size(); i-- > 0 && j > 0;) {
    if (!took[i * width + j])
      continue;
    const Item &item = items[useful[i]];
    chosen.push_back(useful[i]);
    j = std::max<int64_t>(j - (item.bytes >= required ? target : item.bytes / unit), 0);
  }
  assert(j == 0 && "table reconstruction did not cover");
  return makeResult(items, std::move(chosen), Status::Optimal);
}

/// Depth-first branch and bound over the items in ratio order.
class BranchAndBound {
public:
  BranchAndBound(llvm::ArrayRef<Item> items, int64_t required, int64_t maxSteps)
      : items(items), required(required), stepsLeft(maxSteps),
        order(byRatio(items)) {
    suffixBytes.assign(order.size() + 1, 0);
    for (size_t k = order.size(); k-- > 0;)
      suffixBytes[k] = addBytes(suffixBytes[k + 1], items[order[k]].bytes);
  }

  /// Searches from the incumbent `start`; false if it ran out of steps.
  bool run(const Result &start) {
    bestCost = start.cost;
    bestSet = start.chosen;
    search(0, 0, 0);
    return !outOfSteps;
  }
  std::vector<int> bestSet;

private:
  /// The fractional relaxation: the least cost of covering `need` more bytes
  /// with items k.. when items may be taken in part.
  double lowerBound(size_t k, int64_t need) {
    double bound = 0;
    for (; k < order.size(); ++k) {
      --stepsLeft;
      const Item &item = items[order[k]];
      if (item.bytes >= need)
        return bound + item.cost * (static_cast<double>(need) / item.bytes);
      bound += item.cost;
      need -= item.bytes;
    }
    return kInf;
  }

  /// Branches on order[k], order[k + 1], ...: taking an item recurses,
  /// leaving it out loops, so the depth is the number of items taken.
  void search(size_t k, int64_t bytes, double cost) {
    for (;; ++k) {
      if (outOfSteps || --stepsLeft < 0) {
        outOfSteps = true;
        return;
      }
      if (bytes >= required) {
        if (cost < bestCost) {
          bestCost = cost;
          bestSet = current;
        }
        return;
      }
      int64_t need = required - bytes;
      if (k == order.size() || suffixBytes[k] < need)
        return;
      // Prune within a relative 1e-12, so that rounding in the bound cannot
      // make ties explode; a solution better than that is never cut off.
      if (cost + lowerBound(k, need) >= bestCost * (1 - 1e-12))
        return;
      const Item &item = items[order[k]];
      current.push_back(order[k]);
      search(k + 1, addBytes(bytes, item.bytes), cost + item.cost);
      current.pop_back();
    }
  }

  llvm::ArrayRef<Item> items;
  int64_t required;
  int64_t stepsLeft;
  bool outOfSteps = false;
  std::vector<int> order;
  std::vector<int64_t> suffixBytes;
  std::vector<int> current;
  double bestCost = kInf;
};

} // namespace

Result knapsack::solveGreedy(llvm::ArrayRef<Item> items, int64_t required) {
  Result result;
  if (trivialResult(items, required, result))
    return result;
  std::vector<int> order = byRatio(items);

  // The partial set is a list that only grows, so a candidate is a prefix
  // of it plus one critical item.
  std::vector<int> partial;
  int64_t partialBytes = 0;
  double partialCost = 0;
  double bestCost = kInf;
  size_t bestPrefix = 0;
  int bestLast = -1;
  auto consider = [&](size_t prefix, double prefixCost, int last) {
    double cost = prefixCost + items[last].cost;
    if (cost < bestCost) {
      bestCost = cost;
      bestPrefix = prefix;
      bestLast = last;
    }
  };
  for (int i : order) {
    const Item &item = items[i];
    if (item.bytes >= required)
      consider(0, 0, i); // Covers alone.
    if (item.bytes >= required - partialBytes) {
      consider(partial.size(), partialCost, i);
    } else {
      partial.push_back(i);
      partialBytes += item.bytes;
      partialCost += item.cost;
    }
  }
  assert(bestLast >= 0 && "a feasible instance has a critical item");
  std::vector<int> chosen(partial.begin(), partial.begin() + bestPrefix);
  chosen.push_back(bestLast);
  dropRedundant(items, required, chosen);
  return makeResult(items, std::move(chosen), Status::Approximate);
}

Result knapsack::solveExact(llvm::ArrayRef<Item> items, int64_t required,
                            const Limits &limits) {
  Result result;
  if (trivialResult(items, required, result))
    return result;

  // The table: units of the gcd of the sizes below `required` (a larger
  // item covers on its own, whatever its size).
  std::vector<int> useful;
  int64_t unit = 0;
  for (int i = 0, n = static_cast<int>(items.size()); i < n; ++i) {
    if (items[i].bytes <= 0)
      continue;
    useful.push_back(i);
    if (items[i].bytes < required)
      unit = std::gcd(unit, items[i].bytes);
  }
  if (unit == 0)
    unit = required;
  int64_t target = required / unit + (required % unit != 0);
  int64_t rows = static_cast<int64_t>(useful.size()) + 64;
  if (target < limits.maxTableBits && rows <= limits.maxTableBits / (target + 1))
    return solveByTable(items, useful, required, unit, target);

  if (useful.size() > kMaxSearchItems) {
    result.status = Status::TooLarge;
    return result;
  }
  Result start = solveGreedy(items, required);
  BranchAndBound search(items, required, limits.maxSearchSteps);
  if (!search.run(start)) {
    result.status = Status::TooLarge;
    return result;
  }
  return makeResult(items, search.bestSet, Status::Optimal);
}

Result knapsack::solveExhaustive(llvm::ArrayRef<Item> items, int64_t required) {
  Result result;
  if (trivialResult(items, required, result))
    return result;
  int n = static_cast<int>(items.size());
  if (n > kMaxExhaustiveItems) {
    result.status = Status::TooLarge;
    return result;
  }
  double bestCost = kInf;
  uint32_t bestMask = 0;
  for (uint32_t mask = 0; mask < (uint32_t{1} << n); ++mask) {
    int64_t bytes = 0;
    double cost = 0;
    for (int i = 0; i < n; ++i) {
      if (!(mask >> i & 1))
        continue;
      bytes = addBytes(bytes, std::max<int64_t>(items[i].bytes, 0));
      cost += items[i].cost;
    }
    if (bytes >= required && cost < bestCost) {
      bestCost = cost;
      bestMask = mask;
    }
  }
  std::vector<int> chosen;
  for (int i = 0; i < n; ++i)
    if (bestMask >> i & 1)
      chosen.push_back(i);
  return makeResult(items, std::move(chosen), Status::Optimal);
}

Result knapsack::solve(llvm::ArrayRef<Item> items, int64_t required,
                       const Limits &limits) {
  Result exact = solveExact(items, required, limits);
  if (exact.status != Status::TooLarge)
    return exact;
  return solveGreedy(items, required);
}

const char *knapsack::statusName(Status status) {
  switch (status) {
  case Status::Optimal:
    return "optimal";
  case Status::Approximate:
    return "approximate";
  case Status::Infeasible:
    return "infeasible";
  case Status::TooLarge:
    return "too large";
  }
  return "unknown";
}
