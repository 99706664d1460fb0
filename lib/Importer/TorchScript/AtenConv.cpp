//===- AtenConv.cpp - aten convolution and pooling operators --------------===//
//
// The aten operators of one family (convolution, pooling and upsampling): a
// handler each, named in the table at the end of the file, which importAten
// dispatches on (GraphWalk.cpp). Every convolution becomes one
// trace.convolution (TensorBuilder::convolution), plus an add for the
// bias; pooling is composed of trace ops (TensorBuilder::maxPool, ...).
//
//===----------------------------------------------------------------------===//

#include "Importer.h"

using namespace mlir;
using namespace mlir::trace;
using namespace mlir::trace::ts;

/// The node's int list `name` with one entry per spatial dim: a single
/// entry applies to every dim, as in torch.nn.functional's arguments.
std::vector<int64_t> Importer::spatialListArg(jit::Node *node,
                                              const char *name,
                                              int64_t spatial) {
  std::vector<int64_t> list = intListArg(node, name);
  if (list.size() == 1)
    list.assign(spatial, list.front());
  if (int64_t(list.size()) != spatial)
    fail("aten::" + Twine(node->kind().toUnqualString()) + ": " + name +
         " has " + Twine(list.size()) + " entries for " + Twine(spatial) +
         " spatial dims");
  return list;
}

/// aten::_convolution, aten::convolution, aten::conv1d/2d/3d (their
/// `padding` a list or "same"/"valid"), aten::_convolution_mode,
/// aten::conv_transpose1d/2d/3d.
void Importer::atenConvolution(jit::Node *node, StringRef name) {
  Value input = tensorArg(node, "input");
  Value weight = tensorArg(node, "weight");
  Value bias = optTensorArg(node, "bias");
  RankedTensorType wType = TensorBuilder::typeOf(weight);
  int64_t spatial = wType.getRank() - 2;
  if (spatial < 1)
    fail("aten::" + name + ": the weight must have a spatial dim, got rank " +
         Twine(wType.getRank()));
  std::vector<int64_t> stride = spatialListArg(node, "stride", spatial);
  std::vector<int64_t> dilation = spatialListArg(node, "dilation", spatial);
  bool transposed = name.starts_with("conv_transpose") ||
                    (hasInput(node, "transposed") &&
                     boolArg(node, "transposed"));
  std::vector<int64_t> outputPadding(spatial, 0);
  if (hasInput(node, "output_padding"))
    outputPadding = spatialListArg(node, "output_padding", spatial);

  // Before and after each spatial dim.
  std::vector<int64_t> padding;
  c10::IValue mode = constArg(node, "padding");
  if (mode.isString()) {
    std::string text = mode.toStringRef();
    if (text != "same" && text != "valid")
      fail("aten::" + name + ": unknown padding '" + text +
           "' (expected 'same', 'valid' or a list)");
    for (int64_t d = 0; d < spatial; ++d) {
      if (text == "valid") {
        padding.insert(padding.end(), {0, 0});
        continue;
      }
      if (stride[d] != 1)
        fail("aten::" + name + ": padding='same' needs stride 1, as in "
             "PyTorch, got stride " + Twine(stride[d]));
      // PyTorch's split: the odd element of the total goes after.
      int64_t total = dilation[d] * (wType.getDimSize(d + 2) - 1);
      padding.insert(padding.end(), {total / 2, total - total / 2});
    }
  } else {
    for (int64_t p : spatialListArg(node, "padding", spatial)) {
      if (p < 0)
        fail("aten::" + name + ": negative padding " + Twine(p));
      padding.insert(padding.end(), {p, p});
    }
  }
  int64_t groups = intArg(node, "groups");
  return setResult(node, tb.convolution(input, weight, bias, stride, padding,
                                        dilation, transposed, outputPadding,
                                        groups));
}

/// The spatial dims of a pooling op from its name: max_pool2d has 2.
static int64_t poolSpatialDims(StringRef name) {
  return name.drop_back().back() - '0';
}

Importer::PoolWindow Importer::poolWindowArgs(jit::Node *node,
                                              int64_t spatial) {
  PoolWindow window;
  window.kernel = spatialListArg(node, "kernel_size", spatial);
  // An empty stride is the kernel's (TensorBuilder's rule).
  window.stride = intListArg(node, "stride");
  if (!window.stride.empty())
    window.stride = spatialListArg(node, "stride", spatial);
  window.padding = spatialListArg(node, "padding", spatial);
  return window;
}

/// aten::max_pool1d/2d/3d.
void Importer::atenMaxPool(jit::Node *node, StringRef name) {
  int64_t spatial = poolSpatialDims(name);
  Value v = self(node);
  auto [kernel, stride, padding] = poolWindowArgs(node, spatial);
  std::vector<int64_t> dilation = spatialListArg(node, "dilation", spatial);
  return setResult(node, tb.maxPool(v, kernel, stride, padding, dilation,
                                    boolArg(node, "ceil_mode")));
}

/// aten::avg_pool1d/2d/3d.
void Importer::atenAvgPool(jit::Node *node, StringRef name) {
  int64_t spatial = poolSpatialDims(name);
  Value v = self(node);
  auto [kernel, stride, padding] = poolWindowArgs(node, spatial);
  std::optional<int64_t> divisor;
  if (hasInput(node, "divisor_override"))
    divisor = optIntArg(node, "divisor_override");
  return setResult(node, tb.avgPool(v, kernel, stride, padding,
                                    boolArg(node, "ceil_mode"),
                                    boolArg(node, "count_include_pad"),
                                    divisor));
}

