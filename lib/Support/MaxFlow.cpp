//===- MaxFlow.cpp - Dinic's maximum flow ---------------------------------===//

#include "trace/Support/MaxFlow.h"

#include <algorithm>
#include <cassert>

using namespace mlir::trace;

int FlowGraph::addEdge(int from, int to, int64_t capacity) {
  assert(from >= 0 && from < numNodes && to >= 0 && to < numNodes &&
         "edge endpoint out of range");
  assert(capacity >= 0 && "negative capacity");
  edges.push_back({from, to, std::max<int64_t>(capacity, 0)});
  return static_cast<int>(edges.size()) - 1;
}

/// Breadth-first search from `source` over arcs with residual capacity,
/// assigning each node its distance (-1: not reached). Stops as soon as the
/// sink is labelled: nodes further away cannot lie on a shortest path.
bool FlowGraph::buildLevels(int source, int sink) {
  std::fill(level.begin(), level.end(), -1);
  std::vector<int> queue;
  queue.reserve(numNodes);
  queue.push_back(source);
  level[source] = 0;
  for (size_t head = 0; head < queue.size(); ++head) {
    int u = queue[head];
    for (int a = arcBegin[u], e = arcBegin[u + 1]; a < e; ++a) {
      int v = arcHead[a];
      if (arcResidual[a] == 0 || level[v] >= 0)
        continue;
      level[v] = level[u] + 1;
      if (v == sink)
        return true;
      queue.push_back(v);
    }
  }
  return false;
}

/// Pushes a blocking flow through the level graph and returns its value.
/// The search keeps the current path as a stack of arcs instead of
/// recursing. Every path it finds has a finite arc (maxFlow rules out paths
/// of infinite arcs first), so each augmentation is finite.
int64_t FlowGraph::blockingFlow(int source, int sink) {
  for (int v = 0; v < numNodes; ++v)
    currentArc[v] = arcBegin[v];
  std::vector<int> path;
  int64_t total = 0;
  int u = source;
  while (true) {
    if (u == sink) {
      int64_t pushed = FlowGraph::kInfinite;
      for (int a : path)
        pushed = std::min(pushed, arcResidual[a]);
      assert(pushed > 0 && pushed < kInfinite && "augmenting path is not finite");
      size_t firstSaturated = path.size();
      for (size_t i = 0; i < path.size(); ++i) {
        int a = path[i];
        if (arcResidual[a] != kInfinite)
          arcResidual[a] -= pushed;
        arcResidual[arcTwin[a]] = saturatingAdd(arcResidual[arcTwin[a]], pushed);
        if (arcResidual[a] == 0 && firstSaturated == path.size())
          firstSaturated = i;
      }
      total = saturatingAdd(total, pushed);
      if (total == kInfinite)
        return total;
      // Resume from the tail of the first saturated arc; the arcs before it
      // still have residual capacity.
      path.resize(firstSaturated);
      u = path.empty() ? source : arcHead[path.back()];
      continue;
    }
    int end = arcBegin[u + 1];
    int &a = currentArc[u];
    while (a < end && (arcResidual[a] == 0 || level[arcHead[a]] != level[u] + 1))
      ++a;
    if (a < end) {
      path.push_back(a);
      u = arcHead[a];
      continue;
    }
    // Dead end: no path to the sink through u in this phase.
    if (u == source)
      return total;
    level[u] = -1;
    int back = path.back();
    path.pop_back();
    u = arcHead[arcTwin[back]];
    ++currentArc[u];
  }
}

int64_t FlowGraph::maxFlow(int source, int sink) {
  assert(source >= 0 && source < numNodes && sink >= 0 && sink < numNodes &&
         "terminal out of range");
  assert(source != sink && "source and sink must differ");

  // Build the residual graph: one forward and one reverse arc per edge.
  int numEdges = static_cast<int>(edges.size());
  arcBegin.assign(numNodes + 1, 0);
  for (const Edge &edge : edges) {
    ++arcBegin[edge.from + 1];
    ++arcBegin[edge.to + 1];
  }
  for (int v = 0; v < numNodes; ++v)
    arcBegin[v + 1] += arcBegin[v];
  std::vector<int> fill(arcBegin.begin(), arcBegin.end() - 1);
  arcHead.assign(2 * numEdges, 0);
  arcTwin.assign(2 * numEdges, 0);
  arcResidual.assign(2 * numEdges, 0);
  edgeArc.assign(numEdges, 0);
  for (int e = 0; e < numEdges; ++e) {
    const Edge &edge = edges[e];
    int fwd = fill[edge.from]++;
    int rev = fill[edge.to]++;
    arcHead[fwd] = edge.to;
    arcHead[rev] = edge.from;
    arcTwin[fwd] = rev;
    arcTwin[rev] = fwd;
    arcResidual[fwd] = edge.capacity;
    edgeArc[e] = fwd;
  }
  level.assign(numNodes, -1);
  currentArc.assign(numNodes, 0);
  lastSink = sink;

  // The residual reachability from the source, as the cut's source side.
  auto markReachable = [&](bool infiniteOnly) {
    reachable.assign(numNodes, false);
    std::vector<int> stack = {source};
    reachable[source] = true;
    while (!stack.empty()) {
      int u = stack.back();
      stack.pop_back();
      for (int a = arcBegin[u], e = arcBegin[u + 1]; a < e; ++a) {
        int v = arcHead[a];
        int64_t residual = arcResidual[a];
        if (reachable[v] || residual == 0 || (infiniteOnly && residual != kInfinite))
          continue;
        reachable[v] = true;
        stack.push_back(v);
      }
    }
  };

  // A path of infinite edges: no finite cut. Report it before pushing any
  // flow, so that every augmenting path below has a finite bottleneck.
  markReachable(/*infiniteOnly=*/true);
  if (reachable[sink]) {
    markReachable(/*infiniteOnly=*/false);
    return kInfinite;
  }

  int64_t total = 0;
  while (total != kInfinite && buildLevels(source, sink))
    total = saturatingAdd(total, blockingFlow(source, sink));
  markReachable(/*infiniteOnly=*/false);
  return total;
}

std::vector<int> FlowGraph::cutEdgeIds() const {
  std::vector<int> ids;
  int known = static_cast<int>(reachable.size());
  if (lastSink < 0 || reachable[lastSink])
    return ids;
  for (int e = 0, n = static_cast<int>(edgeArc.size()); e < n; ++e) {
    const Edge &edge = edges[e];
    if (edge.from < known && edge.to < known && reachable[edge.from] &&
        !reachable[edge.to])
      ids.push_back(e);
  }
  return ids;
}

std::vector<std::pair<int, int>> FlowGraph::cutEdges() const {
  std::vector<std::pair<int, int>> pairs;
  for (int e : cutEdgeIds())
    pairs.emplace_back(edges[e].from, edges[e].to);
  return pairs;
}

int64_t FlowGraph::flow(int edge) const {
  assert(edge >= 0 && edge < static_cast<int>(edges.size()) && "edge out of range");
  if (edge >= static_cast<int>(edgeArc.size()))
    return 0; // Added after the last maxFlow call.
  return arcResidual[arcTwin[edgeArc[edge]]];
}
