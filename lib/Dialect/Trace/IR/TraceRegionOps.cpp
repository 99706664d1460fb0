//===- TraceRegionOps.cpp - trace.checkpoint and trace.fusion -------------===//
//
// The two region ops share one form:
//
//   %r:2 = trace.checkpoint "blocks.0" policy = #trace.policy<...>
//       ins(%x = %a : tensor<4xf32>, %w = %b : tensor<4x4xf32>)
//       -> (tensor<4xf32>, tensor<4xf32>) {
//     ...
//     trace.yield %u, %v : tensor<4xf32>, tensor<4xf32>
//   } {other attributes}
//
// so the parser, printer, verifier and canonicalization patterns are written
// once, as templates over the op class.
//
//===----------------------------------------------------------------------===//

#include "trace/Dialect/Trace/IR/TraceOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/ScopeExit.h"

using namespace mlir;
using namespace mlir::trace;

//===----------------------------------------------------------------------===//
// Assembly
//===----------------------------------------------------------------------===//

/// How deep trace.checkpoint / trace.fusion regions may nest in parsed IR.
static constexpr unsigned kMaxRegionNesting = 256;

static ParseResult parseIsolatedRegionOp(OpAsmParser &parser,
                                         OperationState &result,
                                         bool allowPolicy) {
  MLIRContext *ctx = parser.getContext();
  std::string name;
  if (succeeded(parser.parseOptionalString(&name)))
    result.addAttribute("name", StringAttr::get(ctx, name));

  if (allowPolicy && succeeded(parser.parseOptionalKeyword("policy"))) {
    CheckpointPolicyAttr policy;
    if (parser.parseEqual() || parser.parseAttribute(policy))
      return failure();
    result.addAttribute("policy", policy);
  }

  SmallVector<OpAsmParser::Argument> blockArgs;
  SmallVector<OpAsmParser::UnresolvedOperand> operands;
  auto parseInput = [&]() -> ParseResult {
    OpAsmParser::Argument arg;
    OpAsmParser::UnresolvedOperand operand;
    if (parser.parseArgument(arg) || parser.parseEqual() ||
        parser.parseOperand(operand) || parser.parseColonType(arg.type))
      return failure();
    blockArgs.push_back(arg);
    operands.push_back(operand);
    return success();
  };
  if (parser.parseKeyword("ins") ||
      parser.parseCommaSeparatedList(OpAsmParser::Delimiter::Paren, parseInput,
                                     " in the region inputs"))
    return failure();
  for (auto [arg, operand] : llvm::zip_equal(blockArgs, operands))
    if (parser.resolveOperand(operand, arg.type, result.operands))
      return failure();

  if (parser.parseOptionalArrowTypeList(result.types))
    return failure();

  // MLIR's parser, verifier and walks recurse once per nested region: tens
  // of thousands of nested regions overflow the stack (a crash, found by the
  // bad-input corpus). Real models nest a few checkpoints deep.
  static thread_local unsigned depth = 0;
  if (depth >= kMaxRegionNesting)
    return parser.emitError(parser.getCurrentLocation())
           << "trace regions nested more than " << kMaxRegionNesting
           << " deep";
  ++depth;
  auto leave = llvm::make_scope_exit([] { --depth; });

  Region *body = result.addRegion();
  // No name shadowing: outer names stay visible to the parser so that a use
  // of an outer value reaches the verifier's "using value defined outside
  // the region" (with a note at the region) instead of "undeclared name".
  if (parser.parseRegion(*body, blockArgs, /*enableNameShadowing=*/false) ||
      parser.parseOptionalAttrDictWithKeyword(result.attributes))
    return failure();
  return success();
}

template <typename OpT>
static void printIsolatedRegionOp(OpAsmPrinter &p, OpT op,
                                  CheckpointPolicyAttr policy) {
  if (auto name = op.getNameAttr()) {
    p << ' ';
    p.printAttributeWithoutType(name);
  }
  if (policy)
    p << " policy = " << policy;
  p << " ins(";
  Block &body = op.getBody().front();
  llvm::interleaveComma(
      llvm::zip_equal(body.getArguments(), op.getInputs()), p, [&](auto pair) {
        auto [arg, input] = pair;
        p.printRegionArgument(arg, {}, /*omitType=*/true);
        p << " = " << input << " : " << input.getType();
      });
  p << ')';
  p.printOptionalArrowTypeList(op.getResultTypes());
  p << ' ';
  p.printRegion(op.getBody(), /*printEntryBlockArgs=*/false,
                /*printBlockTerminators=*/true);
  p.printOptionalAttrDictWithKeyword(op->getAttrs(),
                                     /*elidedAttrs=*/{"name", "policy"});
}