/// aten::adaptive_avg_pool1d/2d/3d, aten::_adaptive_avg_pool2d/3d.
void Importer::atenAdaptiveAvgPool(jit::Node *node, StringRef name) {
  int64_t spatial = poolSpatialDims(name);
  Value v = self(node);
  std::vector<int64_t> size = spatialListArg(node, "output_size", spatial);
  return setResult(node, tb.adaptiveAvgPool(v, size));
}

/// aten::upsample_nearest1d/2d/3d, aten::upsample_linear1d,
/// aten::upsample_bilinear2d, aten::upsample_trilinear3d: the `.vec`
/// overloads (output_size or scale_factors, what tracing F.interpolate
/// records) and the per-dim ones (output_size, scales_d/h/w).
void Importer::atenUpsample(jit::Node *node, StringRef name) {
  bool linear = !name.starts_with("upsample_nearest");
  int64_t spatial = name.ends_with("1d") ? 1 : name.ends_with("2d") ? 2 : 3;
  bool vec = hasInput(node, "scale_factors");
  Value x = tensorArg(node, vec ? "input" : "self");
  ArrayRef<int64_t> shape = TensorBuilder::typeOf(x).getShape();
  if (int64_t(shape.size()) != spatial + 2)
    fail("aten::" + name + ": expected an input of rank " +
         Twine(spatial + 2) + ", got " + Twine(shape.size()));
  // Per dim, the scale factor given (0: none).
  std::vector<double> scales(spatial, 0.0);
  auto readScale = [&](const char *arg, int64_t d) {
    c10::IValue v = constArg(node, arg);
    if (!v.isNone())
      scales[d] = v.toDouble();
  };
  if (vec) {
    c10::IValue factors = constArg(node, "scale_factors");
    if (!factors.isNone()) {
      std::vector<double> given = factors.toDoubleVector();
      if (int64_t(given.size()) != spatial)
        fail("aten::" + name + ": expected " + Twine(spatial) +
             " scale factors, got " + Twine(given.size()));
      scales = given;
    }
  } else if (spatial == 1) {
    readScale("scales", 0);
  } else {
    const char *names[] = {"scales_d", "scales_h", "scales_w"};
    for (int64_t d = 0; d < spatial; ++d)
      readScale(names[3 - spatial + d], d);
  }
  std::vector<int64_t> size = intListArg(node, "output_size");
  if (size.empty()) {
    if (!vec || llvm::all_of(scales, [](double v) { return v <= 0; }))
      fail("aten::" + name + ": needs output_size or scale_factors");
    // compute_output_size: the input size times the factor, truncated.
    for (int64_t d = 0; d < spatial; ++d)
      size.push_back(int64_t(double(shape[2 + d]) * scales[d]));
  } else if (int64_t(size.size()) != spatial) {
    fail("aten::" + name + ": expected " + Twine(spatial) +
         " output sizes, got " + Twine(size.size()));
  }
  bool alignCorners = linear && boolArg(node, "align_corners");
  return setResult(node,
                   tb.upsample(x, size, scales,
                               linear ? TensorBuilder::Interpolation::Linear
                                      : TensorBuilder::Interpolation::Nearest,
                               alignCorners));
}

ArrayRef<Importer::AtenEntry> Importer::convAtenOps() {
  static const AtenEntry entries[] = {
      {"_convolution", &Importer::atenConvolution},
      {"_convolution_mode", &Importer::atenConvolution},
      {"convolution", &Importer::atenConvolution},
      {"conv1d", &Importer::atenConvolution},
      {"conv2d", &Importer::atenConvolution},
      {"conv3d", &Importer::atenConvolution},
      {"conv_transpose1d", &Importer::atenConvolution},
      {"conv_transpose2d", &Importer::atenConvolution},
      {"conv_transpose3d", &Importer::atenConvolution},
      {"max_pool1d", &Importer::atenMaxPool},
      {"max_pool2d", &Importer::atenMaxPool},
      {"max_pool3d", &Importer::atenMaxPool},
      {"avg_pool1d", &Importer::atenAvgPool},
      {"avg_pool2d", &Importer::atenAvgPool},
      {"avg_pool3d", &Importer::atenAvgPool},
      {"adaptive_avg_pool1d", &Importer::atenAdaptiveAvgPool},
      {"adaptive_avg_pool2d", &Importer::atenAdaptiveAvgPool},
      {"adaptive_avg_pool3d", &Importer::atenAdaptiveAvgPool},
      {"_adaptive_avg_pool2d", &Importer::atenAdaptiveAvgPool},
      {"_adaptive_avg_pool3d", &Importer::atenAdaptiveAvgPool},
      {"upsample_nearest1d", &Importer::atenUpsample},
      {"upsample_nearest2d", &Importer::atenUpsample},
      {"upsample_nearest3d", &Importer::atenUpsample},
      {"upsample_linear1d", &Importer::atenUpsample},
      {"upsample_bilinear2d", &Importer::atenUpsample},
      {"upsample_trilinear3d", &Importer::atenUpsample},
  };
  return entries;
}
