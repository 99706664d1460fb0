//===- AtenConv.cpp - Core ATen convolution -------------------------------===//
//
// The operators of one family (convolutions): a handler each, named in the
// table at the end of the file, which importNode dispatches on
// (ExportImporter.cpp). Core ATen has one convolution operator; conv1d/2d/3d
// and the transposed ones decompose into it.
//
//===----------------------------------------------------------------------===//

#include "Importer.h"

using namespace mlir;
using namespace mlir::trace;
using namespace mlir::trace::pt2;

/// convolution: `x` [N, C, spatial...], `weight` [O, C / groups, kernel...]
/// ([C, O / groups, ...] when transposed); stride, padding, dilation and
/// output_padding one entry per spatial dim (or one for all).
void Importer::atenConvolution(const ex::Node &node, StringRef op) {
  Value input = tensorArg(node, "input");
  Value weight = tensorArg(node, "weight");
  Value bias = optTensorArg(node, "bias");
  int64_t spatial = TensorBuilder::typeOf(weight).getRank() - 2;
  if (spatial < 1)
    fail(node.get_target() + ": the weight must have a spatial dim, got rank " +
         Twine(spatial + 2));
  auto perDim = [&](StringRef name, int64_t byDefault) {
    SmallVector<int64_t> list =
        intsArg(node, name, SmallVector<int64_t>(spatial, byDefault));
    if (list.size() == 1)
      list.assign(spatial, list.front());
    if (int64_t(list.size()) != spatial)
      fail(node.get_target() + ": " + name + " has " + Twine(list.size()) +
           " entries for " + Twine(spatial) + " spatial dims");
    return list;
  };
  SmallVector<int64_t> stride = perDim("stride", 1);
  SmallVector<int64_t> dilation = perDim("dilation", 1);
  SmallVector<int64_t> outputPadding = perDim("output_padding", 0);
  // TensorBuilder takes the padding before and after each spatial dim.
  SmallVector<int64_t> padding;
  for (int64_t p : perDim("padding", 0)) {
    if (p < 0)
      fail(node.get_target() + ": negative padding " + Twine(p));
    padding.append({p, p});
  }
  bool transposed = boolArg(node, "transposed", false);
  int64_t groups = intArg(node, "groups", 1);
  return setResult(node, tb.convolution(input, weight, bias, stride, padding,
                                        dilation, transposed, outputPadding,
                                        groups));
}

ArrayRef<Importer::Entry> Importer::convOps() {
  static const Entry entries[] = {
      {"torch.ops.aten.convolution.default", &Importer::atenConvolution},
  };
  return entries;
}
