//===- RematPlannerTest.cpp - trace-remat's decisions on abstract graphs --===//
//
// Hand-checked graphs, then random graphs of up to 16 ops against exhaustive
// search over every set of values to keep (2^ops plans, each completed by
// evaluate()):
//  * the plain minimum cut attains the least objective
//      byteWeight * sum(saveWeight * saved bytes) + recompute FLOPs
//    of any valid plan (the cut model is exact);
//  * under budgets of 75%, 50%, 25%, 10% and 0% of the plain cut's bytes,
//    fitBudget's recompute FLOPs are within 10% of the least FLOPs of any
//    plan that fits (the optimality target), and it reports a
//    budget unmet exactly when no plan fits.
// The budget step is a heuristic (the problem is NP-hard): run with seeds
// 1-20 instead of 5, 18144 budgeted instances, 18128 hit the optimum and
// the worst is 1.093 times it. Before the local search (step (c)) 1-2% of
// the instances missed the 10% target, by up to 3.4x.
//
//===----------------------------------------------------------------------===//

#include "trace/Dialect/Trace/Analysis/RematPlanner.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <limits>
#include <random>

using namespace mlir::trace::remat;

namespace {

Node arg(int64_t bytes) {
  Node node;
  node.kind = Node::Kind::Argument;
  node.bytes = bytes;
  return node;
}

Node op(int64_t bytes, int64_t flops, std::vector<int> operands,
        bool needed = false) {
  Node node;
  node.bytes = bytes;
  node.flops = flops;
  node.operands = std::move(operands);
  node.neededByBackward = needed;
  return node;
}

std::vector<int> savedOps(const std::vector<Node> &nodes, const Plan &plan) {
  std::vector<int> saved;
  for (size_t i = 0; i < nodes.size(); ++i)
    if (plan.saved[i] && nodes[i].kind == Node::Kind::Op)
      saved.push_back(static_cast<int>(i));
  return saved;
}

// x -> matmul (banned) -> a -> b -> c, the backward reading the matmul's
// output and a, b, c: the matmul's output is saved and the elementwise chain
// recomputed.
TEST(RematPlanner, ChainAfterMatmul) {
  std::vector<Node> nodes = {arg(64), arg(64)};
  nodes.push_back(op(128, 512, {0, 1}));
  nodes.back().banned = true;
  nodes.back().neededByBackward = true;
  nodes.push_back(op(128, 32, {2}, true));
  nodes.push_back(op(128, 32, {3}, true));
  nodes.push_back(op(128, 32, {4}, true));
  Plan plan = minCut(nodes, CostModel());
  ASSERT_TRUE(plan.valid);
  EXPECT_EQ(savedOps(nodes, plan), std::vector<int>({2}));
  EXPECT_EQ(plan.activationBytes, 128);
  EXPECT_EQ(plan.recomputeFlops, 96);
  EXPECT_EQ(plan.numRecomputed, 3);
  // Arguments the backward does not read are not saved.
  EXPECT_EQ(plan.argumentBytes, 0);
}

// A small value broadcast to a big one: the small one is saved.
TEST(RematPlanner, NarrowValue) {
  std::vector<Node> nodes = {arg(16)};
  nodes.push_back(op(16, 4, {0}));
  nodes.back().banned = true;
  nodes.push_back(op(1024, 0, {1}));      // broadcast: no FLOPs
  nodes.push_back(op(1024, 256, {2}, true)); // exp, read by the backward
  Plan plan = minCut(nodes, CostModel());
  ASSERT_TRUE(plan.valid);
  EXPECT_EQ(savedOps(nodes, plan), std::vector<int>({1}));
  EXPECT_EQ(plan.activationBytes, 16);
}

// Ties in bytes go to the plan that recomputes less.
TEST(RematPlanner, TiesPreferFewerFlops) {
  std::vector<Node> nodes = {arg(64)};
  nodes.push_back(op(64, 1000, {0}));
  nodes.back().banned = true;
  nodes.push_back(op(64, 16, {1}));
  nodes.push_back(op(64, 16, {2}, true));
  Plan plan = minCut(nodes, CostModel());
  EXPECT_EQ(savedOps(nodes, plan), std::vector<int>({3}));
  EXPECT_EQ(plan.recomputeFlops, 0);
}

TEST(RematPlanner, Constraints) {
  std::vector<Node> nodes = {arg(16)};
  nodes.push_back(op(64, 16, {0}));
  nodes.push_back(op(64, 16, {1}, true));
  // Without constraints: recompute everything from the argument.
  Plan free = minCut(nodes, CostModel());
  EXPECT_TRUE(savedOps(nodes, free).empty());
  EXPECT_EQ(free.argumentBytes, 16);
  // must_save on node 2: saved although recomputing is cheap.
  nodes[2].mustSave = true;
  EXPECT_EQ(savedOps(nodes, minCut(nodes, CostModel())), std::vector<int>({2}));
  // must_save on node 1, and node 2 must be recomputed: node 1 is saved.
  nodes[2].mustSave = false;
  nodes[2].mustRecompute = true;
  nodes[1].mustSave = true;
  EXPECT_EQ(savedOps(nodes, minCut(nodes, CostModel())), std::vector<int>({1}));
  // Both on one value: no plan.
  nodes[2].mustSave = true;
  EXPECT_FALSE(minCut(nodes, CostModel()).valid);
}

TEST(RematPlanner, BudgetZeroRecomputesEverything) {
  std::vector<Node> nodes = {arg(64), arg(64)};
  nodes.push_back(op(128, 512, {0, 1}));
  nodes.back().banned = true;
  nodes.push_back(op(128, 32, {2}, true));
  Plan plain = minCut(nodes, CostModel());
  EXPECT_EQ(plain.activationBytes, 128);
  BudgetResult zero = fitBudget(nodes, plain, 0, CostModel());
  EXPECT_TRUE(zero.met);
  EXPECT_EQ(zero.plan.activationBytes, 0);
  EXPECT_EQ(zero.plan.recomputeFlops, 544);
  EXPECT_EQ(zero.plan.argumentBytes, 128);
  // A must-save value makes the zero budget unmeetable.
  nodes[2].mustSave = true;
  plain = minCut(nodes, CostModel());
  zero = fitBudget(nodes, plain, 0, CostModel());
  EXPECT_FALSE(zero.met);
  EXPECT_EQ(zero.plan.activationBytes, 128);
}

//===----------------------------------------------------------------------===//
// Random graphs against exhaustive search
//===----------------------------------------------------------------------===//

struct RandomGraph {
  std::vector<Node> nodes;
  std::vector<int> ops; // indices of Op nodes
};

RandomGraph randomGraph(std::mt19937 &rng, int numOps, bool constraints) {
  auto uniform = [&](int lo, int hi) {
    return std::uniform_int_distribution<int>(lo, hi)(rng);
  };
  auto chance = [&](double p) {
    return std::bernoulli_distribution(p)(rng);
  };
  RandomGraph g;
  int numArgs = uniform(1, 3);
  for (int i = 0; i < numArgs; ++i)
    g.nodes.push_back(arg(16 * uniform(1, 8)));
  if (chance(0.3)) {
    Node source;
    source.kind = Node::Kind::Source;
    source.bytes = 16 * uniform(1, 8);
    g.nodes.push_back(source);
  }
  for (int k = 0; k < numOps; ++k) {
    int size = static_cast<int>(g.nodes.size());
    Node node;
    // Mostly recent producers, as in a layered model.
    int numOperands = uniform(1, 3);
    for (int j = 0; j < numOperands; ++j) {
      int operand = chance(0.7) ? size - 1 - uniform(0, std::min(size - 1, 3))
                                : uniform(0, size - 1);
      if (std::find(node.operands.begin(), node.operands.end(), operand) ==
          node.operands.end())
        node.operands.push_back(operand);
    }
    node.bytes = 16 * uniform(1, 16);
    if (chance(0.2)) {
      // A matmul: many FLOPs per byte, banned from the plain cut.
      node.flops = node.bytes * uniform(8, 64);
      node.banned = true;
    } else if (chance(0.2)) {
      node.flops = 0; // a view
    } else {
      node.flops = node.bytes / 4 * uniform(1, 4);
    }
    node.neededByBackward = chance(0.5);
    if (constraints) {
      if (chance(0.1))
        node.mustRecompute = true;
      else if (chance(0.05))
        node.mustSave = true;
      else if (chance(0.1))
        node.saveWeight = chance(0.5) ? 0.5 : 2.0;
    }
    g.ops.push_back(static_cast<int>(g.nodes.size()));
    g.nodes.push_back(node);
  }
  if (chance(0.5))
    g.nodes.back().neededByBackward = true;
  return g;
}

/// Calls `visit` with every valid plan (one per keep-set of the ops).
template <typename Fn>
void forEachPlan(const RandomGraph &g, Fn visit) {
  std::vector<bool> keep(g.nodes.size(), false);
  for (uint32_t mask = 0; mask < (1u << g.ops.size()); ++mask) {
    for (size_t j = 0; j < g.ops.size(); ++j)
      keep[g.ops[j]] = (mask >> j) & 1;
    Plan plan = evaluate(g.nodes, keep);
    if (plan.valid)
      visit(plan);
  }
}

double objective(const std::vector<Node> &nodes, const Plan &plan,
                 const CostModel &model) {
  double cost = static_cast<double>(plan.recomputeFlops);
  for (size_t i = 0; i < nodes.size(); ++i)
    if (plan.saved[i] && nodes[i].kind == Node::Kind::Op)
      cost += double(model.byteWeight) * nodes[i].saveWeight * nodes[i].bytes;
  return cost;
}

/// A plan respects the plain cut's rules: nothing banned is recomputed.
bool respectsBans(const std::vector<Node> &nodes, const Plan &plan) {
  for (size_t i = 0; i < nodes.size(); ++i)
    if (plan.recomputed[i] && nodes[i].banned && !nodes[i].mustRecompute)
      return false;
  return true;
}

/// evaluate() of the plan's own saved set gives the plan back.
void expectConsistent(const std::vector<Node> &nodes, const Plan &plan) {
  ASSERT_TRUE(plan.valid);
  Plan again = evaluate(nodes, plan.saved);
  EXPECT_EQ(again.saved, plan.saved);
  EXPECT_EQ(again.recomputed, plan.recomputed);
  for (size_t i = 0; i < nodes.size(); ++i) {
    EXPECT_FALSE(plan.saved[i] && plan.recomputed[i]);
    if (plan.saved[i]) {
      EXPECT_FALSE(nodes[i].mustRecompute ||
                   nodes[i].kind == Node::Kind::Source);
    }
    if (plan.recomputed[i]) {
      EXPECT_FALSE(nodes[i].mustSave || nodes[i].kind == Node::Kind::Argument);
    }
  }
}

TEST(RematPlanner, MinCutIsExactOnRandomGraphs) {
  std::mt19937 rng(11);
  CostModel model;
  int graphs = 0, invalid = 0;
  for (int trial = 0; trial < 300; ++trial) {
    RandomGraph g = randomGraph(rng, 4 + trial % 13, /*constraints=*/true);
    Plan cut = minCut(g.nodes, model);
    double best = std::numeric_limits<double>::infinity();
    forEachPlan(g, [&](const Plan &plan) {
      if (respectsBans(g.nodes, plan))
        best = std::min(best, objective(g.nodes, plan, model));
    });
    if (!cut.valid) {
      EXPECT_EQ(best, std::numeric_limits<double>::infinity()) << trial;
      ++invalid;
      continue;
    }
    ++graphs;
    expectConsistent(g.nodes, cut);
    EXPECT_TRUE(respectsBans(g.nodes, cut)) << trial;
    EXPECT_EQ(objective(g.nodes, cut, model), best) << "trial " << trial;
  }
  std::printf("min cut optimal on %d random graphs (%d without a plan)\n",
              graphs, invalid);
}

TEST(RematPlanner, BudgetWithin10PercentOfOptimum) {
  std::mt19937 rng(5);
  CostModel model;
  int instances = 0, exact = 0, unmet = 0;
  double worst = 1;
  for (int trial = 0; trial < 250; ++trial) {
    RandomGraph g = randomGraph(rng, 6 + trial % 11, /*constraints=*/trial % 2);
    Plan plain = minCut(g.nodes, model);
    if (!plain.valid || plain.activationBytes == 0)
      continue;
    std::vector<Plan> all;
    forEachPlan(g, [&](const Plan &plan) { all.push_back(plan); });
    for (double fraction : {0.75, 0.5, 0.25, 0.1, 0.0}) {
      int64_t budget =
          static_cast<int64_t>(fraction * double(plain.activationBytes));
      int64_t best = std::numeric_limits<int64_t>::max();
      for (const Plan &plan : all)
        if (plan.activationBytes <= budget)
          best = std::min(best, plan.recomputeFlops);
      BudgetResult result = fitBudget(g.nodes, plain, budget, model);
      ASSERT_TRUE(result.plan.valid);
      expectConsistent(g.nodes, result.plan);
      bool feasible = best != std::numeric_limits<int64_t>::max();
      EXPECT_EQ(result.met, feasible) << "trial " << trial << " budget "
                                      << budget;
      if (!feasible) {
        ++unmet;
        continue;
      }
      ++instances;
      EXPECT_LE(result.plan.activationBytes, budget);
      EXPECT_LE(double(result.plan.recomputeFlops), 1.1 * double(best))
          << "trial " << trial << " budget " << budget << " via "
          << result.method;
      if (result.plan.recomputeFlops == best)
        ++exact;
      else
        worst = std::max(worst, double(result.plan.recomputeFlops) / best);
    }
  }
  std::printf("budgets: %d instances, %d at the optimum, worst ratio %.3f, "
              "%d unmeetable\n",
              instances, exact, worst, unmet);
}

} // namespace
