//===- TraceAutodiff.cpp - reverse-mode automatic differentiation ---------===//
//
// Builds @f_grad for each public @f: the forward ops, then a reverse sweep
// that asks every op for its vector-Jacobian product (VJPOpInterface) and
// sums cotangents per value. A walk, not patterns: the transformation is
// global (cotangents flow across the whole function).
//
//===----------------------------------------------------------------------===//

#include "trace/Dialect/Trace/IR/TraceOps.h"
#include "trace/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/SetVector.h"

#define DEBUG_TYPE "trace-autodiff"

namespace mlir::trace {
#define GEN_PASS_DEF_TRACEAUTODIFFPASS
#include "trace/Transforms/Passes.h.inc"
} // namespace mlir::trace

using namespace mlir;
using namespace mlir::trace;

namespace {

/// Marks, during autodiff only, a forward op that the backward recomputes.
constexpr StringLiteral kRecomputeAttr = "trace.recompute";
/// Marks the functions the pass generates ("grad", "fwd", "bwd").
constexpr StringLiteral kGeneratedAttr = "trace.autodiff";

bool isFloatTensor(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && isa<FloatType>(tensor.getElementType());
}

/// The name of argument or result `index` (its trace.name, else argN /
/// resultN, as trace-run names them).
std::string slotName(func::FuncOp func, unsigned index, bool result) {
  auto name = result ? func.getResultAttrOfType<StringAttr>(
                           index, TraceDialect::kNameAttrName)
                     : func.getArgAttrOfType<StringAttr>(
                           index, TraceDialect::kNameAttrName);
  if (name)
    return name.getValue().str();
  return (result ? "result" : "arg") + std::to_string(index);
}

/// Moves the bodies of checkpoint and fusion regions into the enclosing
/// block, innermost first, so the function is one flat block of ops.
void inlineRegions(func::FuncOp func) {
  SmallVector<Operation *> regionOps;
  func.walk<WalkOrder::PostOrder>([&](Operation *op) {
    if (isa<CheckpointOp, FusionOp>(op))
      regionOps.push_back(op);
  });
  for (Operation *op : regionOps) {
    Block &body = op->getRegion(0).front();
    auto yield = cast<YieldOp>(body.getTerminator());
    for (auto [arg, input] :
         llvm::zip_equal(body.getArguments(), op->getOperands()))
      arg.replaceAllUsesWith(input);
    for (auto [result, value] :
         llvm::zip_equal(op->getResults(), yield.getValues()))
      result.replaceAllUsesWith(value);
    yield.erase();
    op->getBlock()->getOperations().splice(op->getIterator(),
                                           body.getOperations());
    op->erase();
  }
}

/// Marks the ops inside checkpoint regions whose results are recomputed in
/// backward rather than saved. A value is recomputed if some checkpoint
/// region it is computed in does not yield it (a region's outputs are
/// ordinary values, saved as the next block's inputs, as in PyTorch), and
/// no policy of the regions around it lets it be saved.
void markRecomputed(func::FuncOp func) {
  func.walk([&](Operation *op) {
    if (isa<CheckpointOp, FusionOp, YieldOp>(op) || op->getNumResults() == 0)
      return;
    bool recomputed = false, saved = false;
    // Follow each result out through the yields of the regions around it.
    SmallVector<Value> values(op->getResults());
    for (Operation *parent = op->getParentOp(); parent && !isa<func::FuncOp>(parent);
         parent = parent->getParentOp()) {
      auto yield = cast<YieldOp>(parent->getRegion(0).front().getTerminator());
      SmallVector<Value> escaping;
      for (Value value : values)
        for (OpOperand &use : value.getUses())
          if (use.getOwner() == yield.getOperation())
            escaping.push_back(parent->getResult(use.getOperandNumber()));
      if (auto checkpoint = dyn_cast<CheckpointOp>(parent)) {
        if (CheckpointPolicyAttr policy = checkpoint.getPolicyAttr())
          saved |= policy.allowsSaving(op);
        if (escaping.size() < values.size() || escaping.empty())
          recomputed = true;
      }
      values = std::move(escaping);
      if (values.empty())
        break;
    }
    if (recomputed && !saved)
      op->setAttr(kRecomputeAttr, UnitAttr::get(op->getContext()));
  });
}

/// Cotangents per value, summed as they arrive.
class Cotangents {
public:
  explicit Cotangents(OpBuilder &builder) : builder(builder) {}

