//===- AtenReductions.cpp - aten reductions -------------------------------===//
//
// The aten operators of one family (reductions): a handler each, named in
// the table at the end of the file, which importAten dispatches on
// (TorchScriptImporter.cpp).
//
//===----------------------------------------------------------------------===//

#include "Importer.h"

using namespace mlir;
using namespace mlir::trace;
using namespace mlir::trace::ts;

/// aten::sum, aten::mean, aten::amax.
void Importer::atenSum(jit::Node *node, StringRef name) {
  std::vector<int64_t> dims;
  bool keepdim = false;
  if (hasInput(node, "dim"))
    dims = intListArg(node, "dim");
  if (hasInput(node, "keepdim"))
    keepdim = boolArg(node, "keepdim");
  if (name == "amax")
    return setResult(node, tb.amax(self(node), dims, keepdim));
  std::optional<Type> dt = dtypeArg(node, "dtype");
  if (name == "sum")
    return setResult(node, tb.sum(self(node), dims, keepdim, dt));
  return setResult(node, tb.mean(self(node), dims, keepdim, dt));
}

ArrayRef<Importer::AtenEntry> Importer::reductionsAtenOps() {
  static const AtenEntry entries[] = {
      {"sum", &Importer::atenSum},
      {"mean", &Importer::atenSum},
      {"amax", &Importer::atenSum},
  };
  return entries;
}
