//===- CheckpointRegions.cpp - trace.checkpoint regions of a program ------===//
//
// After the walk, the ops of each checkpointed stretch of the graph are
// wrapped into a `trace.checkpoint` region. A region is
//   * a module call a node's `nn_module_stack` shows: a CheckpointWrapper,
//     or a module --checkpoint-modules matches by path or class name; named
//     by its module path, as the TorchScript importer names it;
//   * a `torch.utils.checkpoint` call trace_mlir's export marked: the
//     node's custom metadata `trace_mlir.checkpoint` lists the calls it ran
//     under, outermost first, as {"id": INT, "name": STR}; named by `name`.
// Each is a run of consecutive nodes (nodes that emit no op aside), so
// regions nest as runs do; a marked call whose nodes are not one run, or two
// regions that overlap without nesting, are errors rather than a wrong
// region. Ops are moved into regions innermost first, as
// Importer/CheckpointCalls does for TorchScript's calls: a region's inputs
// are the values its ops read from outside (regions are isolated from
// above), its results the values read after it.
//
// The module path also names values: the op computing a value a module
// returns gets `trace.name` = the module's path (`%blocks.0.attn.proj`),
// the innermost module the value leaves, as the TorchScript importer names
// a submodule call's result.
//
//===----------------------------------------------------------------------===//

#include "Importer.h"

#include "trace/Dialect/Trace/IR/TraceDialect.h"
#include "trace/Dialect/Trace/IR/TraceInterfaces.h"

#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringMap.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::trace;
using namespace mlir::trace::pt2;

bool Importer::isCheckpointModule(const ModuleFrame &frame) {
  StringRef className = frame.className;
  StringRef shortName = className.rsplit('.').second;
  if (shortName.empty())
    shortName = className;
  if (shortName == "CheckpointWrapper" &&
      className.contains("checkpoint_wrapper"))
    return true;
  if (!checkpointRegex)
    return false;
  for (StringRef candidate : {StringRef(frame.path), shortName, className})
    if (checkpointRegex->match(candidate))
      return true;
  return false;
}

void Importer::nameModuleOutputs(const ex::Graph &graph) {
  for (auto [i, node] : llvm::enumerate(graph.get_nodes())) {
    const NodeInfo &info = nodes[i];
    if (info.modules.empty())
      continue;
    for (const ex::Argument &out : node.get_outputs()) {
      if (out.tag() != ex::Argument::Tag::AS_TENSOR)
        continue;
      const std::string &name = out.get_as_tensor().get_name();
      auto users = usersOf.find(name);
      auto value = values.find(name);
      if (users == usersOf.end() || value == values.end())
        continue;
      // The innermost module the value leaves: read outside its call, or
      // returned by the program (a buffer's new value is no module's
      // result: BatchNorm's running statistics stay unnamed).
      const ModuleFrame *leaves = nullptr;
      for (const ModuleFrame &frame : llvm::reverse(info.modules)) {
        bool escapes = llvm::any_of(users->second, [&](unsigned user) {
          if (user == kBufferOutput)
            return false;
          return user == kProgramOutput ||
                 llvm::none_of(nodes[user].modules,
                               [&](const ModuleFrame &f) {
                                 return f.key == frame.key;
                               });
        });
        if (escapes) {
          leaves = &frame;
          break;
        }
      }
      if (!leaves || leaves->path.empty())
        continue;
      // A region's result reads as the region (`%outer`), which carries the
      // name: CheckpointWrapper's inner module has the wrapper's path.
      if (llvm::any_of(info.modules, [&](const ModuleFrame &f) {
            return f.path == leaves->path && isCheckpointModule(f);
          }))
        continue;
      Operation *def = value->second.getDefiningOp();
      if (!def || nodeOfOp.lookup(def) != i ||
          def->hasAttr(TraceDialect::kNameAttrName))
        continue;
      def->setAttr(TraceDialect::kNameAttrName,
                   builder.getStringAttr(leaves->path));
    }
  }
}

namespace {
/// One region: a run of nodes [first, last].
struct Run {
  std::string name;
  std::string site; ///< a marked call's `name` as written (`FILE:LINE`)
  bool fromModule = false;
  unsigned first = 0, last = 0;
  /// Orders regions over the same nodes: calls outside modules, outer
  /// ones first.
  unsigned rank = 0;
};
} // namespace

