//===- TraceAutodiff.cpp - reverse-mode automatic differentiation ---------===//
//
// Builds @f_grad for each public @f: the forward ops, then a reverse sweep
// that asks every op for its vector-Jacobian product (VJPOpInterface) and
// sums cotangents per value. A walk, not patterns: the transformation is
// global (cotangents flow across the whole function).
//
//===----------------------------------------------------------------------===//

#include "trace/Dialect/Trace/IR/TraceOps.h"
#include "trace/Dialect/Trace/Transforms/Autodiff.h"
#include "trace/Dialect/Trace/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/SetVector.h"

#define DEBUG_TYPE "trace-autodiff"

namespace mlir::trace {
#define GEN_PASS_DEF_TRACEAUTODIFFPASS
#include "trace/Dialect/Trace/Transforms/Passes.h.inc"
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


/// Marks (kCheckpointedAttrName) the ops inside checkpoint regions whose
/// results are recomputed in backward rather than saved. A value is
/// recomputed if some checkpoint region it is computed in does not yield it
/// (a region's outputs are ordinary values, saved as the next block's
/// inputs, as in PyTorch), and no policy of the regions around it lets it
/// be saved. The marks stay on @f_grad for trace-remat.
void markCheckpointed(func::FuncOp func) {
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
      op->setAttr(kCheckpointedAttrName, UnitAttr::get(op->getContext()));
  });
}

/// Whether `value` is a trace.full of zeros.
bool isZeros(Value value) {
  auto full = value.getDefiningOp<FullOp>();
  auto attr = full ? dyn_cast<FloatAttr>(full.getValue()) : FloatAttr();
  return attr && attr.getValue().isZero();
}

/// One input of a concatenation: where it starts along the dim, its size
/// there, and its value (null for zeros).
struct Piece {
  int64_t start, size;
  Value value;
};

SmallVector<Piece> getPieces(ConcatenateOp concat) {
  SmallVector<Piece> pieces;
  int64_t at = 0;
  for (Value input : concat.getInputs()) {
    int64_t size = cast<RankedTensorType>(input.getType())
                       .getDimSize(concat.getDimension());
    pieces.push_back({at, size, isZeros(input) ? Value() : input});
    at += size;
  }
  return pieces;
}

/// The sum of two concatenations along one dim, piece by piece: zeros take
/// the other's piece as it is, and two valued pieces must cover the same
/// span. A slice's cotangent is the slice's gradient between zeros, so the
/// gradient of a projection sliced into q, k and v becomes one
/// concatenation of theirs, not three buffers of mostly zeros added
/// together (and bit for bit the same: x + 0 is x). Null where the pieces
/// do not line up; then nothing has been created.
Value sumConcatenations(OpBuilder &b, Location loc, Value x, Value y) {
  auto cx = x.getDefiningOp<ConcatenateOp>();
  auto cy = y.getDefiningOp<ConcatenateOp>();
  if (!cx || !cy || cx.getDimension() != cy.getDimension() ||
      cx.getType() != cy.getType())
    return {};
  int64_t dim = cx.getDimension();
  SmallVector<Piece> px = getPieces(cx), py = getPieces(cy);
  auto valuedIn = [](ArrayRef<Piece> pieces, int64_t from, int64_t to) {
    return llvm::any_of(pieces, [&](const Piece &p) {
      return p.value && p.start < to && from < p.start + p.size;
    });
  };
  // First the plan: each span of the sum is zeros, one valued piece, or
  // two to add (`addend`). Ops are only built once every span lines up.
  struct Span {
    Piece piece;
    Value addend;
  };
  int64_t total = cx.getType().getDimSize(dim);
  SmallVector<Span> sum;
  size_t i = 0, j = 0;
  for (int64_t at = 0; at < total;) {
    while (px[i].start + px[i].size <= at)
      ++i;
    while (py[j].start + py[j].size <= at)
      ++j;
    const Piece &a = px[i], &c = py[j];
    if (a.value && c.value) {
      if (a.start != at || c.start != at || a.size != c.size)
        return {};
      sum.push_back({a, c.value});
      at += a.size;
    } else if (a.value || c.value) {
      const Piece &valued = a.value ? a : c;
      if (valued.start != at ||
          valuedIn(a.value ? py : px, at, at + valued.size))
        return {};
      sum.push_back({valued, Value()});
      at += valued.size;
    } else {
      int64_t end = std::min(a.start + a.size, c.start + c.size);
      if (!sum.empty() && !sum.back().piece.value)
        sum.back().piece.size += end - at;
      else
        sum.push_back({{at, end - at, Value()}, Value()});
      at = end;
    }
  }
  RankedTensorType type = cx.getType();
  SmallVector<Value> parts;
  for (const Span &span : sum) {
    const Piece &piece = span.piece;
    if (piece.value) {
      parts.push_back(span.addend
                          ? AddOp::create(b, loc, piece.value, span.addend)
                          : piece.value);
      continue;
    }
    auto shape = llvm::to_vector(type.getShape());
    shape[dim] = piece.size;
    parts.push_back(FullOp::create(
        b, loc, type.clone(shape),
        b.getFloatAttr(type.getElementType(), 0.0)));
  }
  if (parts.size() == 1)
    return parts.front();
  return ConcatenateOp::create(b, loc, parts, dim);
}