ParseResult CheckpointOp::parse(OpAsmParser &parser, OperationState &result) {
  return parseIsolatedRegionOp(parser, result, /*allowPolicy=*/true);
}
void CheckpointOp::print(OpAsmPrinter &p) {
  printIsolatedRegionOp(p, *this, getPolicyAttr());
}
ParseResult FusionOp::parse(OpAsmParser &parser, OperationState &result) {
  return parseIsolatedRegionOp(parser, result, /*allowPolicy=*/false);
}
void FusionOp::print(OpAsmPrinter &p) {
  printIsolatedRegionOp(p, *this, /*policy=*/{});
}

//===----------------------------------------------------------------------===//
// Verification
//===----------------------------------------------------------------------===//

/// Block arguments must match the operands and the yield must match the
/// results, one for one. (IsolatedFromAbove already rejects uses of outside
/// values, with a note at the value's definition.)
template <typename OpT>
static LogicalResult verifyIsolatedRegionOp(OpT op) {
  Block &body = op.getBody().front();
  if (body.getNumArguments() != op.getInputs().size())
    return op.emitOpError("has ")
           << op.getInputs().size() << " inputs but its body has "
           << body.getNumArguments() << " block arguments";
  for (auto [index, pair] :
       llvm::enumerate(llvm::zip_equal(body.getArgumentTypes(),
                                       op.getInputs().getTypes()))) {
    auto [argType, inputType] = pair;
    if (argType != inputType)
      return op.emitOpError("block argument ")
             << index << " has type " << argType << " but input " << index
             << " has type " << inputType;
  }
  auto yield = dyn_cast<YieldOp>(body.getTerminator());
  if (!yield)
    return op.emitOpError("body must end with trace.yield, not ")
           << body.getTerminator()->getName();
  if (yield.getValues().size() != op.getNumResults())
    return yield.emitOpError("yields ")
           << yield.getValues().size() << " values but the enclosing '"
           << op->getName() << "' has " << op.getNumResults() << " results";
  for (auto [index, pair] : llvm::enumerate(llvm::zip_equal(
           yield.getValues().getTypes(), op.getResultTypes()))) {
    auto [yieldType, resultType] = pair;
    if (yieldType != resultType)
      return yield.emitOpError("value ")
             << index << " has type " << yieldType << " but result " << index
             << " of the enclosing '" << op->getName() << "' has type "
             << resultType;
  }
  return success();
}

LogicalResult CheckpointOp::verifyRegions() {
  if (failed(verifyIsolatedRegionOp(*this)))
    return failure();
  // Policy entries naming ops must name registered trace ops: a typo would
  // otherwise silently save nothing.
  if (CheckpointPolicyAttr policy = getPolicyAttr(); policy &&
                                                     policy.getSaveOps()) {
    for (Attribute entry : policy.getSaveOps()) {
      StringRef opName = cast<StringAttr>(entry).getValue();
      std::optional<RegisteredOperationName> registered =
          RegisteredOperationName::lookup(opName, getContext());
      if (!registered || registered->getDialectNamespace() != "trace")
        return emitOpError("policy save_ops names '")
               << opName << "', which is not a trace op";
    }
  }
  return success();
}

LogicalResult FusionOp::verifyRegions() {
  return verifyIsolatedRegionOp(*this);
}

YieldOp CheckpointOp::getYield() {
  return cast<YieldOp>(getBody().front().getTerminator());
}
YieldOp FusionOp::getYield() {
  return cast<YieldOp>(getBody().front().getTerminator());
}

//===----------------------------------------------------------------------===//
// Canonicalization
//===----------------------------------------------------------------------===//

