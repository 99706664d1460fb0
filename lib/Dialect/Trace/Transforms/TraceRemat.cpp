//===- TraceRemat.cpp - min-cut rematerialization under a budget ----------===//
//
// Re-partitions each @f_grad that trace-autodiff made into @f_fwd and @f_bwd:
// the forward ops and arguments become a RematPlanner graph (the cost
// policy, RematPolicy below, decides each node's costs and constraints), the
// planner chooses what is saved and what recomputed, and the shared split
// (Autodiff.h) rebuilds @f_fwd/@f_bwd from that choice. A walk, not patterns:
// the decision is global.
//
//===----------------------------------------------------------------------===//

#include "trace/Dialect/Trace/IR/TraceOps.h"
#include "trace/Dialect/Trace/Transforms/Autodiff.h"
#include "trace/Dialect/Trace/Transforms/Passes.h"
#include "trace/Dialect/Trace/Analysis/RematPlanner.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Debug.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>
#include <optional>

#define DEBUG_TYPE "trace-remat"

namespace mlir::trace {
#define GEN_PASS_DEF_TRACEREMATPASS
#include "trace/Dialect/Trace/Transforms/Passes.h.inc"
} // namespace mlir::trace

using namespace mlir;
using namespace mlir::trace;

namespace {

/// The cost rules and user constraints that turn a forward op into a
/// planner node: what may not be recomputed by the plain cut, what must or
/// should be saved. Built from the pass options.
struct RematPolicy {
  bool saveMatmuls = true;
  int64_t maxRecomputeReduction = 4096;
  int64_t maxRecomputeContraction = 64;
  llvm::StringSet<> saveNames;

  /// Fills `node`'s constraints for `op`, or fails with an error at `op`.
  LogicalResult classify(Operation *op, remat::Node &node,
                         function_ref<bool(Operation *)> isForward) const {
    bool checkpointed = op->hasAttr(kCheckpointedAttrName);
    auto name = op->getAttrOfType<StringAttr>(TraceDialect::kNameAttrName);
    bool named = name && saveNames.contains(name.getValue());
    StringRef policy;
    if (Attribute attr = op->getAttr(kRematAttrName)) {
      auto str = dyn_cast<StringAttr>(attr);
      if (!str || !llvm::is_contained({"must_save", "prefer_save",
                                       "must_recompute", "prefer_recompute"},
                                      str.getValue()))
        return op->emitOpError()
               << "has " << kRematAttrName << " = " << attr
               << "; expected \"must_save\", \"prefer_save\", "
                  "\"must_recompute\" or \"prefer_recompute\"";
      policy = str.getValue();
    }
    if (named && policy == "must_recompute")
      return op->emitOpError()
             << "is named in save-names and has " << kRematAttrName
             << " = \"must_recompute\"";
    // The user's word on the op or its name comes first, then checkpoint
    // regions, then the cost rules.
    if (named || policy == "must_save") {
      node.mustSave = true;
      return success();
    }
    if (policy == "must_recompute") {
      node.mustRecompute = true;
      return success();
    }
    if (policy == "prefer_save") {
      node.saveWeight = 0.5;
      return success();
    }
    if (policy == "prefer_recompute") {
      node.saveWeight = 2.0;
      node.mustRecompute = checkpointed;
      return success();
    }
    if (checkpointed) {
      node.mustRecompute = true;
      return success();
    }
    // Code with effects, or regions, is not ours to run twice.
    if (op->getNumRegions() != 0 || !isMemoryEffectFree(op)) {
      node.mustSave = true;
      return success();
    }
    node.banned = isExpensive(op) || entersCheckpoint(op) ||
                  leavesCheckpoint(op, isForward);
    return success();
  }

