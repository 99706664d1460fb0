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
  using B = TensorBuilder::Binary;
  using U = TensorBuilder::Unary;
  Value x = self(node);
  std::vector<int64_t> dims;
  if (hasInput(node, "dim"))
    dims = intListArg(node, "dim");
  bool keepdim = hasInput(node, "keepdim") && boolArg(node, "keepdim");
  if (name == "amin") {
    // In the input's type (integers stay integers).
    Value top = tb.amax(tb.unary(U::Neg, x), dims, keepdim);
    return setResult(node, tb.unary(U::Neg, check(top)));
  }
  x = tb.convert(x, tb.floatTypeFor(TensorBuilder::typeOf(x).getElementType()));
  // A 0-d tensor is its own logsumexp (dim 0 or -1 names it).
  if (name == "logsumexp" && TensorBuilder::typeOf(x).getRank() == 0)
    return setResult(node, x);
  if (name == "logsumexp") {
    // m + log(sum(exp(x - m))), m the max (through stop_gradient: the
    // gradient is then softmax exactly), 0 where it is infinite (all -inf
    // gives -inf, as torch).
    Value top = check(tb.amax(x, dims, /*keepdim=*/true));
    Value finite = tb.compare(ComparisonDirection::NE,
                              tb.unary(U::Abs, top),
                              Scalar::ofFloat(INFINITY));
    Value shift = tb.stopGradient(tb.where(finite, top, Scalar::ofFloat(0)));
    Value e = tb.unary(U::Exp, tb.binary(B::Sub, x, shift));
    Value lse = tb.unary(U::Log, tb.sum(e, dims, /*keepdim=*/true));
    Value out = tb.binary(B::Add, lse, shift);
    if (!keepdim)
      out = tb.squeeze(check(out), dims.empty() ? std::vector<int64_t>{}
                                                : dims);
    return setResult(node, out);
  }
  // var and std: the mean of the squared deviations over N - correction.
  double correction = 1.0;
  if (hasInput(node, "correction")) {
    c10::IValue c = constArg(node, "correction");
    if (!c.isNone())
      correction = c.isInt() ? double(c.toInt()) : c.toDouble();
  } else if (hasInput(node, "unbiased")) {
    correction = boolArg(node, "unbiased") ? 1.0 : 0.0;
  }
  ArrayRef<int64_t> shape = TensorBuilder::typeOf(x).getShape();
  int64_t count = 1;
  for (int64_t d = 0, e = shape.size(); d < e; ++d)
    if (dims.empty() ||
        llvm::is_contained(dims, d) || llvm::is_contained(dims, d - e))
      count *= shape[d];
  Value mu = tb.mean(x, dims, /*keepdim=*/true);
  Value centered = tb.binary(B::Sub, x, mu);
  Value squares = tb.binary(B::Mul, centered, centered);
  Value total = tb.sum(squares, dims, keepdim);
  // torch divides by max(N - correction, 0): a zero count gives inf/NaN.
  double divisor = std::max(double(count) - correction, 0.0);
  Value var = tb.binary(B::Div, total, Scalar::ofFloat(divisor));
  if (name == "var")
    return setResult(node, var);
  // std: sqrt, with no gradient where the variance is 0 (torch's
  // std_backward masks it there; sqrt's would be 0 * inf = NaN).
  Value flat = tb.compare(ComparisonDirection::EQ, var, Scalar::ofFloat(0.0));
  Value safe = tb.where(flat, Scalar::ofFloat(1.0), var);
  Value root = tb.unary(U::Sqrt, safe);
  return setResult(node, tb.where(flat, Scalar::ofFloat(0.0), root));
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
