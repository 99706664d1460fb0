//===- TraceAttrs.cpp - trace dialect attributes and enums ----------------===//

#include "trace/Dialect/Trace/IR/TraceOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::trace;

#include "trace/Dialect/Trace/IR/TraceEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "trace/Dialect/Trace/IR/TraceAttrs.cpp.inc"

void TraceDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "trace/Dialect/Trace/IR/TraceAttrs.cpp.inc"
      >();
}

static LogicalResult
verifyStringList(function_ref<InFlightDiagnostic()> emitError, ArrayAttr list,
                 StringRef what) {
  if (!list)
    return success();
  for (Attribute entry : list) {
    auto str = dyn_cast<StringAttr>(entry);
    if (!str || str.getValue().empty())
      return emitError() << "policy " << what
                         << " must be a list of non-empty strings, got "
                         << entry;
  }
  return success();
}

LogicalResult
CheckpointPolicyAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                             ArrayAttr saveOps, ArrayAttr saveNames) {
  if (failed(verifyStringList(emitError, saveOps, "save_ops")) ||
      failed(verifyStringList(emitError, saveNames, "save_names")))
    return failure();
  return success();
}

static bool listContains(ArrayAttr list, StringRef value) {
  return list && llvm::any_of(list, [&](Attribute entry) {
           return cast<StringAttr>(entry).getValue() == value;
         });
}

bool CheckpointPolicyAttr::allowsSaving(Operation *op) const {
  if (listContains(getSaveOps(), op->getName().getStringRef()))
    return true;
  auto name = op->getAttrOfType<StringAttr>(TraceDialect::kNameAttrName);
  return name && listContains(getSaveNames(), name.getValue());
}
