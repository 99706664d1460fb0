//===- MaxFlow.h - maximum flow and minimum cut -------------------*- C++ -*-===//
//
// The graph solver of `trace-remat`: a minimum s-t cut of a directed graph
// with int64 capacities (bytes saved for backward), as in AOTAutograd's
// min_cut_rematerialization_partition and Thunder's rematerialization. Edges
// that must not be cut carry `kInfinite`.
//
// Algorithm: Dinic's (BFS levels, then blocking flows along level-increasing
// arcs with current-arc pointers), O(V^2 E) in the worst case and far less on
// the layered DAGs a training step gives. The blocking-flow search is
// iterative, with an explicit path stack: the data-flow graph of a deep model
// is a chain of 10^5 nodes, and a recursive DFS would overflow the stack.
// Adjacency is rebuilt as compressed arrays (CSR) for each `maxFlow` call.
//
// Written here rather than taken from a library: LLVM and MLIR have no
// max-flow, Boost (boykov_kolmogorov / push_relabel) is a dependency the
// project does not take, and the remat pass needs infinite capacities with
// defined overflow behaviour, which generic solvers leave to the caller.
//
// Infinite capacities. A capacity at or above `kInfinite` is infinite: the
// residual capacity of such an edge never decreases. Flow values saturate at
// `kInfinite`. `maxFlow` returns the capacity of a minimum cut where the sum
// saturates at `kInfinite`; in particular it returns `kInfinite` when every
// cut crosses an infinite edge (t is reachable from s through infinite edges
// alone), or when the finite capacities of the cheapest cut add up to
// `kInfinite` or more.
//
//===----------------------------------------------------------------------===//

#ifndef TRACE_SUPPORT_MAXFLOW_H
#define TRACE_SUPPORT_MAXFLOW_H

#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

namespace mlir::trace {

class FlowGraph {
public:
  /// The capacity of an edge that must not be cut.
  static constexpr int64_t kInfinite = std::numeric_limits<int64_t>::max();

  FlowGraph() = default;
  explicit FlowGraph(int numNodes) : numNodes(numNodes) {}

  /// Adds a node and returns its index (nodes are 0, 1, 2, ...).
  int addNode() { return numNodes++; }
  /// Adds `count` nodes and returns the index of the first.
  int addNodes(int count) {
    int first = numNodes;
    numNodes += count;
    return first;
  }
  int getNumNodes() const { return numNodes; }
  int getNumEdges() const { return static_cast<int>(edges.size()); }

  /// Adds a directed edge and returns its index (edges are 0, 1, 2, ...).
  /// `capacity` must be >= 0; `kInfinite` marks an edge that must not be cut.
  /// Parallel and antiparallel edges are allowed and stay distinct; a
  /// self-loop is allowed and carries no flow.
  int addEdge(int from, int to, int64_t capacity);

  /// Computes a maximum flow from `source` to `sink` (which must differ) and
  /// returns its value, which equals the capacity of a minimum cut (see the
  /// file comment for `kInfinite`). May be called again, with other
  /// terminals or after adding edges; each call starts from zero flow.
  int64_t maxFlow(int source, int sink);

  // After `maxFlow`:

  /// The nodes reachable from the source in the residual graph: the source
  /// side of the minimum cut closest to the source. When `maxFlow` returned
  /// `kInfinite` this set may contain the sink.
  std::vector<bool> sourceSide() const { return reachable; }
  /// The edges from the source side to the rest, as (from, to) pairs in edge
  /// order; their capacities add up to the flow value. Empty when the sink
  /// is on the source side.
  std::vector<std::pair<int, int>> cutEdges() const;
  /// The same edges by index, for graphs with parallel edges.
  std::vector<int> cutEdgeIds() const;
  /// The flow on edge `edge` (at most its capacity).
  int64_t flow(int edge) const;

  struct Edge {
    int from;
    int to;
    int64_t capacity;
  };
  const Edge &getEdge(int edge) const { return edges[edge]; }

private:
  bool buildLevels(int source, int sink);
  int64_t blockingFlow(int source, int sink);

  int numNodes = 0;
  std::vector<Edge> edges;

  // The residual graph of the last `maxFlow` call, in CSR form: the arcs of
  // node v are arcBegin[v] .. arcBegin[v + 1]; each edge has a forward arc
  // (edgeArc[e]) and a reverse arc (arcTwin of it).
  std::vector<int> arcBegin;
  std::vector<int> arcHead;
  std::vector<int> arcTwin;
  std::vector<int64_t> arcResidual;
  std::vector<int> edgeArc;

  std::vector<int> level;
  std::vector<int> currentArc;
  std::vector<bool> reachable;
  int lastSink = -1;
};

/// a + b for non-negative a and b, saturating at FlowGraph::kInfinite.
inline int64_t saturatingAdd(int64_t a, int64_t b) {
  return a >= FlowGraph::kInfinite - b ? FlowGraph::kInfinite : a + b;
}

} // namespace mlir::trace

#endif // TRACE_SUPPORT_MAXFLOW_H
