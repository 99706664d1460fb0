//===- MaxFlowTest.cpp - FlowGraph max flow and min cut -------------------===//
//
// Hand-checked graphs, then random graphs against references written here
// (Edmonds-Karp on a capacity matrix, and the minimum over every cut for up
// to 10 nodes), then 100000-node chains that a recursive search could not
// walk. Every flow is also checked on its own terms: capacities, conservation,
// and a cut whose capacity equals the flow value (which proves both optimal).
//
//===----------------------------------------------------------------------===//

#include "trace/Support/MaxFlow.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <deque>
#include <random>

using namespace mlir::trace;

namespace {

constexpr int64_t kInf = FlowGraph::kInfinite;

int64_t satAdd(int64_t a, int64_t b) { return a >= kInf - b ? kInf : a + b; }

/// Checks the flow and the cut of `g` after maxFlow(s, t) returned `value`.
void expectValidFlowAndCut(const FlowGraph &g, int s, int t, int64_t value) {
  ASSERT_NE(value, kInf);
  int n = g.getNumNodes();
  std::vector<int64_t> net(n, 0); // Inflow minus outflow.
  for (int e = 0; e < g.getNumEdges(); ++e) {
    const FlowGraph::Edge &edge = g.getEdge(e);
    int64_t f = g.flow(e);
    ASSERT_GE(f, 0) << "edge " << e;
    ASSERT_LE(f, edge.capacity) << "edge " << e;
    net[edge.to] += f;
    net[edge.from] -= f;
  }
  for (int v = 0; v < n; ++v) {
    if (v != s && v != t) {
      ASSERT_EQ(net[v], 0) << "flow is not conserved at node " << v;
    }
  }
  EXPECT_EQ(net[t], value);
  EXPECT_EQ(net[s], -value);

  std::vector<bool> side = g.sourceSide();
  ASSERT_EQ(static_cast<int>(side.size()), n);
  EXPECT_TRUE(side[s]);
  EXPECT_FALSE(side[t]);
  std::vector<int> cut = g.cutEdgeIds();
  std::vector<std::pair<int, int>> pairs = g.cutEdges();
  ASSERT_EQ(cut.size(), pairs.size());
  int64_t capacity = 0;
  size_t next = 0;
  for (int e = 0; e < g.getNumEdges(); ++e) {
    const FlowGraph::Edge &edge = g.getEdge(e);
    bool crosses = side[edge.from] && !side[edge.to];
    if (crosses) {
      ASSERT_LT(next, cut.size());
      EXPECT_EQ(cut[next], e);
      EXPECT_EQ(pairs[next], std::make_pair(edge.from, edge.to));
      ++next;
      EXPECT_EQ(g.flow(e), edge.capacity) << "cut edge " << e << " not saturated";
      capacity = satAdd(capacity, edge.capacity);
    }
    if (!side[edge.from] && side[edge.to]) {
      EXPECT_EQ(g.flow(e), 0) << "backward edge " << e << " carries flow";
    }
  }
  EXPECT_EQ(next, cut.size());
  EXPECT_EQ(capacity, value) << "max flow != min cut";
}

TEST(MaxFlow, ClrsExample) {
  // CLRS (3rd ed.), figure 26.1: s, v1, v2, v3, v4, t.
  FlowGraph g(6);
  enum { s, v1, v2, v3, v4, t };
  g.addEdge(s, v1, 16);
  g.addEdge(s, v2, 13);
  g.addEdge(v2, v1, 4);
  g.addEdge(v1, v3, 12);
  g.addEdge(v3, v2, 9);
  g.addEdge(v2, v4, 14);
  g.addEdge(v4, v3, 7);
  g.addEdge(v3, t, 20);
  g.addEdge(v4, t, 4);
  EXPECT_EQ(g.maxFlow(s, t), 23);
  // The only cut of capacity 23: {s, v1, v2, v4} | {v3, t}.
  EXPECT_EQ(g.sourceSide(), (std::vector<bool>{true, true, true, false, true, false}));
  EXPECT_EQ(g.cutEdges(),
            (std::vector<std::pair<int, int>>{{v1, v3}, {v4, v3}, {v4, t}}));
  expectValidFlowAndCut(g, s, t, 23);
}

TEST(MaxFlow, InfinitePathCannotBeCut) {
  FlowGraph g(4);
  g.addEdge(0, 1, kInf);
  g.addEdge(1, 2, kInf);
  g.addEdge(2, 1, 5);
  g.addEdge(2, 3, kInf);
  g.addEdge(0, 3, 5);
  EXPECT_EQ(g.maxFlow(0, 3), kInf);
  EXPECT_TRUE(g.sourceSide()[3]);
  EXPECT_TRUE(g.cutEdges().empty());
}

TEST(MaxFlow, InfiniteEdgesForceTheFiniteCut) {
  // s -inf-> a -7-> b -inf-> t, and s -10-> b: the cut is {a->b, s->b}.
  FlowGraph g(4);
  enum { s, a, b, t };
  g.addEdge(s, a, kInf);
  g.addEdge(a, b, 7);
  g.addEdge(b, t, kInf);
  g.addEdge(s, b, 10);
  EXPECT_EQ(g.maxFlow(s, t), 17);
  EXPECT_EQ(g.cutEdges(), (std::vector<std::pair<int, int>>{{a, b}, {s, b}}));
  expectValidFlowAndCut(g, s, t, 17);
}

TEST(MaxFlow, CutPicksTheNarrowEdge) {
  // A remat-shaped chain: x (1000 bytes) -> y (8 bytes) -> z (1000 bytes);
  // node splitting gives each value an in->out edge of its size, data edges
  // are infinite. Saving y is the cheapest cut.
  FlowGraph g;
  int s = g.addNode(), t = g.addNode();
  int xIn = g.addNode(), xOut = g.addNode();
  int yIn = g.addNode(), yOut = g.addNode();
  int zIn = g.addNode(), zOut = g.addNode();
  g.addEdge(s, xIn, kInf);
  g.addEdge(xIn, xOut, 1000);
  g.addEdge(xOut, yIn, kInf);
  int narrow = g.addEdge(yIn, yOut, 8);
  g.addEdge(yOut, zIn, kInf);
  g.addEdge(zIn, zOut, 1000);
  g.addEdge(zOut, t, kInf);
  EXPECT_EQ(g.maxFlow(s, t), 8);
  EXPECT_EQ(g.cutEdgeIds(), std::vector<int>{narrow});
  std::vector<bool> side = g.sourceSide();
  EXPECT_TRUE(side[xOut] && side[yIn] && !side[yOut] && !side[zIn]);
  expectValidFlowAndCut(g, s, t, 8);
}

TEST(MaxFlow, ParallelAndAntiparallelEdges) {
  FlowGraph g(3);
  int e0 = g.addEdge(0, 1, 3);
  int e1 = g.addEdge(0, 1, 4);
  int e2 = g.addEdge(0, 1, 5);
  g.addEdge(1, 0, 100);
  g.addEdge(1, 2, 50);
  g.addEdge(2, 1, 50);
  g.addEdge(1, 1, 9); // A self-loop carries nothing.
  EXPECT_EQ(g.maxFlow(0, 2), 12);
  EXPECT_EQ(g.cutEdgeIds(), (std::vector<int>{e0, e1, e2}));
  EXPECT_EQ(g.cutEdges(), (std::vector<std::pair<int, int>>{{0, 1}, {0, 1}, {0, 1}}));
  expectValidFlowAndCut(g, 0, 2, 12);
}

TEST(MaxFlow, DisconnectedSink) {
  FlowGraph g(5);
  g.addEdge(0, 1, 7);
  g.addEdge(1, 2, kInf);
  g.addEdge(4, 3, 9); // The sink's component is unreachable from 0.
  g.addEdge(3, 4, 9);
  EXPECT_EQ(g.maxFlow(0, 3), 0);
  EXPECT_TRUE(g.cutEdges().empty());
  EXPECT_EQ(g.sourceSide(), (std::vector<bool>{true, true, true, false, false}));
  expectValidFlowAndCut(g, 0, 3, 0);
}

TEST(MaxFlow, ZeroCapacityEdgesAndSink) {
  FlowGraph g(3);
  int e = g.addEdge(0, 1, 0);
  g.addEdge(1, 2, 10);
  EXPECT_EQ(g.maxFlow(0, 2), 0);
  EXPECT_EQ(g.cutEdgeIds(), std::vector<int>{e});
}

TEST(MaxFlow, SaturatesInsteadOfOverflowing) {
  // Two parallel edges of kInfinite - 1: the cut's capacity exceeds int64.
  FlowGraph g(2);
  g.addEdge(0, 1, kInf - 1);
  EXPECT_EQ(g.maxFlow(0, 1), kInf - 1);
  g.addEdge(0, 1, kInf - 1);
  EXPECT_EQ(g.maxFlow(0, 1), kInf);

  // A finite path of huge edges behind infinite ones stays finite.
  FlowGraph h(4);
  h.addEdge(0, 1, kInf);
  h.addEdge(1, 2, int64_t{1} << 62);
  h.addEdge(1, 2, (int64_t{1} << 62) - 2);
  h.addEdge(2, 3, kInf);
  EXPECT_EQ(h.maxFlow(0, 3), kInf - 1); // 2^63 - 2.
  expectValidFlowAndCut(h, 0, 3, kInf - 1);
}

TEST(MaxFlow, RepeatedCallsStartFromZero) {
  FlowGraph g(4);
  g.addEdge(0, 1, 5);
  g.addEdge(1, 3, 3);
  g.addEdge(0, 2, 2);
  g.addEdge(2, 3, 6);
  EXPECT_EQ(g.maxFlow(0, 3), 5);
  EXPECT_EQ(g.maxFlow(0, 3), 5);
  EXPECT_EQ(g.maxFlow(1, 3), 3);
  g.addEdge(1, 2, 10);
  EXPECT_EQ(g.maxFlow(0, 3), 7);
  expectValidFlowAndCut(g, 0, 3, 7);
}

/// Edmonds-Karp on a capacity matrix (parallel edges summed, infinite edges
/// as `big`, self-loops dropped).
int64_t edmondsKarp(int n, const std::vector<FlowGraph::Edge> &edges, int s, int t,
                    int64_t big) {
  std::vector<std::vector<int64_t>> cap(n, std::vector<int64_t>(n, 0));
  for (const FlowGraph::Edge &e : edges)
    if (e.from != e.to)
      cap[e.from][e.to] += e.capacity == kInf ? big : e.capacity;
  int64_t total = 0;
  while (true) {
    std::vector<int> parent(n, -1);
    parent[s] = s;
    std::deque<int> queue = {s};
    while (!queue.empty() && parent[t] < 0) {
      int u = queue.front();
      queue.pop_front();
      for (int v = 0; v < n; ++v)
        if (parent[v] < 0 && cap[u][v] > 0) {
          parent[v] = u;
          queue.push_back(v);
        }
    }
    if (parent[t] < 0)
      return total;
    int64_t push = big * 4;
    for (int v = t; v != s; v = parent[v])
      push = std::min(push, cap[parent[v]][v]);
    for (int v = t; v != s; v = parent[v]) {
      cap[parent[v]][v] -= push;
      cap[v][parent[v]] += push;
    }
    total += push;
  }
}

/// The least capacity over all cuts (saturating), by enumeration.
int64_t bruteForceMinCut(int n, const std::vector<FlowGraph::Edge> &edges, int s,
                         int t) {
  int64_t best = kInf;
  for (uint32_t mask = 0; mask < (1u << n); ++mask) {
    if (!(mask >> s & 1) || (mask >> t & 1))
      continue;
    int64_t capacity = 0;
    for (const FlowGraph::Edge &e : edges)
      if ((mask >> e.from & 1) && !(mask >> e.to & 1))
        capacity = satAdd(capacity, e.capacity);
    best = std::min(best, capacity);
  }
  return best;
}

TEST(MaxFlow, RandomGraphsMatchReferences) {
  std::mt19937 rng(20240601);
  int infiniteResults = 0, zeroResults = 0, positiveResults = 0;
  for (int trial = 0; trial < 200; ++trial) {
    int n = 2 + static_cast<int>(rng() % 11);
    int m = n + static_cast<int>(rng() % (3 * n + 1));
    FlowGraph g(n);
    std::vector<FlowGraph::Edge> edges;
    int64_t finiteSum = 0;
    for (int i = 0; i < m; ++i) {
      int from = static_cast<int>(rng() % n), to = static_cast<int>(rng() % n);
      int64_t cap = rng() % 6 == 0 ? kInf : static_cast<int64_t>(rng() % 21);
      g.addEdge(from, to, cap);
      edges.push_back({from, to, cap});
      if (cap != kInf)
        finiteSum += cap;
    }
    int s = 0, t = n - 1;
    SCOPED_TRACE("trial " + std::to_string(trial));
    int64_t value = g.maxFlow(s, t);
    int64_t big = finiteSum + 1;
    int64_t reference = edmondsKarp(n, edges, s, t, big);
    if (reference >= big) {
      EXPECT_EQ(value, kInf);
      ++infiniteResults;
    } else {
      EXPECT_EQ(value, reference);
      expectValidFlowAndCut(g, s, t, value);
      zeroResults += value == 0;
      positiveResults += value > 0;
    }
    if (n <= 10) {
      EXPECT_EQ(value, bruteForceMinCut(n, edges, s, t));
    }
  }
  std::printf("[ maxflow  ] 200 random graphs: %d infinite, %d zero, %d positive\n",
              infiniteResults, zeroResults, positiveResults);
  // The generator exercises every kind of answer.
  EXPECT_GT(infiniteResults, 5);
  EXPECT_GT(zeroResults, 5);
  EXPECT_GT(positiveResults, 100);
}

/// A chain 0 -> 1 -> ... -> n-1 with random capacities plus `extra` random
/// edges whose ends are at most `reach` apart (any two nodes if reach is 0).
FlowGraph chainWithExtras(int n, int extra, int reach, uint32_t seed) {
  std::mt19937_64 rng(seed);
  FlowGraph g(n);
  for (int v = 0; v + 1 < n; ++v)
    g.addEdge(v, v + 1, 1 + static_cast<int64_t>(rng() % 1000000000));
  for (int i = 0; i < extra; ++i) {
    int from = static_cast<int>(rng() % n);
    int to;
    if (reach == 0) {
      to = static_cast<int>(rng() % n);
    } else {
      to = from + static_cast<int>(rng() % (2 * reach + 1)) - reach;
      to = std::clamp(to, 0, n - 1);
    }
    int64_t cap = rng() % 50 == 0 ? kInf : 1 + static_cast<int64_t>(rng() % 1000000000);
    g.addEdge(from, to, cap);
  }
  return g;
}

int64_t timedMaxFlow(FlowGraph &g, int s, int t, const char *what) {
  auto start = std::chrono::steady_clock::now();
  int64_t value = g.maxFlow(s, t);
  double ms = std::chrono::duration<double, std::milli>(
                  std::chrono::steady_clock::now() - start)
                  .count();
  std::printf("[ maxflow  ] %s: %d nodes, %d edges, flow %lld, %.1f ms\n", what,
              g.getNumNodes(), g.getNumEdges(), static_cast<long long>(value), ms);
  return value;
}

TEST(MaxFlow, LongChainDoesNotRecurse) {
  // One augmenting path of 100000 arcs; the bottleneck is the smallest edge.
  int n = 100000;
  FlowGraph g(n);
  std::mt19937_64 rng(7);
  int64_t smallest = kInf;
  for (int v = 0; v + 1 < n; ++v) {
    int64_t cap = 1000 + static_cast<int64_t>(rng() % 1000000);
    smallest = std::min(smallest, cap);
    g.addEdge(v, v + 1, cap);
  }
  EXPECT_EQ(timedMaxFlow(g, 0, g.getNumNodes() - 1, "bare chain"), smallest);
  EXPECT_EQ(g.cutEdgeIds().size(), 1u);
}

TEST(MaxFlow, LongChainWithLocalEdges) {
  FlowGraph g = chainWithExtras(100000, 200000, 8, 11);
  int64_t value = timedMaxFlow(g, 0, g.getNumNodes() - 1, "chain + local edges");
  expectValidFlowAndCut(g, 0, g.getNumNodes() - 1, value);
}

TEST(MaxFlow, LongChainWithRandomEdges) {
  FlowGraph g = chainWithExtras(100000, 200000, 0, 13);
  int64_t value = timedMaxFlow(g, 0, g.getNumNodes() - 1, "chain + random edges");
  expectValidFlowAndCut(g, 0, g.getNumNodes() - 1, value);
}

TEST(MaxFlow, RematShapedGraph) {
  // The shape trace-remat builds: each of 50000 ops is split into in -> out
  // with its output's size as capacity; data edges out -> in are infinite;
  // the source feeds the model inputs and the ops that may not be
  // recomputed, the sink takes the values the backward reads. Operands are
  // mostly recent, sometimes far back (residual connections).
  int ops = 50000;
  std::mt19937_64 rng(17);
  FlowGraph g;
  int s = g.addNode(), t = g.addNode();
  int first = g.addNodes(2 * ops);
  auto in = [&](int op) { return first + 2 * op; };
  auto out = [&](int op) { return first + 2 * op + 1; };
  for (int op = 0; op < ops; ++op) {
    g.addEdge(in(op), out(op), 4096 * static_cast<int64_t>(1 + rng() % 256));
    if (op < 16 || rng() % 20 == 0)
      g.addEdge(s, in(op), kInf);
    if (op > 0)
      g.addEdge(out(op - 1), in(op), kInf);
    if (op > 1 && rng() % 2 == 0)
      g.addEdge(out(op - 2 - static_cast<int>(rng() % std::min(op - 1, 64))), in(op),
                kInf);
    if (op > 0 && rng() % 50 == 0)
      g.addEdge(out(static_cast<int>(rng() % op)), in(op), kInf);
    if (rng() % 3 == 0)
      g.addEdge(out(op), t, kInf);
  }
  int64_t value = timedMaxFlow(g, s, t, "remat-shaped DAG");
  expectValidFlowAndCut(g, s, t, value);
  // Every cut edge is an op's in -> out edge: the data edges are infinite.
  for (int e : g.cutEdgeIds())
    EXPECT_EQ(g.getEdge(e).to, g.getEdge(e).from + 1);
}

} // namespace
