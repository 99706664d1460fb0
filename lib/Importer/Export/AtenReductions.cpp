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
  };
  return entries;
}