  /// A value computed outside a checkpoint region and read inside it (the
  /// region's input, such as the previous block's output) is saved, as
  /// torch.utils.checkpoint saves a region's inputs: the plain cut does not
  /// recompute it. Otherwise the cut recomputes a stack of regions from its
  /// first input: each region's body is recomputed anyway, so that costs
  /// few FLOPs, but the whole stack is rebuilt when the last region's
  /// backward starts, and every region's activations are live at once:
  /// the backward's peak grows with the number of blocks.
  /// A checkpoint region's output (computed from its recomputed values)
  /// that a forward op outside every region reads, such as the last
  /// block's output the final layer norm reads, is saved as well: the
  /// output of torch.utils.checkpoint is a tensor the next op saves.
  /// Recomputed, the whole last block ran again at the start of the
  /// backward, while the loss's gradient (the logits' size) waited for the
  /// head's weight gradient, which needs the layer norm's output.
  static bool leavesCheckpoint(Operation *op,
                               function_ref<bool(Operation *)> isForward) {
    return llvm::any_of(op->getOperands(),
                        [](Value operand) {
                          Operation *def = operand.getDefiningOp();
                          return def && def->hasAttr(kCheckpointedAttrName);
                        }) &&
           llvm::any_of(op->getUsers(), [&](Operation *user) {
             return isForward(user) && !user->hasAttr(kCheckpointedAttrName);
           });
  }

  static bool entersCheckpoint(Operation *op) {
    return !op->hasAttr(kCheckpointedAttrName) &&
           llvm::any_of(op->getUsers(), [](Operation *user) {
             return user->hasAttr(kCheckpointedAttrName);
           });
  }

  /// Whether `value` is an argument (a weight, the batch) or a constant
  /// (a weight folded into the module) seen through views: a linear
  /// layer's weight operand is its parameter transposed.
  static bool isArgumentView(Value value) {
    while (Operation *op = value.getDefiningOp()) {
      if (isRebuiltSource(op))
        return true;
      if (!isa<TransposeOp, ReshapeOp, BroadcastInDimOp, SliceOp, ConvertOp>(
              op))
        return false;
      value = op->getOperand(0);
    }
    return true;
  }

  /// Work the plain cut does not redo: matmuls and convolutions (O(n^3)
  /// for O(n^2) bytes) and reductions of many elements into each output
  /// element. A matmul of two activations over a short contraction
  /// (attention's scores, over a head's width) is O(K) per output element,
  /// and its output outweighs its operands: it is redone like elementwise
  /// work. A linear layer (one operand a weight) is not, however narrow.
  bool isExpensive(Operation *op) const {
    if (auto matmul = dyn_cast<MatmulOp>(op)) {
      auto lhs = cast<RankedTensorType>(matmul.getLhs().getType());
      int64_t k = lhs.getRank() == 0 ? 1 : lhs.getShape().back();
      bool shortContraction =
          !ShapedType::isDynamic(k) && k <= maxRecomputeContraction;
      return saveMatmuls &&
             !(shortContraction && !isArgumentView(matmul.getLhs()) &&
               !isArgumentView(matmul.getRhs()));
    }
    if (isa<ConvolutionOp>(op))
      return saveMatmuls;
    if (op->hasTrait<trace::OpTrait::ReductionOp>() &&
        op->getNumOperands() > 0 && op->getNumResults() > 0) {
      auto in = dyn_cast<RankedTensorType>(op->getOperand(0).getType());
      auto out = dyn_cast<RankedTensorType>(op->getResult(0).getType());
      if (in && out && out.getNumElements() > 0)
        return in.getNumElements() / out.getNumElements() >
               maxRecomputeReduction;
    }
    return false;
  }
};

/// A budget option: a fraction of the plain cut or a byte count.
struct Budget {
  std::optional<double> fraction;
  std::optional<int64_t> bytes;

