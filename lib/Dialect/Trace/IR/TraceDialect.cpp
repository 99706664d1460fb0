//===- TraceDialect.cpp - the trace dialect -------------------------------===//

#include "trace/Dialect/Trace/IR/TraceDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/OpImplementation.h"
#include "trace/Dialect/Trace/IR/TraceOps.h"

#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::trace;

#include "trace/Dialect/Trace/IR/TraceDialect.cpp.inc"

namespace {

/// Prints the results of an op carrying `trace.name = "blocks.0.fc1"` as
/// `%blocks.0.fc1` (with `_N` suffixes for multiple results), so IR taken
/// from a model reads with the model's own names. Attached to every trace op
/// as an external model so the rule is written once.
template <typename OpT>
struct NamedResultsAsmModel
    : OpAsmOpInterface::ExternalModel<NamedResultsAsmModel<OpT>, OpT> {
  void getAsmResultNames(Operation *op, OpAsmSetValueNameFn setNameFn) const {
    auto name = op->getAttrOfType<StringAttr>(TraceDialect::kNameAttrName);
    if (!name || name.getValue().empty() || op->getNumResults() == 0)
      return;
    if (op->getNumResults() == 1) {
      setNameFn(op->getResult(0), name.getValue());
      return;
    }
    for (OpResult result : op->getResults())
      setNameFn(result,
                (name.getValue() + "_" + Twine(result.getResultNumber())).str());
  }
};

template <typename... OpTs>
void attachNamedResultsModels(MLIRContext *ctx) {
  (OpTs::template attachInterface<NamedResultsAsmModel<OpTs>>(*ctx), ...);
}

} // namespace

void TraceDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "trace/Dialect/Trace/IR/TraceOps.cpp.inc"
      >();
  registerAttributes();
  attachNamedResultsModels<
#define GET_OP_LIST
#include "trace/Dialect/Trace/IR/TraceOps.cpp.inc"
      >(getContext());
}

Operation *TraceDialect::materializeConstant(OpBuilder &builder,
                                             Attribute value, Type type,
                                             Location loc) {
  auto elements = dyn_cast<ElementsAttr>(value);
  if (!elements || elements.getType() != type)
    return nullptr;
  return ConstantOp::create(builder, loc, elements);
}

bool TraceDialect::isBufferUpdate(FunctionOpInterface func, unsigned i) {
  auto role = func.getResultAttrOfType<StringAttr>(i, kRoleAttrName);
  return role && role.getValue() == kBufferUpdateRole;
}

bool TraceDialect::isBuffer(FunctionOpInterface func, unsigned i) {
  auto role = func.getArgAttrOfType<StringAttr>(i, kRoleAttrName);
  return role && role.getValue() == kBufferRole;
}
