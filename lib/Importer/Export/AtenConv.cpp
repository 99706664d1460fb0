//===- AtenConv.cpp - Core ATen convolution -------------------------------===//
//
// The operators of one family (convolutions): a handler each, named in the
// table at the end of the file, which importNode dispatches on
// (ExportImporter.cpp). Core ATen has one convolution operator; conv1d/2d/3d
// and the transposed ones decompose into it. Pooling is here too, as in the
// TorchScript importer.
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

/// A pooling's per-spatial-dim list `name`: one entry for all, or one per
/// dim; empty (an absent stride) gives `byDefault`.
static SmallVector<int64_t> poolList(SmallVector<int64_t> list,
                                     ArrayRef<int64_t> byDefault,
                                     int64_t spatial) {
  if (list.empty())
    return SmallVector<int64_t>(byDefault);
  if (list.size() == 1)
    list.assign(spatial, list.front());
  return list;
}

/// Spatial dims of max_pool2d_with_indices, avg_pool3d, ...
static int64_t poolSpatialDims(StringRef op) {
  return op.contains("1d") ? 1 : op.contains("3d") ? 3 : 2;
}

/// A pooling's kernel_size, stride (absent: the kernel), padding and
/// dilation, one entry per spatial dim each.
Importer::PoolWindow Importer::poolWindowArgs(const ex::Node &node,
                                              int64_t spatial) {
  PoolWindow w;
  w.kernel = poolList(intsArg(node, "kernel_size"), {}, spatial);
  w.stride = poolList(intsArg(node, "stride", SmallVector<int64_t>{}),
                      w.kernel, spatial);
  w.padding =
      poolList(intsArg(node, "padding", SmallVector<int64_t>{0}), {}, spatial);
  w.dilation =
      poolList(intsArg(node, "dilation", SmallVector<int64_t>{1}), {}, spatial);
  for (const SmallVector<int64_t> *list :
       {&w.kernel, &w.stride, &w.padding, &w.dilation})
    if (int64_t(list->size()) != spatial)
      fail(node.get_target() + ": kernel_size, stride, padding and dilation "
                               "need one entry or one per spatial dim");
  return w;
}

/// max_pool{2,3}d_with_indices: (output, indices). trace-autodiff
/// differentiates the max itself; the indices (flat in each input plane,
/// as PyTorch's) are built only for a later node that reads them.
void Importer::atenMaxPool(const ex::Node &node, StringRef op) {
  Value x = self(node);
  PoolWindow w = poolWindowArgs(node, poolSpatialDims(op));
  // The indices only when a later node reads them (max_unpool, a gather).
  Value indices;
  bool withIndices = usedOutput(node, 1).has_value();
  setResult(node, 0,
            tb.maxPool(x, w.kernel, w.stride, w.padding, w.dilation,
                       boolArg(node, "ceil_mode", false),
                       withIndices ? &indices : nullptr));
  if (withIndices)
    setResult(node, 1, indices);
}

/// avg_pool{1,2,3}d (no dilation: the window's default of 1).
void Importer::atenAvgPool(const ex::Node &node, StringRef op) {
  Value x = self(node);
  PoolWindow w = poolWindowArgs(node, poolSpatialDims(op));
  std::optional<int64_t> divisor = optIntArg(node, "divisor_override");
  return setResult(node, tb.avgPool(x, w.kernel, w.stride, w.padding,
                                    boolArg(node, "ceil_mode", false),
                                    boolArg(node, "count_include_pad", true),
                                    divisor));
}

/// _adaptive_avg_pool{2,3}d (adaptive_avg_pool1d decomposes to the 2d).
void Importer::atenAdaptiveAvgPool(const ex::Node &node, StringRef op) {
  return setResult(node,
                   tb.adaptiveAvgPool(self(node), intsArg(node, "output_size")));
}

/// upsample_nearest{1,2,3}d.vec, upsample_linear1d.vec,
/// upsample_bilinear2d.vec, upsample_trilinear3d.vec: output_size, or
/// scale_factors (the size is then the input's times the factor,
/// truncated, as compute_output_size).
void Importer::atenUpsample(const ex::Node &node, StringRef op) {
  bool linear = !op.starts_with("upsample_nearest");
  int64_t spatial = op.ends_with("1d") ? 1 : op.ends_with("2d") ? 2 : 3;
  Value x = tensorArg(node, "input");
  ArrayRef<int64_t> shape = TensorBuilder::typeOf(x).getShape();
  if (int64_t(shape.size()) != spatial + 2)
    fail(node.get_target() + ": expected an input of rank " +
         Twine(spatial + 2) + ", got " + Twine(shape.size()));
  SmallVector<double> scales(spatial, 0.0);
  const ex::Argument *factors = findArg(node, "scale_factors");
  if (factors && factors->tag() == ex::Argument::Tag::AS_FLOATS) {
    const auto &given = factors->get_as_floats();
    if (int64_t(given.size()) != spatial)
      fail(node.get_target() + ": expected " + Twine(spatial) +
           " scale factors, got " + Twine(given.size()));
    for (auto [d, factor] : llvm::enumerate(given))
      scales[d] = factor.get();
  } else if (factors && factors->tag() != ex::Argument::Tag::AS_NONE) {
    badArg(node, "scale_factors", *factors, "a list of floats or None");
  }
  SmallVector<int64_t> size = intsArg(node, "output_size",
                                      SmallVector<int64_t>{});
  if (size.empty()) {
    if (llvm::all_of(scales, [](double v) { return v <= 0; }))
      fail(node.get_target() + ": needs output_size or scale_factors");
    for (int64_t d = 0; d < spatial; ++d)
      size.push_back(int64_t(double(shape[2 + d]) * scales[d]));
  } else if (int64_t(size.size()) != spatial) {
    fail(node.get_target() + ": expected " + Twine(spatial) +
         " output sizes, got " + Twine(size.size()));
  }
  bool alignCorners = linear && boolArg(node, "align_corners", false);
  return setResult(node,
                   tb.upsample(x, size, scales,
                               linear ? TensorBuilder::Interpolation::Linear
                                      : TensorBuilder::Interpolation::Nearest,
                               alignCorners));
}

ArrayRef<Importer::Entry> Importer::convOps() {
  static const Entry entries[] = {
      {"torch.ops.aten.convolution.default", &Importer::atenConvolution},
      {"torch.ops.aten.max_pool2d_with_indices.default",
       &Importer::atenMaxPool},
      {"torch.ops.aten.max_pool3d_with_indices.default",
       &Importer::atenMaxPool},
      {"torch.ops.aten.avg_pool1d.default", &Importer::atenAvgPool},
      {"torch.ops.aten.avg_pool2d.default", &Importer::atenAvgPool},
      {"torch.ops.aten.avg_pool3d.default", &Importer::atenAvgPool},
      {"torch.ops.aten._adaptive_avg_pool2d.default",
       &Importer::atenAdaptiveAvgPool},
      {"torch.ops.aten._adaptive_avg_pool3d.default",
       &Importer::atenAdaptiveAvgPool},
      {"torch.ops.aten.upsample_nearest1d.vec", &Importer::atenUpsample},
      {"torch.ops.aten.upsample_nearest2d.vec", &Importer::atenUpsample},
      {"torch.ops.aten.upsample_nearest3d.vec", &Importer::atenUpsample},
      {"torch.ops.aten.upsample_linear1d.vec", &Importer::atenUpsample},
      {"torch.ops.aten.upsample_bilinear2d.vec", &Importer::atenUpsample},
      {"torch.ops.aten.upsample_trilinear3d.vec", &Importer::atenUpsample},
  };
  return entries;
}
