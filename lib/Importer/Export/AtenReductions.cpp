//===- AtenReductions.cpp - Core ATen reductions --------------------------===//
//
// The operators of one family (sums, means, maxima over dims): a handler
// each, named in the table at the end of the file, which importNode
// dispatches on (ExportImporter.cpp).
//
//===----------------------------------------------------------------------===//

#include "Importer.h"

using namespace mlir;
using namespace mlir::trace;
using namespace mlir::trace::pt2;

/// sum.default, sum.dim_IntList, mean.default, mean.dim: no dims (or an
/// empty list, or None) reduce everything.
void Importer::atenSum(const ex::Node &node, StringRef op) {
  Value x = self(node);
  SmallVector<int64_t> dims = intsArg(node, "dim");
  bool keepdim = boolArg(node, "keepdim", false);
  std::optional<Type> dtype = dtypeArg(node, "dtype");
  if (op == "sum")
    return setResult(node, tb.sum(x, dims, keepdim, dtype));
  return setResult(node, tb.mean(x, dims, keepdim, dtype));
}

/// amax.
void Importer::atenAmax(const ex::Node &node, StringRef op) {
  Value x = self(node);
  SmallVector<int64_t> dims = intsArg(node, "dim");
  return setResult(node, tb.amax(x, dims, boolArg(node, "keepdim", false)));
}

/// any.dim, any.dims, any.default: whether some element along the dims is
/// nonzero, as the max of the elements' truth, to bool.
void Importer::atenAny(const ex::Node &node, StringRef op) {
  Value x = self(node);
  auto type = TensorBuilder::typeOf(x);
  SmallVector<int64_t> dims;
  if (findArg(node, "dim") && findArg(node, "dim")->tag() ==
                                  ex::Argument::Tag::AS_INT)
    dims.push_back(intArg(node, "dim"));
  else if (findArg(node, "dim"))
    dims = intsArg(node, "dim", SmallVector<int64_t>{});
  if (dims.empty())
    for (int64_t d = 0; d < type.getRank(); ++d)
      dims.push_back(d);
  Value truth = type.getElementType().isInteger(1)
                    ? x
                    : check(tb.compare(ComparisonDirection::NE, x,
                                       Scalar::ofInt(0)));
  Value asFloat = tb.convert(truth, builder.getF32Type());
  Value max = check(tb.amax(asFloat, dims, boolArg(node, "keepdim", false)));
  return setResult(node, tb.compare(ComparisonDirection::NE, max,
                                    Scalar::ofInt(0)));
}

/// max.default, min.default: the extreme of every element, 0-d, with
/// amax's NaN and its gradient (shared evenly by ties, as torch's
/// evenly_distribute_backward).
void Importer::atenExtremeAll(const ex::Node &node, StringRef op) {
  Value x = self(node);
  if (TensorBuilder::typeOf(x).getNumElements() == 0)
    fail(node.get_target() + ": of an empty tensor, which has no " +
         op.str() + " (torch raises too)");
  return setResult(node, op == "max" ? tb.amax(x, {}, /*keepdim=*/false)
                                     : tb.amin(x, {}, /*keepdim=*/false));
}

/// amin.default.
void Importer::atenAmin(const ex::Node &node, StringRef op) {
  Value x = self(node);
  SmallVector<int64_t> dims = intsArg(node, "dim");
  return setResult(node, tb.amin(x, dims, boolArg(node, "keepdim", false)));
}

/// var.correction, var.dim (`unbiased`), var_mean.correction (the variance
/// and the mean).
void Importer::atenVar(const ex::Node &node, StringRef op) {
  Value x = self(node);
  SmallVector<int64_t> dims = intsArg(node, "dim");
  bool keepdim = boolArg(node, "keepdim", false);
  double correction = 1.0;
  const ex::Argument *c = findArg(node, "correction");
  if (c && c->tag() != ex::Argument::Tag::AS_NONE)
    correction = scalarArg(node, "correction").asDouble();
  else if (findArg(node, "unbiased"))
    correction = boolArg(node, "unbiased", true) ? 1.0 : 0.0;
  setResult(node, 0, tb.variance(x, dims, correction, keepdim));
  if (op == "var_mean") {
    Value floats = tb.convert(
        x, tb.floatTypeFor(TensorBuilder::typeOf(x).getElementType()));
    setResult(node, 1, tb.mean(floats, dims, keepdim));
  }
}

