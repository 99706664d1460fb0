//===- TraceSplit.cpp - the forward/backward split in the IR --------------===//
//
// What trace-autodiff records for later passes, as structure rather than
// names: #trace.derivatives on the differentiated function (symbol
// references to @f_grad, @f_fwd, @f_bwd) and trace.forward_end inside
// @f_grad.
//
//===----------------------------------------------------------------------===//

#include "trace/Dialect/Trace/IR/TraceOps.h"

#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;
using namespace mlir::trace;

namespace {

/// What trace.forward_end writes. Nothing reads it: the write keeps the
/// marker alive under dead-code elimination and in place under passes that
/// reorder only what commutes.
struct ForwardBoundaryResource
    : public SideEffects::Resource::Base<ForwardBoundaryResource> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(ForwardBoundaryResource)
  StringRef getName() final { return "trace.forward_boundary"; }
};

} // namespace

void ForwardEndOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  effects.emplace_back(MemoryEffects::Write::get(),
                       ForwardBoundaryResource::get());
}

LogicalResult ForwardEndOp::verify() {
  if (!isa_and_nonnull<FunctionOpInterface>((*this)->getParentOp()))
    return emitOpError("must be directly in a function's body");
  for (Operation &other : *(*this)->getBlock())
    if (&other != getOperation() && isa<ForwardEndOp>(other))
      return emitOpError("must be the only trace.forward_end of its block");
  return success();
}

// The symbol lookups read only the names of the function's siblings, which
// no function pass changes.
LogicalResult TraceDialect::verifyOperationAttribute(Operation *op,
                                                     NamedAttribute attr) {
  if (attr.getName() != kDerivativesAttrName)
    return success();
  auto derivatives = dyn_cast<DerivativesAttr>(attr.getValue());
  if (!derivatives)
    return op->emitError() << "'" << kDerivativesAttrName
                           << "' must be a #trace.derivatives attribute, got "
                           << attr.getValue();
  if (!isa<FunctionOpInterface>(op))
    return op->emitError() << "'" << kDerivativesAttrName
                           << "' belongs on a function";
  std::pair<StringRef, FlatSymbolRefAttr> parts[] = {
      {"grad", derivatives.getGrad()},
      {"fwd", derivatives.getFwd()},
      {"bwd", derivatives.getBwd()}};
  for (auto [role, symbol] : parts) {
    Operation *target = SymbolTable::lookupNearestSymbolFrom(op, symbol);
    if (!isa_and_nonnull<FunctionOpInterface>(target))
      return op->emitError()
             << "'" << kDerivativesAttrName << "' names " << symbol << " as "
             << role << ", which is not a function of this symbol table";
    if (target == op)
      return op->emitError() << "'" << kDerivativesAttrName << "' names "
                             << symbol << ", the function itself, as " << role;
  }
  if (derivatives.getGrad() == derivatives.getFwd() ||
      derivatives.getGrad() == derivatives.getBwd() ||
      derivatives.getFwd() == derivatives.getBwd())
    return op->emitError() << "'" << kDerivativesAttrName
                           << "' must name three different functions";
  return success();
}