  int64_t resolve(int64_t plainBytes) const {
    if (bytes)
      return *bytes;
    return static_cast<int64_t>(std::floor(*fraction * double(plainBytes)));
  }
};

/// Parses "0.5", "200000", "200KB", "1.5MiB", "64 B". A number from 0 to 1
/// without a unit is a fraction; anything else is bytes.
std::optional<Budget> parseBudget(StringRef text) {
  text = text.trim();
  size_t end = text.find_first_not_of("0123456789.eE+-");
  StringRef number = text.take_front(end);
  StringRef unit = text.drop_front(number.size()).trim();
  double value;
  if (number.empty() || number.getAsDouble(value) || !std::isfinite(value) ||
      value < 0)
    return std::nullopt;
  Budget budget;
  if (unit.empty() && value <= 1) {
    budget.fraction = value;
    return budget;
  }
  double scale = llvm::StringSwitch<double>(unit.lower())
                     .Case("", 1)
                     .Case("b", 1)
                     .Case("kb", 1e3)
                     .Case("mb", 1e6)
                     .Case("gb", 1e9)
                     .Case("kib", 1024.0)
                     .Case("mib", 1024.0 * 1024)
                     .Case("gib", 1024.0 * 1024 * 1024)
                     .Default(-1);
  if (scale < 0 || value * scale >= 9e18)
    return std::nullopt;
  budget.bytes = static_cast<int64_t>(std::llround(value * scale));
  return budget;
}

struct TraceRematPass final : trace::impl::TraceRematPassBase<TraceRematPass> {
  using Base::Base;

  void runOnOperation() override {
    std::optional<Budget> parsedBudget;
    if (!budget.empty()) {
      parsedBudget = parseBudget(budget);
      if (!parsedBudget) {
        emitError(getOperation().getLoc())
            << "trace-remat: cannot parse budget '" << budget
            << "': expected a fraction from 0 to 1 or a byte count such as "
               "200000, 200KB or 1.5MiB";
        return signalPassFailure();
      }
    }
    RematPolicy policy;
    policy.saveMatmuls = saveMatmuls;
    policy.maxRecomputeReduction = maxRecomputeReduction;
    policy.maxRecomputeContraction = maxRecomputeContraction;
    for (const std::string &name : saveNames)
      policy.saveNames.insert(name);

    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    SmallVector<func::FuncOp> primals;
    for (auto func : module.getOps<func::FuncOp>())
      if (func->hasAttr(TraceDialect::kDerivativesAttrName))
        primals.push_back(func);
    for (func::FuncOp f : primals)
      if (failed(rematerialize(f, symbols, policy, parsedBudget)))
        return signalPassFailure();
  }