/// prod.default, prod.dim_int.
void Importer::atenProd(const ex::Node &node, StringRef op) {
  Value x = self(node);
  SmallVector<int64_t> dims;
  if (std::optional<int64_t> dim = optIntArg(node, "dim"))
    dims.push_back(*dim);
  return setResult(node, tb.prod(x, dims, boolArg(node, "keepdim", false),
                                 dtypeArg(node, "dtype")));
}

/// cumsum.default.
void Importer::atenCumsum(const ex::Node &node, StringRef op) {
  return setResult(node, tb.cumsum(self(node), intArg(node, "dim"),
                                   dtypeArg(node, "dtype")));
}

/// argmax, argmin (over everything without `dim`), max.dim, min.dim (the
/// values and the indices).
void Importer::atenExtremum(const ex::Node &node, StringRef op) {
  Value x = self(node);
  bool isMax = op == "max" || op == "argmax";
  auto [value, index] = tb.extremum(x, optIntArg(node, "dim"),
                                    boolArg(node, "keepdim", false), isMax);
  if (!value || !index)
    throw ImportError();
  if (op == "argmax" || op == "argmin")
    return setResult(node, index);
  setResult(node, 0, value);
  setResult(node, 1, index);
}

/// sort.default, sort.stable (stable either way), topk.default (the k
/// largest, or smallest, in order).
void Importer::atenSort(const ex::Node &node, StringRef op) {
  Value x = self(node);
  int64_t dim = intArg(node, "dim", -1);
  bool descending = op == "topk" ? boolArg(node, "largest", true)
                                 : boolArg(node, "descending", false);
  auto [values, indices] = tb.sort(x, dim, descending);
  if (!values || !indices)
    throw ImportError();
  if (op == "topk") {
    int64_t k = intArg(node, "k");
    int64_t rank = TensorBuilder::typeOf(values).getRank();
    int64_t d = tb.normalizeDim(dim, std::max<int64_t>(rank, 1));
    int64_t size = rank ? TensorBuilder::typeOf(values).getDimSize(d) : 1;
    if (k < 0 || k > size)
      fail(node.get_target() + ": k=" + Twine(k) + " is out of range for a "
                               "dim of size " + Twine(size));
    if (rank) {
      values = check(tb.slice(values, d, 0, k, 1));
      indices = check(tb.slice(indices, d, 0, k, 1));
    }
  }
  setResult(node, 0, values);
  setResult(node, 1, indices);
}

ArrayRef<Importer::Entry> Importer::reductionOps() {
  static const Entry entries[] = {
      {"torch.ops.aten.any.default", &Importer::atenAny},
      {"torch.ops.aten.any.dim", &Importer::atenAny},
      {"torch.ops.aten.any.dims", &Importer::atenAny},
      {"torch.ops.aten.sum.default", &Importer::atenSum},
      {"torch.ops.aten.sum.dim_IntList", &Importer::atenSum},
      {"torch.ops.aten.mean.default", &Importer::atenSum},
      {"torch.ops.aten.mean.dim", &Importer::atenSum},
      {"torch.ops.aten.amax.default", &Importer::atenAmax},
      {"torch.ops.aten.amin.default", &Importer::atenAmin},
      {"torch.ops.aten.max.default", &Importer::atenExtremeAll},
      {"torch.ops.aten.min.default", &Importer::atenExtremeAll},
      {"torch.ops.aten.var.correction", &Importer::atenVar},
      {"torch.ops.aten.var.dim", &Importer::atenVar},
      {"torch.ops.aten.var_mean.correction", &Importer::atenVar},
      {"torch.ops.aten.prod.default", &Importer::atenProd},
      {"torch.ops.aten.prod.dim_int", &Importer::atenProd},
      {"torch.ops.aten.cumsum.default", &Importer::atenCumsum},
      {"torch.ops.aten.argmax.default", &Importer::atenExtremum},
      {"torch.ops.aten.argmin.default", &Importer::atenExtremum},
      {"torch.ops.aten.max.dim", &Importer::atenExtremum},
      {"torch.ops.aten.min.dim", &Importer::atenExtremum},
      {"torch.ops.aten.sort.default", &Importer::atenSort},
      {"torch.ops.aten.sort.stable", &Importer::atenSort},
      {"torch.ops.aten.topk.default", &Importer::atenSort},
  };
  return entries;
}