namespace {

/// Replaces `op` by a copy with only the inputs in `keptInputs` and the
/// results in `keptResults`. Dropped inputs must have no uses in the body and
/// dropped results no uses outside.
template <typename OpT>
void rebuildRegionOp(OpT op, ArrayRef<unsigned> keptInputs,
                     ArrayRef<unsigned> keptResults,
                     PatternRewriter &rewriter) {
  Block &oldBody = op.getBody().front();
  YieldOp oldYield = op.getYield();

  SmallVector<Value> inputs;
  for (unsigned i : keptInputs)
    inputs.push_back(op.getInputs()[i]);
  SmallVector<Type> resultTypes;
  for (unsigned i : keptResults)
    resultTypes.push_back(op.getResult(i).getType());

  auto newOp = OpT::create(rewriter, op.getLoc(), resultTypes, inputs,
                           op->getAttrs());
  Block *newBody = rewriter.createBlock(&newOp.getBody());
  IRMapping mapping;
  for (unsigned i : keptInputs)
    mapping.map(oldBody.getArgument(i),
                newBody->addArgument(oldBody.getArgument(i).getType(),
                                     oldBody.getArgument(i).getLoc()));
  rewriter.setInsertionPointToStart(newBody);
  for (Operation &inner : oldBody.without_terminator())
    rewriter.clone(inner, mapping);
  SmallVector<Value> yielded;
  for (unsigned i : keptResults)
    yielded.push_back(mapping.lookupOrDefault(oldYield.getValues()[i]));
  YieldOp::create(rewriter, oldYield.getLoc(), yielded);

  // Dropped results have no uses, so only the kept ones need replacing.
  for (auto [newIndex, oldIndex] : llvm::enumerate(keptResults))
    rewriter.replaceAllUsesWith(op.getResult(oldIndex),
                                newOp.getResult(newIndex));
  rewriter.eraseOp(op);
}

/// Removes unused results, results that pass an input straight through
/// (their uses take the input directly), unused inputs and duplicate inputs.
/// A region left with no results disappears (it is free of side effects).
template <typename OpT>
struct SimplifyRegionOp : OpRewritePattern<OpT> {
  using OpRewritePattern<OpT>::OpRewritePattern;

  LogicalResult matchAndRewrite(OpT op,
                                PatternRewriter &rewriter) const override {
    Block &body = op.getBody().front();
    YieldOp yield = op.getYield();
    bool changed = false;

    // Pass-through results: yield of a block argument.
    for (auto [index, value] : llvm::enumerate(yield.getValues())) {
      auto arg = dyn_cast<BlockArgument>(value);
      if (!arg || arg.getOwner() != &body || op.getResult(index).use_empty())
        continue;
      rewriter.replaceAllUsesWith(op.getResult(index),
                                  op.getInputs()[arg.getArgNumber()]);
      changed = true;
    }

    // Duplicate inputs: redirect the later argument to the first.
    llvm::SmallDenseMap<Value, unsigned> firstArg;
    for (auto [index, input] : llvm::enumerate(op.getInputs())) {
      auto [it, inserted] = firstArg.try_emplace(input, index);
      BlockArgument arg = body.getArgument(index);
      if (!inserted && !arg.use_empty()) {
        rewriter.replaceAllUsesWith(arg, body.getArgument(it->second));
        changed = true;
      }
    }

    SmallVector<unsigned> keptResults, keptInputs;
    for (unsigned i = 0, e = op.getNumResults(); i < e; ++i)
      if (!op.getResult(i).use_empty())
        keptResults.push_back(i);
    if (keptResults.empty()) {
      rewriter.eraseOp(op);
      return success();
    }
    // An argument used only by a yielded value that is being dropped still
    // counts as used here; a second application removes it.
    for (unsigned i = 0, e = body.getNumArguments(); i < e; ++i)
      if (!body.getArgument(i).use_empty())
        keptInputs.push_back(i);

    if (keptResults.size() == op.getNumResults() &&
        keptInputs.size() == body.getNumArguments())
      return success(changed);
    rebuildRegionOp(op, keptInputs, keptResults, rewriter);
    return success();
  }
};

} // namespace

void CheckpointOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                               MLIRContext *context) {
  results.add<SimplifyRegionOp<CheckpointOp>>(context);
}

void FusionOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                           MLIRContext *context) {
  results.add<SimplifyRegionOp<FusionOp>>(context);
}