/// The call site `file:line` a marker's name gives, if it is one.
static std::optional<std::pair<std::string, unsigned>>
callSite(StringRef name) {
  auto [file, line] = name.rsplit(':');
  unsigned n;
  if (file.empty() || line.getAsInteger(10, n))
    return std::nullopt;
  return std::make_pair(file.str(), n);
}

LogicalResult Importer::formRegions(func::FuncOp func) {
  // Only nodes that emitted ops count: a region's run may step over a size
  // computation or a dead node. A module's run also steps over nodes that
  // record no module stack (they could be anywhere).
  std::vector<unsigned> position(nodes.size(), ~0u);
  std::vector<unsigned> modulePosition(nodes.size(), ~0u);
  std::vector<unsigned> emitting;
  unsigned anchored = 0;
  for (auto [i, info] : llvm::enumerate(nodes))
    if (info.emittedOps) {
      position[i] = emitting.size();
      emitting.push_back(i);
      if (info.hasModuleStack)
        modulePosition[i] = anchored++;
    }

  // The nodes of each region, by key, in graph order.
  struct Found {
    std::string name;
    bool fromModule;
    unsigned rank;
    std::vector<unsigned> nodes;
  };
  std::vector<Found> found;
  llvm::StringMap<unsigned> indexOf; // key -> index into found
  auto note = [&](const std::string &key, const std::string &name,
                  bool fromModule, unsigned rank, unsigned node) {
    auto [it, inserted] = indexOf.try_emplace(key, found.size());
    if (inserted)
      found.push_back({name, fromModule, rank, {}});
    found[it->second].nodes.push_back(node);
  };
  for (unsigned i : emitting) {
    const NodeInfo &info = nodes[i];
    for (auto [rank, call] : llvm::enumerate(info.calls))
      note("call:" + std::to_string(call.first), call.second, false, rank, i);
    std::string enclosing; // a wrapper and its inner module: one region
    for (auto [depth, frame] : llvm::enumerate(info.modules)) {
      if (!isCheckpointModule(frame) || frame.path == enclosing)
        continue;
      enclosing = frame.path;
      note("module:" + frame.key, frame.path, true, 1000 + depth, i);
    }
  }

  // Runs: a module called twice is two regions of one name; a marked call
  // is one call, so a gap in it is an error.
  std::vector<Run> runs;
  llvm::StringMap<unsigned> namesUsed;
  for (Found &f : found) {
    std::string name = f.name;
    if (!f.fromModule) {
      unsigned &uses = namesUsed[name];
      if (uses++ > 0)
        name += "#" + std::to_string(uses);
    }
    const std::vector<unsigned> &at = f.fromModule ? modulePosition : position;
    size_t start = 0;
    for (size_t k = 1; k <= f.nodes.size(); ++k) {
      if (k < f.nodes.size() && at[f.nodes[k]] == at[f.nodes[k - 1]] + 1)
        continue;
      if (k < f.nodes.size() && !f.fromModule) {
        unsigned gap = emitting[position[f.nodes[k - 1]] + 1];
        emitError(nodes[gap].loc)
            << "checkpoint region '" << name
            << "' is not contiguous in the graph: node '"
            << graph->get_nodes()[gap].get_name().value_or("?")
            << "' runs between its nodes outside it; its ops cannot form "
               "one region";
        return failure();
      }
      runs.push_back({name, f.name, f.fromModule, f.nodes[start],
                      f.nodes[k - 1], f.rank});
      start = k;
    }
  }
  llvm::stable_sort(runs, [](const Run &a, const Run &b) {
    if (a.first != b.first)
      return a.first < b.first;
    if (a.last != b.last)
      return a.last > b.last;
    return a.rank < b.rank;
  });
  // Runs nest or are apart.
  SmallVector<const Run *> open;
  for (const Run &run : runs) {
    while (!open.empty() && open.back()->last < run.first)
      open.pop_back();
    if (!open.empty() && open.back()->last < run.last) {
      emitError(nodes[run.first].loc)
          << "checkpoint regions '" << open.back()->name << "' and '"
          << run.name
          << "' overlap without one holding the other; they cannot both be "
             "regions";
      return failure();
    }
    open.push_back(&run);
  }

  // Innermost first: a region's ops, in the function's block, are those of
  // its nodes (an inner region is one op by then).
  Block &body = func.getBody().front();
  OpBuilder b(ctx);
  // --report-checkpoint-calls' remarks, emitted in program order.
  std::vector<std::pair<Location, std::string>> remarks(runs.size(),
                                                        {func.getLoc(), ""});
  for (size_t index = runs.size(); index-- > 0;) {
    const Run &run = runs[index];
    SmallVector<Operation *> ops;
    for (Operation &op : body.without_terminator()) {
      auto it = nodeOfOp.find(&op);
      if (it != nodeOfOp.end() && it->second >= run.first &&
          it->second <= run.last)
        ops.push_back(&op);
    }
    if (ops.empty())
      continue;
    Location inner = nodes[run.first].loc;
    if (auto named = dyn_cast<NameLoc>(inner))
      inner = named.getChildLoc();
    std::optional<std::pair<std::string, unsigned>> site;
    if (!run.fromModule)
      site = callSite(run.site);
    if (site)
      inner = FileLineColLoc::get(ctx, site->first, site->second, 0);
    Location loc = NameLoc::get(StringAttr::get(ctx, run.name), inner);

    llvm::SmallPtrSet<Operation *, 16> inRun(ops.begin(), ops.end());
    llvm::SetVector<Value> inputs;
    SmallVector<Value> results;
    for (Operation *op : ops) {
      // Every region op of the dialect is isolated from above, so a run's
      // inputs are its ops' operands.
      for (Value operand : op->getOperands()) {
        Operation *def = operand.getDefiningOp();
        if (!def || !inRun.contains(def))
          inputs.insert(operand);
      }
      for (Value result : op->getResults())
        if (llvm::any_of(result.getUsers(), [&](Operation *user) {
              return !inRun.contains(user);
            }))
          results.push_back(result);
    }
    b.setInsertionPoint(ops.front());
    SmallVector<Type> types;
    for (Value v : results)
      types.push_back(v.getType());
    auto region = CheckpointOp::create(b, loc, types, inputs.getArrayRef(),
                                       b.getStringAttr(run.name),
                                       CheckpointPolicyAttr());
    nodeOfOp[region] = run.first;
    // A module's region reads as the module's value (%blocks.0); a call
    // site makes no readable SSA name.
    if (run.fromModule)
      region->setAttr(TraceDialect::kNameAttrName, b.getStringAttr(run.name));
    Block *block = new Block();
    region.getBody().push_back(block);
    for (Value v : inputs)
      block->addArgument(v.getType(), v.getLoc());
    for (Operation *op : ops)
      op->moveBefore(block, block->end());
    for (auto [k, arg] : llvm::enumerate(block->getArguments()))
      Value(inputs[k]).replaceUsesWithIf(arg, [&](OpOperand &use) {
        return region->isProperAncestor(use.getOwner());
      });
    b.setInsertionPointToEnd(block);
    YieldOp::create(b, loc, results);
    for (auto [value, result] : llvm::zip(results, region.getResults()))
      value.replaceUsesWithIf(result, [&](OpOperand &use) {
        return !region->isAncestor(use.getOwner());
      });

    if (options.reportCheckpointCalls && !run.fromModule) {
      int64_t bytes = 0;
      for (Value v : inputs)
        bytes += getTensorBytes(v.getType());
      llvm::raw_string_ostream remark(remarks[index].second);
      remarks[index].first = loc;
      remark << "checkpoint call '" << run.name << "': ";
      if (site)
        remark << "call site " << site->first << ":" << site->second << "; ";
      remark << ops.size() << (ops.size() == 1 ? " op, " : " ops, ")
             << inputs.size() << (inputs.size() == 1 ? " input, " : " inputs, ")
             << bytes << " bytes in";
    }
  }
  for (const auto &[loc, text] : remarks)
    if (!text.empty())
      emitRemark(loc) << text;
  return success();
}