/// Cotangents per value, summed as they arrive.
class Cotangents {
public:
  explicit Cotangents(OpBuilder &builder) : builder(builder) {}

  void add(Location loc, Value value, Value cotangent) {
    if (!cotangent || !isFloatTensor(value.getType()))
      return;
    auto [it, inserted] = map.try_emplace(value, cotangent);
    if (inserted)
      return;
    Value old = it->second;
    // The two concatenations summed piece-wise are left unread; the dead
    // code sweep after the backward is built erases them (erasing here
    // could free a value another operand's cotangent still holds).
    if (Value sum = sumConcatenations(builder, loc, old, cotangent)) {
      it->second = sum;
      return;
    }
    it->second = AddOp::create(builder, loc, old, cotangent);
  }
  Value lookup(Value value) const { return map.lookup(value); }

private:
  OpBuilder &builder;
  llvm::DenseMap<Value, Value> map;
};

/// Softmax's derivative as one rule. The importer writes softmax as
/// y = e / broadcast(sum(e)) with e = exp(x); op by op, the backward reads
/// both e and y, two tensors of the scores' size. torch's softmax backward
/// reads y alone: dx = y * (g - sum(g * y)). Where `div` is that pattern
/// (e and its sum read by nothing else), the cotangent of x is built so and
/// returned, and e and the sum get none; null otherwise.
Value buildSoftmaxVJP(OpBuilder &b, DivOp div, Value g,
                      Cotangents &cotangents) {
  auto exp = div.getLhs().getDefiningOp<ExpOp>();
  auto broadcast = div.getRhs().getDefiningOp<BroadcastInDimOp>();
  if (!g || !exp || !broadcast || !broadcast->hasOneUse())
    return {};
  // The row sums broadcast back along the reduced dims only: dims in
  // order, to exp's type (else y is not a softmax).
  if (broadcast.getType() != exp.getType() ||
      !llvm::equal(broadcast.getBroadcastDimensions(),
                   llvm::seq<int64_t>(0, exp.getType().getRank())))
    return {};
  auto sum = broadcast.getOperand().getDefiningOp<ReduceSumOp>();
  if (!sum || !sum.getKeepdim() || sum.getOperand() != exp.getResult() ||
      !sum->hasOneUse() || cotangents.lookup(exp.getResult()) ||
      cotangents.lookup(sum.getResult()))
    return {};
  for (Operation *user : exp->getUsers())
    if (user != div && user != sum)
      return {};
  Location loc = div.getLoc();
  Value y = div.getResult();
  Value gy = MulOp::create(b, loc, g, y);
  Value total = ReduceSumOp::create(b, loc, gy, sum.getDimensions(),
                                    /*keepdim=*/true);
  Value spread = BroadcastInDimOp::create(b, loc, y.getType(), total,
                                          broadcast.getBroadcastDimensions());
  Value dx = MulOp::create(b, loc, y, SubOp::create(b, loc, g, spread));
  cotangents.add(loc, exp.getOperand(), dx);
  return exp.getOperand();
}

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

} // namespace