  void add(Location loc, Value value, Value cotangent) {
    if (!cotangent || !isFloatTensor(value.getType()))
      return;
    auto [it, inserted] = map.try_emplace(value, cotangent);
    if (!inserted)
      it->second = AddOp::create(builder, loc, it->second, cotangent);
  }
  Value lookup(Value value) const { return map.lookup(value); }

private:
  OpBuilder &builder;
  llvm::DenseMap<Value, Value> map;
};

/// A name for a saved value: its producer's trace.name, the argument's
/// name, or the producer's op name and position.
std::string residualName(func::FuncOp f, Value value, unsigned index) {
  if (auto arg = dyn_cast<BlockArgument>(value))
    return "saved." + slotName(f, arg.getArgNumber(), /*result=*/false);
  Operation *op = value.getDefiningOp();
  if (auto name = op->getAttrOfType<StringAttr>(TraceDialect::kNameAttrName))
    return "saved." + name.getValue().str();
  return "saved." + op->getName().stripDialect().str() + "." +
         std::to_string(index);
}

/// A forward op the backward rebuilds rather than saves, inside a
/// checkpoint region or not: a source with no operands (trace.full,
/// trace.constant, trace.iota). Rebuilding it needs no residual at all,
/// and saving it would hold a whole tensor of known values.
bool isRebuiltSource(Operation *op) {
  return op->getNumOperands() == 0 && op->getNumRegions() == 0 &&
         op->getNumResults() > 0 && isMemoryEffectFree(op);
}

/// Splits @f_grad into @f_fwd (f's arguments -> f's results + residuals)
/// and @f_bwd (residuals + cotangents -> gradients). @f_grad's backward
/// must hold no dead ops: every forward value a backward op reads is
/// needed. A residual is such a value, except values computed inside a
/// checkpoint region (marked kRecomputeAttr) and operand-free sources
/// (isRebuiltSource): the backward recomputes those just before their
/// first use, a region's values from the region's inputs, which become
/// residuals instead. A remark on @f lists what is saved, with shapes and
/// bytes; its count of recomputed ops includes the rebuilt sources.
LogicalResult splitForwardBackward(func::FuncOp f, func::FuncOp grad,
                                   size_t numForward, size_t numCotangents,
                                   SymbolTable &symbols, bool printSaved) {
  MLIRContext *ctx = f.getContext();
  Block &block = grad.getBody().front();
  auto ret = cast<func::ReturnOp>(block.getTerminator());
  unsigned numArgs = f.getNumArguments(), numResults = f.getNumResults();
  SmallVector<Operation *> ops;
  for (Operation &op : block.without_terminator())
    ops.push_back(&op);
  ArrayRef<Operation *> forwardOps = ArrayRef(ops).take_front(numForward);
  ArrayRef<Operation *> backwardOps = ArrayRef(ops).drop_front(numForward);
  llvm::SmallPtrSet<Operation *, 32> isForward(forwardOps.begin(),
                                               forwardOps.end());

  // What the backward needs from the forward: saved values, and ops to
  // recompute (collected transitively, replayed in forward order).
  SetVector<Value> residuals;
  llvm::SmallPtrSet<Operation *, 32> recompute;
  std::function<void(Value)> need = [&](Value value) {
    if (auto arg = dyn_cast<BlockArgument>(value)) {
      if (arg.getArgNumber() < numArgs)
        residuals.insert(value);
      return;
    }
    Operation *def = value.getDefiningOp();
    if (!isForward.contains(def))
      return;
    if (!def->hasAttr(kRecomputeAttr) && !isRebuiltSource(def)) {
      residuals.insert(value);
      return;
    }
    if (!recompute.insert(def).second)
      return;
    for (Value operand : def->getOperands())
      need(operand);
  };
  for (Operation *op : backwardOps)
    for (Value operand : op->getOperands())
      need(operand);
  for (Value value : ret.getOperands().drop_front(numResults))
    need(value);

  OpBuilder builder(ctx);
  builder.setInsertionPointAfter(grad);
  std::string base = f.getSymName().str();

  // @f_fwd: the forward ops; f's results, then the residuals.
  SmallVector<Type> fwdResults(f.getResultTypes());
  for (Value r : residuals)
    fwdResults.push_back(r.getType());
  auto fwd = func::FuncOp::create(
      builder, f.getLoc(), base + "_fwd",
      FunctionType::get(ctx, f.getArgumentTypes(), fwdResults));
  symbols.insert(fwd);
  {
    Block *entry = fwd.addEntryBlock();
    IRMapping map;
    for (unsigned i = 0; i < numArgs; ++i)
      map.map(block.getArgument(i), entry->getArgument(i));
    OpBuilder b = OpBuilder::atBlockEnd(entry);
    for (Operation *op : forwardOps)
      b.clone(*op, map)->removeAttr(kRecomputeAttr);
    SmallVector<Value> results;
    for (Value v : ret.getOperands().take_front(numResults))
      results.push_back(map.lookupOrDefault(v));
    for (Value r : residuals)
      results.push_back(map.lookupOrDefault(r));
    func::ReturnOp::create(b, ret.getLoc(), results);
  }

  // @f_bwd: residuals and cotangents in; recomputation, then the backward.
  SmallVector<Type> bwdArgs;
  for (Value r : residuals)
    bwdArgs.push_back(r.getType());
  for (unsigned i = 0; i < numCotangents; ++i)
    bwdArgs.push_back(block.getArgument(numArgs + i).getType());
  SmallVector<Type> bwdResults(
      TypeRange(ret.getOperands().drop_front(numResults)));
  auto bwd = func::FuncOp::create(builder, f.getLoc(), base + "_bwd",
                                  FunctionType::get(ctx, bwdArgs, bwdResults));
  symbols.insert(bwd);
  {
    Block *entry = bwd.addEntryBlock();
    IRMapping map;
    for (auto [i, r] : llvm::enumerate(residuals))
      map.map(r, entry->getArgument(i));
    for (unsigned i = 0; i < numCotangents; ++i)
      map.map(block.getArgument(numArgs + i),
              entry->getArgument(residuals.size() + i));
    OpBuilder b = OpBuilder::atBlockEnd(entry);
    // Recompute each value just before the first backward op that reads
    // it (producers first), so recomputed activations are live only while
    // their region's backward runs.
    std::function<void(Value)> materialize = [&](Value value) {
      Operation *def = value.getDefiningOp();
      if (map.contains(value) || !def || !recompute.contains(def))
        return;
      for (Value operand : def->getOperands())
        materialize(operand);
      b.clone(*def, map)->removeAttr(kRecomputeAttr);
    };
    for (Operation *op : backwardOps) {
      for (Value operand : op->getOperands())
        materialize(operand);
      b.clone(*op, map);
    }
    for (Value v : ret.getOperands().drop_front(numResults))
      materialize(v);
    SmallVector<Value> grads;
    for (Value v : ret.getOperands().drop_front(numResults))
      grads.push_back(map.lookupOrDefault(v));
    func::ReturnOp::create(b, ret.getLoc(), grads);
  }

  // Names and the saved-for-backward remark.
  SmallVector<DictionaryAttr> fwdResultAttrs, bwdArgAttrs;
  auto named = [&](StringRef name) {
    return DictionaryAttr::get(
        ctx, {NamedAttribute(StringAttr::get(ctx, TraceDialect::kNameAttrName),
                             StringAttr::get(ctx, name))});
  };
  for (unsigned i = 0; i < numResults; ++i)
    fwdResultAttrs.push_back(grad.getResultAttrDict(i)
                                 ? grad.getResultAttrDict(i)
                                 : DictionaryAttr::get(ctx));
  std::string report;
  llvm::raw_string_ostream os(report);
  int64_t total = 0, argumentBytes = 0;
  for (auto [i, r] : llvm::enumerate(residuals)) {
    std::string name = residualName(f, r, i);
    fwdResultAttrs.push_back(named(name));
    bwdArgAttrs.push_back(named(name));
    int64_t bytes = getTensorBytes(r.getType());
    total += bytes;
    if (isa<BlockArgument>(r))
      argumentBytes += bytes;
    os << "\n  " << name << ": " << r.getType() << ", " << bytes
       << " bytes, from "
       << (isa<BlockArgument>(r) ? StringRef("an argument")
                                 : r.getDefiningOp()->getName().getStringRef());
  }
  for (unsigned i = 0; i < numCotangents; ++i)
    bwdArgAttrs.push_back(grad.getArgAttrDict(numArgs + i));
  SmallVector<DictionaryAttr> argAttrs, bwdResultAttrs;
  for (unsigned i = 0; i < numArgs; ++i)
    argAttrs.push_back(grad.getArgAttrDict(i) ? grad.getArgAttrDict(i)
                                              : DictionaryAttr::get(ctx));
  for (unsigned i = numResults, e = grad.getNumResults(); i < e; ++i)
    bwdResultAttrs.push_back(grad.getResultAttrDict(i));
  fwd.setAllArgAttrs(argAttrs);
  fwd.setAllResultAttrs(fwdResultAttrs);
  bwd.setAllArgAttrs(bwdArgAttrs);
  bwd.setAllResultAttrs(bwdResultAttrs);
  fwd->setAttr(kGeneratedAttr, StringAttr::get(ctx, "fwd"));
  bwd->setAttr(kGeneratedAttr, StringAttr::get(ctx, "bwd"));
  if (printSaved)
    f.emitRemark() << "saved for backward by @" << fwd.getSymName() << ": "
                 << residuals.size() << " values, " << total << " bytes ("
                 << total - argumentBytes << " of activations, "
                 << argumentBytes << " of arguments), "
                 << recompute.size() << " ops recomputed in @"
                 << bwd.getSymName() << os.str();

  IRRewriter rewriter(ctx);
  (void)runRegionDCE(rewriter, fwd.getBody());
  (void)runRegionDCE(rewriter, bwd.getBody());
  return success();
}

LogicalResult differentiate(func::FuncOp func, SymbolTable &symbols,
                            bool printSaved) {
  MLIRContext *ctx = func.getContext();
  OpBuilder builder(func.getContext());
  builder.setInsertionPointAfter(func);
  std::string gradName = (func.getSymName() + "_grad").str();
  for (StringRef suffix : {"_grad", "_fwd", "_bwd"})
    if (symbols.lookup((func.getSymName() + suffix).str()))
      return func.emitError() << "cannot add @" << func.getSymName() << suffix
                              << ": a symbol of that name exists";
  if (!func.getBody().hasOneBlock())
    return func.emitError() << "trace-autodiff needs a single-block function";

  // The signature: f's arguments, then a cotangent per float result;
  // f's results, then a gradient per float argument.
  FunctionType type = func.getFunctionType();
  SmallVector<Type> argTypes(type.getInputs());
  SmallVector<unsigned> floatResults, floatArgs;
  for (auto [i, t] : llvm::enumerate(type.getResults()))
    if (isFloatTensor(t)) {
      floatResults.push_back(i);
      argTypes.push_back(t);
    }
  SmallVector<Type> resultTypes(type.getResults());
  for (auto [i, t] : llvm::enumerate(type.getInputs()))
    if (isFloatTensor(t)) {
      floatArgs.push_back(i);
      resultTypes.push_back(t);
    }

  // Clone f as the forward part of f_grad and flatten its regions.
  auto grad = cast<func::FuncOp>(builder.clone(*func));
  grad.setSymName(gradName);
  grad->setAttr(kGeneratedAttr, StringAttr::get(ctx, "grad"));
  symbols.insert(grad);
  markRecomputed(grad);
  inlineRegions(grad);
  Block &block = grad.getBody().front();
  auto ret = cast<func::ReturnOp>(block.getTerminator());
  SmallVector<Value> cotangentArgs;
  for (unsigned i : floatResults)
    cotangentArgs.push_back(block.addArgument(type.getResult(i), ret.getLoc()));

  // Reverse sweep, emitted before the return.
  builder.setInsertionPoint(ret);
  Cotangents cotangents(builder);
  for (auto [i, cot] : llvm::zip_equal(floatResults, cotangentArgs))
    cotangents.add(ret.getLoc(), ret.getOperand(i), cot);
  SmallVector<Operation *> forward;
  for (Operation &op : block.without_terminator())
    forward.push_back(&op);
  size_t numForward = forward.size();
  for (Operation *op : llvm::reverse(forward)) {
    SmallVector<Value> resultCots;
    bool any = false;
    for (Value result : op->getResults()) {
      resultCots.push_back(cotangents.lookup(result));
      any |= bool(resultCots.back());
    }
    if (!any || op->hasTrait<trace::OpTrait::NonDifferentiable>() ||
        op->getNumOperands() == 0)
      continue;
    auto vjp = dyn_cast<VJPOpInterface>(op);
    if (!vjp)
      return op->emitOpError()
             << "has no derivative rule (VJPOpInterface) and lies between "
                "an argument and a result of @"
             << func.getSymName();
    SmallVector<Value> operandCots;
    if (failed(vjp.buildVJP(builder, resultCots, operandCots)))
      return op->emitOpError() << "failed to build its derivative";
    if (operandCots.size() != op->getNumOperands())
      return op->emitOpError()
             << "derivative rule returned " << operandCots.size()
             << " cotangents for " << op->getNumOperands() << " operands";
    for (auto [operand, cot] : llvm::zip_equal(op->getOperands(), operandCots))
      cotangents.add(op->getLoc(), operand, cot);
  }

  // Results: f's, then the gradients (zeros for arguments nothing reached).
  SmallVector<Value> results(ret.getOperands());
  for (unsigned i : floatArgs) {
    Value arg = block.getArgument(i);
    Value g = cotangents.lookup(arg);
    if (!g) {
      auto tensor = cast<RankedTensorType>(arg.getType());
      g = FullOp::create(builder, ret.getLoc(), tensor,
                         FloatAttr::get(tensor.getElementType(), 0.0));
    }
    results.push_back(g);
  }
  func::ReturnOp::create(builder, ret.getLoc(), results);
  ret.erase();

  // Dead gradient code out before the split chooses residuals: a rule
  // emits a cotangent for every operand, also for one that needs none (a
  // random mask, a constant, a float converted from an integer), and that
  // cotangent reads forward values @f_bwd must not be made to save. Reverse
  // order, so an op's users are gone before it is looked at.
  SmallVector<Operation *> backward;
  for (Operation &op :
       llvm::drop_begin(block.without_terminator(), numForward))
    backward.push_back(&op);
  for (Operation *op : llvm::reverse(backward))
    if (isOpTriviallyDead(op))
      op->erase();
  grad.setFunctionType(FunctionType::get(ctx, argTypes, resultTypes));

  // Names: cotangents after the results they belong to, gradients after
  // the arguments. The attribute arrays are rebuilt whole: the clone's have
  // f's lengths.
  auto named = [&](const std::string &name) {
    return DictionaryAttr::get(
        ctx, {NamedAttribute(StringAttr::get(ctx, TraceDialect::kNameAttrName),
                             StringAttr::get(ctx, name))});
  };
  auto dictOrEmpty = [&](DictionaryAttr dict) {
    return dict ? dict : DictionaryAttr::get(ctx);
  };
  SmallVector<DictionaryAttr> argAttrs, resultAttrs;
  for (unsigned i = 0, e = type.getNumInputs(); i < e; ++i)
    argAttrs.push_back(dictOrEmpty(func.getArgAttrDict(i)));
  for (unsigned i : floatResults)
    argAttrs.push_back(named("cot." + slotName(func, i, true)));
  for (unsigned i = 0, e = type.getNumResults(); i < e; ++i)
    resultAttrs.push_back(dictOrEmpty(func.getResultAttrDict(i)));
  for (unsigned i : floatArgs)
    resultAttrs.push_back(named("grad." + slotName(func, i, false)));
  grad.setAllArgAttrs(argAttrs);
  grad.setAllResultAttrs(resultAttrs);

  if (failed(splitForwardBackward(func, grad, numForward, floatResults.size(),
                                  symbols, printSaved)))
    return failure();
  grad.walk([](Operation *op) { op->removeAttr(kRecomputeAttr); });

  // Forward ops that feed neither a result nor the backward are dead.
  IRRewriter rewriter(ctx);
  (void)runRegionDCE(rewriter, grad.getBody());
  return success();
}

struct TraceAutodiffPass final
    : trace::impl::TraceAutodiffPassBase<TraceAutodiffPass> {
  using Base::Base;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    SmallVector<func::FuncOp> todo;
    for (auto func : module.getOps<func::FuncOp>())
      if (func.isPublic() && !func.isExternal() &&
          !func->hasAttr(kGeneratedAttr))
        todo.push_back(func);
    for (func::FuncOp func : todo)
      if (failed(differentiate(func, symbols, printSaved)))
        return signalPassFailure();
  }
};

} // namespace