  LogicalResult rematerialize(func::FuncOp f, SymbolTable &symbols,
                              const RematPolicy &policy,
                              const std::optional<Budget> &budgetSpec);
};

LogicalResult
TraceRematPass::rematerialize(func::FuncOp f, SymbolTable &symbols,
                              const RematPolicy &policy,
                              const std::optional<Budget> &budgetSpec) {
  FailureOr<Derivatives> derivatives = lookupDerivatives(f, symbols);
  if (failed(derivatives))
    return failure();
  func::FuncOp grad = derivatives->grad;
  StringRef gradName = grad.getSymName();
  StringRef base = f.getSymName();
  FailureOr<JointOps> joint = getJointOps(f, grad);
  if (failed(joint))
    return failure();
  ArrayRef<Operation *> forwardOps = joint->forward;
  ArrayRef<Operation *> backwardOps = joint->backward;
  Block &block = grad.getBody().front();
  func::ReturnOp ret = joint->ret;
  unsigned numArgs = f.getNumArguments(), numResults = f.getNumResults();

  // The graph: @f's arguments, then the forward ops.
  std::vector<remat::Node> nodes(numArgs);
  DenseMap<Value, int> nodeOf;
  for (unsigned i = 0; i < numArgs; ++i) {
    nodes[i].kind = remat::Node::Kind::Argument;
    nodes[i].bytes = getTensorBytes(block.getArgument(i).getType());
    nodeOf[block.getArgument(i)] = i;
  }
  DenseMap<Operation *, int> opNode;
  llvm::DenseSet<Operation *> forwardSet(forwardOps.begin(),
                                         forwardOps.end());
  for (Operation *op : forwardOps) {
    remat::Node node;
    for (Value operand : op->getOperands()) {
      auto it = nodeOf.find(operand);
      if (it == nodeOf.end())
        return op->emitOpError()
               << "reads a value computed outside the forward ops of @"
               << gradName
               << " (was an op moved across its trace.forward_end?)";
      if (!llvm::is_contained(node.operands, it->second))
        node.operands.push_back(it->second);
    }
    for (Type type : op->getResultTypes())
      node.bytes += getTensorBytes(type);
    auto cost = dyn_cast<CostOpInterface>(op);
    node.flops = cost ? cost.getFlops() : trace::detail::defaultFlops(op);
    if (isRebuiltSource(op))
      node.kind = remat::Node::Kind::Source;
    else if (failed(policy.classify(op, node, [&](Operation *user) {
               return forwardSet.contains(user);
             })))
      return failure();
    int index = static_cast<int>(nodes.size());
    nodes.push_back(std::move(node));
    opNode[op] = index;
    for (Value result : op->getResults())
      nodeOf[result] = index;
  }
  auto markNeeded = [&](ValueRange values) {
    for (Value value : values) {
      auto it = nodeOf.find(value);
      if (it != nodeOf.end())
        nodes[it->second].neededByBackward = true;
    }
  };
  for (Operation *op : backwardOps)
    markNeeded(op->getOperands());
  markNeeded(ret.getOperands().drop_front(numResults));

  // Decide.
  remat::CostModel model;
  remat::Plan plain = remat::minCut(nodes, model);
  if (!plain.valid)
    return f.emitError()
           << "trace-remat: no partition of @" << gradName
           << " satisfies the constraints (a value the backward needs must "
              "be both saved and recomputed)";
  remat::Plan plan = plain;
  std::string method = "min-cut";
  int64_t budgetBytes = -1;
  if (budgetSpec) {
    budgetBytes = budgetSpec->resolve(plain.activationBytes);
    remat::BudgetResult fitted =
        remat::fitBudget(nodes, plain, budgetBytes, model);
    if (!fitted.met) {
      InFlightDiagnostic diag =
          f.emitError() << "trace-remat: cannot meet the budget of "
                        << budgetBytes << " bytes for @" << base
                        << ": the constraints leave at least "
                        << fitted.plan.activationBytes << " bytes saved";
      for (Operation *op : forwardOps) {
        int index = opNode.lookup(op);
        if (fitted.plan.saved[index] && nodes[index].mustSave)
          diag.attachNote(op->getLoc()) << "must be saved ("
                                        << nodes[index].bytes << " bytes)";
      }
      return diag;
    }
    plan = std::move(fitted.plan);
    method = fitted.method;
  }
  // What trace-autodiff's own split saves, for the report.
  std::vector<bool> autodiffKeep(nodes.size(), true);
  for (auto [op, index] : opNode)
    autodiffKeep[index] = !op->hasAttr(kCheckpointedAttrName);
  remat::Plan autodiffPlan = remat::evaluate(nodes, autodiffKeep);

  LLVM_DEBUG({
    llvm::dbgs() << "trace-remat @" << base << ": " << nodes.size()
                 << " nodes; plain cut " << plain.activationBytes
                 << " bytes, " << plain.recomputeFlops << " FLOPs; chosen ("
                 << method << ") " << plan.activationBytes << " bytes, "
                 << plan.recomputeFlops << " FLOPs\n";
  });

  // Apply: new @f_fwd/@f_bwd from the shared split, in place of the old.
  symbols.erase(derivatives->fwd);
  symbols.erase(derivatives->bwd);
  auto recompute = [&](Operation *op) {
    auto it = opNode.find(op);
    return it != opNode.end() && plan.recomputed[it->second];
  };
  FailureOr<SplitSummary> summary =
      splitForwardBackward(f, grad, recompute, symbols, report);
  if (failed(summary))
    return failure();

  if (report) {
    InFlightDiagnostic remark = f.emitRemark();
    remark << "trace-remat @" << base << ": saved " << summary->activationBytes
           << " bytes of activations (trace-autodiff's split "
           << autodiffPlan.activationBytes << ", min-cut "
           << plain.activationBytes;
    if (budgetSpec) {
      remark << ", budget " << budgetBytes;
      if (budgetSpec->fraction)
        remark << " = "
               << llvm::formatv("{0}", *budgetSpec->fraction).str()
               << " x min-cut";
    }
    remark << ") and " << summary->argumentBytes << " of arguments in "
           << summary->numResiduals << " values; recomputed "
           << summary->recomputedOps << " ops, " << summary->recomputeFlops
           << " FLOPs (min-cut " << plain.recomputeFlops
           << "); chosen by " << method;
  }
  return success();
}

} // namespace
