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
#include "mlir/Transforms/RegionUtils.h"

#define DEBUG_TYPE "trace-autodiff"

namespace mlir::trace {
#define GEN_PASS_DEF_TRACEAUTODIFFPASS
#include "trace/Transforms/Passes.h.inc"
} // namespace mlir::trace

using namespace mlir;
using namespace mlir::trace;

namespace {

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

LogicalResult differentiate(func::FuncOp func, SymbolTable &symbols) {
  MLIRContext *ctx = func.getContext();
  OpBuilder builder(func.getContext());
  builder.setInsertionPointAfter(func);
  std::string gradName = (func.getSymName() + "_grad").str();
  if (symbols.lookup(gradName))
    return func.emitError() << "cannot add @" << gradName
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
  symbols.insert(grad);
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

  // Forward ops that feed neither a result nor the backward are dead.
  IRRewriter rewriter(ctx);
  (void)runRegionDCE(rewriter, grad.getBody());
  return success();
}

struct TraceAutodiffPass final
    : trace::impl::TraceAutodiffPassBase<TraceAutodiffPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    SmallVector<func::FuncOp> todo;
    for (auto func : module.getOps<func::FuncOp>())
      if (func.isPublic() && !func.isExternal() &&
          !func.getSymName().ends_with("_grad"))
        todo.push_back(func);
    for (func::FuncOp func : todo)
      if (failed(differentiate(func, symbols)))
        return signalPassFailure();
  }
};

} // namespace