void mlir::trace::inlineRegions(func::FuncOp func) {
  SmallVector<Operation *> regionOps;
  func.walk<WalkOrder::PostOrder>([&](Operation *op) {
    if (isa<CheckpointOp, FusionOp>(op))
      regionOps.push_back(op);
  });
  for (Operation *op : regionOps) {
    Block &body = op->getRegion(0).front();
    auto yield = cast<YieldOp>(body.getTerminator());
    if (Attribute policy = op->getAttr(kRematAttrName))
      for (Operation &inner : body.without_terminator())
        if (!inner.hasAttr(kRematAttrName))
          inner.setAttr(kRematAttrName, policy);
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

/// Saving an operand-free source would hold a whole tensor of known values;
/// @f_bwd rebuilds it, inside a checkpoint region or not.
bool mlir::trace::isRebuiltSource(Operation *op) {
  return op->getNumOperands() == 0 && op->getNumRegions() == 0 &&
         op->getNumResults() > 0 && isMemoryEffectFree(op);
}

FailureOr<Derivatives> mlir::trace::lookupDerivatives(func::FuncOp f,
                                                      SymbolTable &symbols) {
  auto attr =
      f->getAttrOfType<DerivativesAttr>(TraceDialect::kDerivativesAttrName);
  if (!attr)
    return f.emitError() << "@" << f.getSymName() << " has no "
                         << TraceDialect::kDerivativesAttrName
                         << " (run trace-autodiff)";
  Derivatives d;
  std::pair<func::FuncOp *, FlatSymbolRefAttr> parts[] = {
      {&d.grad, attr.getGrad()}, {&d.fwd, attr.getFwd()}, {&d.bwd, attr.getBwd()}};
  for (auto [func, symbol] : parts) {
    *func = symbols.lookup<func::FuncOp>(symbol.getValue());
    if (!*func || func->isExternal())
      return f.emitError() << "no function " << symbol
                           << " with a body, which "
                           << TraceDialect::kDerivativesAttrName << " names";
  }
  // The verifier ensures it; trace-remat erases fwd and bwd and must not
  // erase grad with them.
  if (d.grad == d.fwd || d.grad == d.bwd || d.fwd == d.bwd)
    return f.emitError() << TraceDialect::kDerivativesAttrName
                         << " must name three different functions";
  return d;
}

FailureOr<JointOps> mlir::trace::getJointOps(func::FuncOp f,
                                              func::FuncOp grad) {
  ForwardEndOp end;
  if (grad.getBody().hasOneBlock()) {
    auto ends = grad.getBody().front().getOps<ForwardEndOp>();
    if (!ends.empty())
      end = *ends.begin();
  }
  if (!end)
    return grad.emitError() << "@" << grad.getSymName()
                            << " has no trace.forward_end marking where its "
                               "forward ends (trace-autodiff puts one there)";
  if (grad.getNumArguments() < f.getNumArguments() ||
      grad.getNumResults() < f.getNumResults())
    return grad.emitError() << "@" << grad.getSymName()
                            << " does not extend the signature of @"
                            << f.getSymName();
  Block &block = grad.getBody().front();
  Block::iterator boundary = end->getIterator();
  JointOps ops;
  ops.ret = cast<func::ReturnOp>(block.getTerminator());
  for (Operation &op : llvm::make_range(block.begin(), boundary))
    ops.forward.push_back(&op);
  for (Operation &op : llvm::make_range(std::next(boundary),
                                        block.getTerminator()->getIterator()))
    ops.backward.push_back(&op);
  return ops;
}

FailureOr<SplitSummary>
mlir::trace::splitForwardBackward(func::FuncOp f, func::FuncOp grad,
                                  function_ref<bool(Operation *)> recomputeOp,
                                  SymbolTable &symbols, bool printSaved) {
  MLIRContext *ctx = f.getContext();
  FailureOr<JointOps> joint = getJointOps(f, grad);
  if (failed(joint))
    return failure();
  ArrayRef<Operation *> forwardOps = joint->forward;
  ArrayRef<Operation *> backwardOps = joint->backward;
  Block &block = grad.getBody().front();
  func::ReturnOp ret = joint->ret;
  unsigned numArgs = f.getNumArguments(), numResults = f.getNumResults();
  unsigned numCotangents = grad.getNumArguments() - numArgs;
  llvm::SmallPtrSet<Operation *, 32> isForward(forwardOps.begin(),
                                               forwardOps.end());
  // @f_fwd returns f's results: they must be forward values.
  for (auto [i, result] :
       llvm::enumerate(ret.getOperands().take_front(numResults))) {
    Operation *def = result.getDefiningOp();
    if (def ? isForward.contains(def)
            : cast<BlockArgument>(result).getArgNumber() < numArgs)
      continue;
    return grad.emitError() << "result " << i << " of @" << f.getSymName()
                            << " is computed after the trace.forward_end of @"
                            << grad.getSymName()
                            << "; the forward must compute f's results";
  }

  // What the backward needs from the forward: saved values, and ops to
  // recompute (collected transitively). An explicit worklist: the chain
  // recomputed from one saved value can be as long as the model is deep.
  SetVector<Value> residuals;
  llvm::SmallPtrSet<Operation *, 32> recompute;
  SmallVector<Value> worklist;
  // Operands are pushed in reverse, so values are visited in the order of a
  // recursive depth-first walk (the residuals' order is visible in @f_fwd).
  auto need = [&](ValueRange values) {
    llvm::append_range(worklist, llvm::reverse(values));
    while (!worklist.empty()) {
      Value value = worklist.pop_back_val();
      if (auto arg = dyn_cast<BlockArgument>(value)) {
        if (arg.getArgNumber() < numArgs)
          residuals.insert(value);
        continue;
      }
      Operation *def = value.getDefiningOp();
      if (!isForward.contains(def))
        continue;
      if (!recomputeOp(def) && !isRebuiltSource(def)) {
        residuals.insert(value);
        continue;
      }
      if (recompute.insert(def).second)
        llvm::append_range(worklist, llvm::reverse(def->getOperands()));
    }
  };
  for (Operation *op : backwardOps)
    need(op->getOperands());
  need(ret.getOperands().drop_front(numResults));

  OpBuilder builder(ctx);
  builder.setInsertionPointAfter(grad);
  std::string base = f.getSymName().str();

  // @f_fwd: the forward ops; f's results, then the residuals it computes.
  // Residuals that are f's arguments are @f_bwd's arguments directly: the
  // caller passes the same buffer again.
  auto computed = [](Value r) { return !isa<BlockArgument>(r); };
  SmallVector<Type> fwdResults(f.getResultTypes());
  for (Value r : llvm::make_filter_range(residuals, computed))
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
      b.clone(*op, map)->removeAttr(kCheckpointedAttrName);
    SmallVector<Value> results;
    for (Value v : ret.getOperands().take_front(numResults))
      results.push_back(map.lookupOrDefault(v));
    for (Value r : llvm::make_filter_range(residuals, computed))
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
  SplitSummary summary;
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
    // it, producers first (a post-order walk on an explicit stack), so
    // recomputed activations are live only while the backward that needs
    // them runs.
    SmallVector<std::pair<Operation *, unsigned>> stack;
    auto materialize = [&](ValueRange values) {
      for (Value value : values) {
        Operation *def = value.getDefiningOp();
        if (map.contains(value) || !def || !recompute.contains(def))
          continue;
        stack.push_back({def, 0});
        while (!stack.empty()) {
          auto &[op, next] = stack.back();
          if (next < op->getNumOperands()) {
            Value operand = op->getOperand(next++);
            Operation *producer = operand.getDefiningOp();
            if (!map.contains(operand) && producer &&
                recompute.contains(producer))
              stack.push_back({producer, 0});
            continue;
          }
          if (!map.contains(op->getResult(0))) {
            Operation *clone = b.clone(*op, map);
            clone->removeAttr(kCheckpointedAttrName);
            clone->setAttr(kRecomputedAttrName, UnitAttr::get(ctx));
            ++summary.recomputedOps;
            if (auto cost = dyn_cast<CostOpInterface>(clone))
              summary.recomputeFlops += cost.getFlops();
          }
          stack.pop_back();
        }
      }
    };
    for (Operation *op : backwardOps) {
      materialize(op->getOperands());
      b.clone(*op, map);
    }
    materialize(ret.getOperands().drop_front(numResults));
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
  for (auto [i, r] : llvm::enumerate(residuals)) {
    std::string name = residualName(f, r, i);
    if (auto arg = dyn_cast<BlockArgument>(r)) {
      // f's argument, under its own name and role, and its index.
      unsigned number = arg.getArgNumber();
      NamedAttrList attrs(grad.getArgAttrDict(number));
      if (!attrs.get(TraceDialect::kNameAttrName))
        attrs.set(TraceDialect::kNameAttrName,
                  StringAttr::get(ctx, slotName(f, number, false)));
      attrs.set(kForwardArgumentAttrName,
                IntegerAttr::get(IntegerType::get(ctx, 64), number));
      bwdArgAttrs.push_back(attrs.getDictionary(ctx));
    } else {
      fwdResultAttrs.push_back(named(name));
      bwdArgAttrs.push_back(named(name));
    }
    int64_t bytes = getTensorBytes(r.getType());
    if (isa<BlockArgument>(r))
      summary.argumentBytes += bytes;
    else
      summary.activationBytes += bytes;
    if (auto arg = dyn_cast<BlockArgument>(r))
      os << "\n  " << slotName(f, arg.getArgNumber(), false) << ": "
         << r.getType() << ", " << bytes << " bytes, an argument, passed to @"
         << bwd.getSymName() << " too";
    else
      os << "\n  " << name << ": " << r.getType() << ", " << bytes
         << " bytes, from " << r.getDefiningOp()->getName().getStringRef();
  }
  summary.numResiduals = residuals.size();
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
  f->setAttr(TraceDialect::kDerivativesAttrName,
             DerivativesAttr::get(ctx, FlatSymbolRefAttr::get(grad),
                                  FlatSymbolRefAttr::get(fwd),
                                  FlatSymbolRefAttr::get(bwd)));
  if (printSaved)
    f.emitRemark() << "saved for backward by @" << fwd.getSymName() << ": "
                   << residuals.size() << " values, "
                   << summary.activationBytes + summary.argumentBytes
                   << " bytes (" << summary.activationBytes
                   << " of activations, " << summary.argumentBytes
                   << " of arguments), " << summary.recomputedOps
                   << " ops recomputed in @" << bwd.getSymName() << os.str();

  IRRewriter rewriter(ctx);
  (void)runRegionDCE(rewriter, fwd.getBody());
  (void)runRegionDCE(rewriter, bwd.getBody());
  return summary;
}

namespace {

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
  // f's results, then a gradient per float argument but the buffers.
  FunctionType type = func.getFunctionType();
  SmallVector<Type> argTypes(type.getInputs());
  SmallVector<unsigned> floatResults, floatArgs;
  // A buffer's update (batch_norm's running statistics) is state, not a
  // value the loss depends on: it gets no cotangent.
  for (auto [i, t] : llvm::enumerate(type.getResults()))
    if (isFloatTensor(t) && !TraceDialect::isBufferUpdate(func, i)) {
      floatResults.push_back(i);
      argTypes.push_back(t);
    }
  // A buffer (the attention mask, batch_norm's running statistics) is
  // state, not a parameter: it gets no gradient, as in torch.
  SmallVector<Type> resultTypes(type.getResults());
  for (auto [i, t] : llvm::enumerate(type.getInputs()))
    if (isFloatTensor(t) && !TraceDialect::isBuffer(func, i)) {
      floatArgs.push_back(i);
      resultTypes.push_back(t);
    }

  // Clone f as the forward part of f_grad and flatten its regions.
  auto grad = cast<func::FuncOp>(builder.clone(*func));
  grad.setSymName(gradName);
  symbols.insert(grad);
  markCheckpointed(grad);
  inlineRegions(grad);
  Block &block = grad.getBody().front();
  auto ret = cast<func::ReturnOp>(block.getTerminator());
  SmallVector<Value> cotangentArgs;
  for (unsigned i : floatResults)
    cotangentArgs.push_back(block.addArgument(type.getResult(i), ret.getLoc()));

  // The forward ends here; the reverse sweep follows, before the return.
  builder.setInsertionPoint(ret);
  auto forwardEnd = ForwardEndOp::create(builder, ret.getLoc());
  Cotangents cotangents(builder);
  for (auto [i, cot] : llvm::zip_equal(floatResults, cotangentArgs))
    cotangents.add(ret.getLoc(), ret.getOperand(i), cot);
  SmallVector<Operation *> forward;
  for (Operation &op :
       llvm::make_range(block.begin(), forwardEnd->getIterator()))
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
    if (auto div = dyn_cast<DivOp>(op))
      if (Value x = buildSoftmaxVJP(builder, div, resultCots.front(),
                                    cotangents))
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
  for (Operation &op : llvm::make_range(std::next(forwardEnd->getIterator()),
                                        block.getTerminator()->getIterator()))
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

  // Forward ops that feed neither a result nor the backward are dead; the
  // survivors keep their kCheckpointedAttrName marks, which trace-remat
  // reads.
  for (Operation *op : llvm::reverse(forward))
    if (isOpTriviallyDead(op))
      op->erase();

  auto checkpointed = [](Operation *op) {
    return op->hasAttr(kCheckpointedAttrName);
  };
  return failure(failed(
      splitForwardBackward(func, grad, checkpointed, symbols, printSaved)));
}

struct TraceAutodiffPass final
    : trace::impl::TraceAutodiffPassBase<TraceAutodiffPass> {
  using Base::Base;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    // Functions already differentiated, and those derived from them, are
    // left alone.
    llvm::DenseSet<StringAttr> derived;
    for (auto func : module.getOps<func::FuncOp>())
      if (auto d = func->getAttrOfType<DerivativesAttr>(
              TraceDialect::kDerivativesAttrName))
        for (FlatSymbolRefAttr symbol : {d.getGrad(), d.getFwd(), d.getBwd()})
          derived.insert(symbol.getAttr());
    SmallVector<func::FuncOp> todo;
    for (auto func : module.getOps<func::FuncOp>())
      if (func.isPublic() && !func.isExternal() &&
          !func->hasAttr(TraceDialect::kDerivativesAttrName) &&
          !derived.contains(func.getSymNameAttr()))
        todo.push_back(func);
    for (func::FuncOp func : todo)
      if (failed(differentiate(func, symbols, printSaved)))
        return signalPassFailure();
  }
};

} // namespace
