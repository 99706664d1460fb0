//===- AtenReductions.cpp - aten reductions -------------------------------===//
//
// The aten operators of one family (reductions): a handler each, named in
// the table at the end of the file, which importAten dispatches on
// (GraphWalk.cpp).
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

/// aten::var, aten::std (the `dim` overload with `unbiased`, the
/// `correction` one), aten::logsumexp, aten::amin.
void Importer::atenStatistic(jit::Node *node, StringRef name) {
  Value x = self(node);
  std::vector<int64_t> dims;
  if (hasInput(node, "dim"))
    dims = intListArg(node, "dim");
  bool keepdim = hasInput(node, "keepdim") && boolArg(node, "keepdim");
  if (name == "amin")
    return setResult(node, tb.amin(x, dims, keepdim));
  if (name == "logsumexp")
    return setResult(node, tb.logsumexp(x, dims, keepdim));
  double correction = 1.0;
  if (hasInput(node, "correction")) {
    c10::IValue c = constArg(node, "correction");
    if (!c.isNone())
      correction = c.isInt() ? double(c.toInt()) : c.toDouble();
  } else if (hasInput(node, "unbiased")) {
    correction = boolArg(node, "unbiased") ? 1.0 : 0.0;
  }
  if (name == "var")
    return setResult(node, tb.variance(x, dims, correction, keepdim));
  return setResult(node, tb.standardDeviation(x, dims, correction, keepdim));
}

ArrayRef<Importer::AtenEntry> Importer::reductionsAtenOps() {
  static const AtenEntry entries[] = {
      {"sum", &Importer::atenSum},
      {"mean", &Importer::atenSum},
      {"amax", &Importer::atenSum},
      {"amin", &Importer::atenStatistic},
      {"var", &Importer::atenStatistic},
      {"std", &Importer::atenStatistic},
      {"logsumexp", &Importer::atenStatistic},
  };
  return entries;
}
