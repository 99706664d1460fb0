//===- Conv.cpp - convolution, upsampling, pooling ------------------------===//
//
// The builders of one family (convolution, upsampling and pooling), as the
// importers' AtenConv.cpp: one trace.convolution per convolution, and
// upsampling and pooling composed of trace ops.
//
//===----------------------------------------------------------------------===//

#include "trace/Importer/TensorBuilder.h"

#include "Detail.h"

#include "llvm/ADT/STLExtras.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::trace;
using namespace mlir::trace::detail;

//===----------------------------------------------------------------------===//
// Convolution
//===----------------------------------------------------------------------===//

Value TensorBuilder::convolution(Value x, Value w, Value bias,
                                 ArrayRef<int64_t> stride,
                                 ArrayRef<int64_t> padding,
                                 ArrayRef<int64_t> dilation, bool transposed,
                                 ArrayRef<int64_t> outputPadding,
                                 int64_t groups) {
  RankedTensorType wType = typeOf(w);
  int64_t rank = wType.getRank(), spatial = rank - 2;
  if (spatial < 1)
    return error("convolution: the weight must have a spatial dim, got "
                 "shape " + shapeString(wType.getShape()));
  bool unbatched = typeOf(x).getRank() == rank - 1;
  if (unbatched)
    x = unsqueeze(x, 0);
  RankedTensorType xType = typeOf(x);
  if (xType.getRank() != rank)
    return error("convolution: a weight of shape " +
                 shapeString(wType.getShape()) + " needs a " + Twine(rank) +
                 "-D (or unbatched " + Twine(rank - 1) + "-D) input, got " +
                 shapeString(typeOf(x).getShape()));
  if (xType.getElementType() != wType.getElementType() ||
      !isa<FloatType>(xType.getElementType()))
    return error("convolution: the input and the weight must have one "
                 "float dtype");
  if (int64_t(stride.size()) != spatial ||
      int64_t(dilation.size()) != spatial ||
      int64_t(outputPadding.size()) != spatial ||
      int64_t(padding.size()) != 2 * spatial)
    return error("convolution: stride, padding and dilation need one entry "
                 "per spatial dim (" + Twine(spatial) + ")");
  int64_t channels = xType.getDimSize(1);
  int64_t perGroup = transposed ? wType.getDimSize(0) : wType.getDimSize(1);
  if (groups < 1 || channels % groups != 0 ||
      wType.getDimSize(0) % groups != 0 ||
      (transposed ? perGroup : perGroup * groups) != channels)
    return error("convolution: the weight " + shapeString(wType.getShape()) +
                 " with groups = " + Twine(groups) + " does not take the " +
                 Twine(channels) + " channels of the input " +
                 shapeString(xType.getShape()));
  for (int64_t d = 0; d < spatial; ++d)
    if (stride[d] < 1 || dilation[d] < 1)
      return error("convolution: stride and dilation must be >= 1, got " +
                   shapeString(stride) + " and " + shapeString(dilation));

  // A transposed convolution is the convolution its forward one's input
  // gradient is: the input spread `stride` apart, the kernel regrouped and
  // reversed, the padding the window's extent less the forward padding.
  SmallVector<int64_t> strides(spatial, 1), lhsDilation(spatial, 1),
      convPadding(padding);
  Value kernel = w;
  if (transposed) {
    for (int64_t d = 0; d < spatial; ++d) {
      if (outputPadding[d] < 0 ||
          (outputPadding[d] >= stride[d] && outputPadding[d] >= dilation[d]))
        return error("convolution: output_padding " +
                     shapeString(outputPadding) + " must be smaller than "
                     "the stride or the dilation");
      int64_t extent = dilation[d] * (wType.getDimSize(d + 2) - 1);
      convPadding[2 * d] = extent - padding[2 * d];
      convPadding[2 * d + 1] = extent - padding[2 * d + 1] + outputPadding[d];
      lhsDilation[d] = stride[d];
    }
    kernel = ConvolutionOp::buildTransposedKernel(b, loc, w, groups);
  } else {
    strides.assign(stride.begin(), stride.end());
  }
  RankedTensorType kType = typeOf(kernel);
  SmallVector<int64_t> shape = {xType.getDimSize(0), kType.getDimSize(0)};
  for (int64_t d = 0; d < spatial; ++d) {
    int64_t in = xType.getDimSize(d + 2);
    int64_t padded = (in - 1) * lhsDilation[d] + 1 + convPadding[2 * d] +
                     convPadding[2 * d + 1];
    int64_t window = dilation[d] * (kType.getDimSize(d + 2) - 1) + 1;
    if (in < 1 || padded < window)
      return error("convolution: spatial dim " + Twine(d) + " of the input " +
                   shapeString(xType.getShape()) + " is " + Twine(padded) +
                   " after padding, smaller than the kernel's window of " +
                   Twine(window));
    shape.push_back((padded - window) / strides[d] + 1);
  }
  Value y = ConvolutionOp::create(b, loc, xType.clone(shape), x, kernel,
                                  strides, convPadding, lhsDilation, dilation,
                                  groups);
  if (bias) {
    RankedTensorType biasType = typeOf(bias);
    if (biasType.getRank() != 1 || biasType.getDimSize(0) != shape[1])
      return error("convolution: the bias must have shape [" +
                   Twine(shape[1]) + "], got " +
                   shapeString(biasType.getShape()));
    SmallVector<int64_t> column(rank - 1, 1);
    column[0] = shape[1];
    Value biasColumn = reshape(bias, column);
    y = binary(Binary::Add, y, biasColumn);
  }
  return unbatched && y ? squeeze(y, {0}) : y;
}

//===----------------------------------------------------------------------===//
// Upsampling
//===----------------------------------------------------------------------===//

namespace {

/// PyTorch's source positions for one dim of an upsampling
/// (aten/src/ATen/native/UpSample.h), in its arithmetic: per output
/// position, the two source indices and their weights (nearest: one index,
/// weight 1).
struct UpsampleTaps {
  SmallVector<int64_t> lo, hi;
  SmallVector<double> loWeight, hiWeight;
};

/// compute_scales_value<T>: 1 / scale when given, else in / out.
template <typename T>
T scalesValue(double scale, int64_t in, int64_t out) {
  return scale > 0 ? T(1.0 / scale) : T(in) / T(out);
}

/// area_pixel_compute_scale and compute_indices_weights_linear in T, the
/// kernel's opmath type: float for f32 and below, double for f64.
template <typename T>
UpsampleTaps linearTaps(int64_t in, int64_t out, double scale,
                        bool alignCorners) {
  UpsampleTaps taps;
  T s = alignCorners ? (out > 1 ? T(in - 1) / T(out - 1) : T(0))
                     : scalesValue<T>(scale, in, out);
  for (int64_t i = 0; i < out; ++i) {
    T real = alignCorners ? s * T(i)
                          : std::max(s * (T(i) + T(0.5)) - T(0.5), T(0));
    int64_t lo = std::min(int64_t(real), in - 1);
    int64_t hi = lo + (lo < in - 1 ? 1 : 0);
    T lambda = std::min(std::max(real - T(lo), T(0)), T(1));
    taps.lo.push_back(lo);
    taps.hi.push_back(hi);
    taps.loWeight.push_back(T(1) - lambda);
    taps.hiWeight.push_back(lambda);
  }
  return taps;
}

UpsampleTaps upsampleTaps(int64_t in, int64_t out, double scale,
                          bool linear, bool alignCorners, bool inDouble) {
  if (linear)
    return inDouble ? linearTaps<double>(in, out, scale, alignCorners)
                    : linearTaps<float>(in, out, scale, alignCorners);
  // nearest_idx, in float whatever the dtype: the same size and exact
  // doubling are special-cased.
  UpsampleTaps taps;
  float s = scalesValue<float>(scale, in, out);
  for (int64_t i = 0; i < out; ++i) {
    int64_t scaled = int64_t(std::floor(float(i) * s));
    int64_t src = in == out       ? i
                  : out == 2 * in ? i >> 1
                                  : std::min(scaled, in - 1);
    taps.lo.push_back(src);
    taps.hi.push_back(src);
    taps.loWeight.push_back(1.0);
    taps.hiWeight.push_back(0.0);
  }
  return taps;
}

} // namespace

Value TensorBuilder::upsample(Value x, ArrayRef<int64_t> outputSize,
                              ArrayRef<double> scales, Interpolation mode,
                              bool alignCorners) {
  RankedTensorType type = typeOf(x);
  int64_t spatial = outputSize.size(), rank = type.getRank();
  if (rank != spatial + 2)
    return error("upsample: " + Twine(spatial) +
                 " output sizes need an input of rank " + Twine(spatial + 2) +
                 ", got " + shapeString(type.getShape()));
  Type element = type.getElementType();
  if (!isa<FloatType>(element))
    return error("upsample: needs a float input");
  bool linear = mode == Interpolation::Linear;
  Value y = x;
  // The last dim first, as PyTorch's kernels weight the inner dim's pair
  // before the outer's.
  for (int64_t d = spatial - 1; d >= 0 && y; --d) {
    int64_t dim = 2 + d, in = type.getDimSize(dim), out = outputSize[d];
    if (out < 1 || in < 1)
      return error("upsample: sizes " + shapeString(type.getShape()) +
                   " to " + shapeString(outputSize) + " must be positive");
    // compute_source_index_and_lambda and nearest_idx copy a dim whose size
    // stays, whatever the scale factor.
    if (in == out)
      continue;
    UpsampleTaps taps = upsampleTaps(
        in, out, d < int64_t(scales.size()) ? scales[d] : 0.0, linear,
        alignCorners, element.isF64());
    SmallVector<int64_t> along(rank, 1);
    along[dim] = out;
    // Each source repeated `out / in` times in order (nearest at an
    // integer factor): a broadcast, whose gradient is a sum.
    int64_t factor = out % in == 0 ? out / in : 0;
    bool repeats = !linear && factor > 0;
    for (int64_t i = 0; i < out && repeats; ++i)
      repeats = taps.lo[i] == i / factor;
    if (repeats) {
      SmallVector<int64_t> split(typeOf(y).getShape());
      split.insert(split.begin() + dim + 1, 1);
      SmallVector<int64_t> spread(split);
      spread[dim + 1] = factor;
      SmallVector<int64_t> merged(typeOf(y).getShape());
      merged[dim] = out;
      y = reshape(broadcastTo(reshape(y, split), spread), merged);
      continue;
    }
    Value lo = indexSelect(y, dim, indexConstant(taps.lo));
    if (!linear || !lo) {
      y = lo;
      continue;
    }
    Value hi = indexSelect(y, dim, indexConstant(taps.hi));
    auto weightType = RankedTensorType::get(along, element);
    Value loWeights = floatConstant(weightType, taps.loWeight);
    Value hiWeights = floatConstant(weightType, taps.hiWeight);
    Value near = binary(Binary::Mul, lo, loWeights);
    Value far = binary(Binary::Mul, hi, hiWeights);
    y = binary(Binary::Add, near, far);
  }
  return y;
}

//===----------------------------------------------------------------------===//
// Pooling
//===----------------------------------------------------------------------===//

namespace {

/// PyTorch's pooling_output_shape: windows of `kernel` (dilated) every
/// `stride` over the input padded by `pad` on both sides; with ceil mode a
/// last partial window, unless it would start in the right padding.
int64_t poolOutputSize(int64_t in, int64_t kernel, int64_t stride,
                       int64_t pad, int64_t dilation, bool ceilMode) {
  int64_t span = in + 2 * pad - dilation * (kernel - 1) - 1 +
                 (ceilMode ? stride - 1 : 0);
  if (span < 0)
    return 0;
  int64_t out = span / stride + 1;
  if (ceilMode && (out - 1) * stride >= in + pad)
    --out;
  return out;
}

} // namespace

/// Checks a pooling's arguments and computes its output sizes; `what`
/// names the op in errors. Returns false after an error.
static bool poolShape(TensorBuilder &tb, StringRef what, RankedTensorType type,
                      ArrayRef<int64_t> kernel, ArrayRef<int64_t> stride,
                      ArrayRef<int64_t> padding, ArrayRef<int64_t> dilation,
                      bool ceilMode, SmallVectorImpl<int64_t> &out) {
  int64_t spatial = kernel.size(), rank = type.getRank();
  if (spatial < 1 || rank < spatial + 1 ||
      int64_t(stride.size()) != spatial ||
      int64_t(padding.size()) != spatial ||
      int64_t(dilation.size()) != spatial) {
    tb.error(what + ": needs a kernel, stride, padding and dilation per "
             "spatial dim and an input of rank " + Twine(spatial + 1) +
             " or more, got kernel " + shapeString(kernel) + " and input " +
             shapeString(type.getShape()));
    return false;
  }
  for (int64_t d = 0; d < spatial; ++d) {
    int64_t in = type.getDimSize(rank - spatial + d);
    if (kernel[d] < 1 || stride[d] < 1 || dilation[d] < 1 || padding[d] < 0 ||
        2 * padding[d] > dilation[d] * (kernel[d] - 1) + 1) {
      tb.error(what + ": kernel " + shapeString(kernel) + ", stride " +
               shapeString(stride) + ", padding " + shapeString(padding) +
               " and dilation " + shapeString(dilation) + " are invalid (pad "
               "at most half the window, as in PyTorch)");
      return false;
    }
    int64_t size = poolOutputSize(in, kernel[d], stride[d], padding[d],
                                  dilation[d], ceilMode);
    if (size < 1) {
      tb.error(what + ": the input " + shapeString(type.getShape()) +
               " is smaller than the window " + shapeString(kernel));
      return false;
    }
    out.push_back(size);
  }
  return true;
}

Value TensorBuilder::maxPool(Value x, ArrayRef<int64_t> kernel,
                             ArrayRef<int64_t> stride,
                             ArrayRef<int64_t> padding,
                             ArrayRef<int64_t> dilation, bool ceilMode,
                             Value *indices) {
  RankedTensorType type = typeOf(x);
  SmallVector<int64_t> out;
  SmallVector<int64_t> steps(stride.empty() ? kernel : stride);
  if (!poolShape(*this, "max_pool", type, kernel, steps, padding, dilation,
                 ceilMode, out))
    return Value();
  auto element = dyn_cast<FloatType>(type.getElementType());
  if (!element)
    return error("max_pool: needs a float input");
  int64_t spatial = kernel.size(), rank = type.getRank();
  double lowest = -std::numeric_limits<double>::infinity();
  // Pad with -inf: before, and after as far as the last window reaches.
  Value padded = x;
  for (int64_t d = 0; d < spatial; ++d) {
    int64_t dim = rank - spatial + d;
    int64_t in = type.getDimSize(dim);
    int64_t reach = (out[d] - 1) * steps[d] + dilation[d] * (kernel[d] - 1) + 1;
    int64_t after = std::max<int64_t>(reach - in - padding[d], 0);
    SmallVector<Value> parts;
    SmallVector<int64_t> shape(typeOf(padded).getShape());
    if (padding[d] > 0) {
      shape[dim] = padding[d];
      parts.push_back(full(shape, element, Scalar::ofFloat(lowest)));
    }
    parts.push_back(padded);
    if (after > 0) {
      shape[dim] = after;
      parts.push_back(full(shape, element, Scalar::ofFloat(lowest)));
    }
    if (parts.size() > 1)
      padded = ConcatenateOp::create(b, loc, parts, dim);
  }
  // The window's elements in row-major order: the running maximum takes an
  // element only if it is greater (or NaN), so ties keep the first.
  RankedTensorType paddedType = typeOf(padded);
  int64_t windowSize = 1;
  for (int64_t k : kernel)
    windowSize *= k;
  // For the indices, each tap's source positions as a constant of the
  // output's spatial shape: the flat index in the input plane. With no
  // tap, the window's first position inside the input, torch's index
  // where no element beats the initial -inf.
  SmallVector<int64_t> indexShape(rank, 1);
  int64_t positions = 1;
  for (int64_t d = 0; d < spatial; ++d) {
    indexShape[rank - spatial + d] = out[d];
    positions *= out[d];
  }
  auto tapIndex = [&](std::optional<ArrayRef<int64_t>> tap) -> Value {
    SmallVector<int64_t> values(positions);
    for (int64_t o = 0; o < positions; ++o) {
      int64_t rest = o, flatIndex = 0, scale = 1;
      for (int64_t d = spatial - 1; d >= 0; --d) {
        int64_t at = rest % out[d];
        rest /= out[d];
        int64_t source = at * steps[d] - padding[d];
        if (tap)
          source += (*tap)[d] * dilation[d];
        else
          while (source < 0)
            source += dilation[d];
        flatIndex += source * scale;
        scale *= type.getDimSize(rank - spatial + d);
      }
      values[o] = flatIndex;
    }
    auto indexType = RankedTensorType::get(indexShape, b.getI64Type());
    return ConstantOp::create(
        b, loc, DenseElementsAttr::get(indexType, ArrayRef<int64_t>(values)));
  };
  Value maximum, where;
  for (int64_t flat = 0; flat < windowSize; ++flat) {
    SmallVector<int64_t> starts(rank, 0), limits(paddedType.getShape()),
        strides(rank, 1), tap(spatial);
    int64_t rest = flat;
    for (int64_t d = spatial - 1; d >= 0; --d) {
      int64_t dim = rank - spatial + d, k = rest % kernel[d];
      rest /= kernel[d];
      tap[d] = k;
      starts[dim] = k * dilation[d];
      limits[dim] = starts[dim] + (out[d] - 1) * steps[d] + 1;
      strides[dim] = steps[d];
    }
    Value candidate = SliceOp::create(b, loc, padded, starts, limits, strides);
    if (!maximum) {
      maximum = candidate;
      if (indices)
        where = broadcastTo(tapIndex(std::nullopt), typeOf(maximum).getShape());
      continue;
    }
    Value greater = CompareOp::create(b, loc, ComparisonDirection::GT,
                                      candidate, maximum);
    Value isNan = CompareOp::create(b, loc, ComparisonDirection::NE,
                                    candidate, candidate);
    Value takes = SelectOp::create(b, loc, isNan, isNan, greater);
    maximum = SelectOp::create(b, loc, takes, candidate, maximum);
    if (indices)
      where = this->where(takes, tapIndex(ArrayRef<int64_t>(tap)), where);
  }
  if (indices)
    *indices = where;
  return maximum;
}

Value TensorBuilder::avgPool(Value x, ArrayRef<int64_t> kernel,
                             ArrayRef<int64_t> stride,
                             ArrayRef<int64_t> padding, bool ceilMode,
                             bool countIncludePad,
                             std::optional<int64_t> divisorOverride) {
  RankedTensorType type = typeOf(x);
  SmallVector<int64_t> out;
  SmallVector<int64_t> steps(stride.empty() ? kernel : stride);
  SmallVector<int64_t> ones(kernel.size(), 1);
  if (!poolShape(*this, "avg_pool", type, kernel, steps, padding, ones,
                 ceilMode, out))
    return Value();
  if (!isa<FloatType>(type.getElementType()))
    return error("avg_pool: needs a float input");
  if (divisorOverride && *divisorOverride == 0)
    return error("avg_pool: divisor_override must be non-zero");
  int64_t spatial = kernel.size();
  ArrayRef<int64_t> leading = type.getShape().drop_back(spatial);
  ArrayRef<int64_t> sizes = type.getShape().take_back(spatial);

  // The window sums: every leading dim merged into the batch of a
  // one-channel convolution with a kernel of ones.
  SmallVector<int64_t> batched = {numElements(leading), 1};
  batched.append(sizes.begin(), sizes.end());
  Value input = reshape(x, batched);
  SmallVector<int64_t> kernelShape = {1, 1};
  kernelShape.append(kernel.begin(), kernel.end());
  Value window = full(kernelShape, type.getElementType(), Scalar::ofFloat(1.0));
  SmallVector<int64_t> convPadding;
  for (int64_t d = 0; d < spatial; ++d) {
    int64_t reach = (out[d] - 1) * steps[d] + kernel[d];
    int64_t after = std::max<int64_t>(reach - sizes[d] - padding[d], 0);
    convPadding.append({padding[d], after});
  }
  SmallVector<int64_t> summedShape = {batched[0], 1};
  summedShape.append(out.begin(), out.end());
  Value sums = ConvolutionOp::create(
      b, loc, type.clone(summedShape), input, window, steps, convPadding,
      SmallVector<int64_t>(spatial, 1), SmallVector<int64_t>(spatial, 1), 1);
  SmallVector<int64_t> resultShape(leading);
  resultShape.append(out.begin(), out.end());
  sums = reshape(sums, resultShape);

  // PyTorch's divisor per output position: the window clipped to the
  // padded input (count_include_pad) or to the input, a product over dims.
  SmallVector<double> scale(numElements(out), 1.0);
  for (int64_t flat = 0, e = scale.size(); flat < e; ++flat) {
    int64_t rest = flat, divisor = 1;
    for (int64_t d = spatial - 1; d >= 0; --d) {
      int64_t i = rest % out[d];
      rest /= out[d];
      int64_t start = i * steps[d] - padding[d];
      int64_t end = std::min(start + kernel[d], sizes[d] + padding[d]);
      int64_t size = end - start;
      if (!countIncludePad)
        size = std::min(end, sizes[d]) - std::max<int64_t>(start, 0);
      divisor *= size;
    }
    scale[flat] = 1.0 / double(divisorOverride ? *divisorOverride : divisor);
  }
  auto scaleType = RankedTensorType::get(out, type.getElementType());
  Value factor;
  if (llvm::all_equal(scale)) {
    factor = full(resultShape, type.getElementType(), Scalar::ofFloat(scale[0]));
  } else {
    factor = broadcastTo(floatConstant(scaleType, scale), resultShape);
  }
  return binary(Binary::Mul, sums, factor);
}

Value TensorBuilder::adaptiveAvgPool(Value x, ArrayRef<int64_t> outputSize) {
  RankedTensorType type = typeOf(x);
  int64_t spatial = outputSize.size(), rank = type.getRank();
  if (spatial < 1 || rank < spatial + 1)
    return error("adaptive_avg_pool: output_size " + shapeString(outputSize) +
                 " needs an input of rank " + Twine(spatial + 1) +
                 " or more, got " + shapeString(type.getShape()));
  if (!isa<FloatType>(type.getElementType()))
    return error("adaptive_avg_pool: needs a float input");
  Value y = x;
  for (int64_t d = 0; d < spatial && y; ++d) {
    int64_t dim = rank - spatial + d;
    SmallVector<int64_t> shape(typeOf(y).getShape());
    int64_t in = shape[dim], o = outputSize[d];
    if (o < 1)
      return error("adaptive_avg_pool: output_size " +
                   shapeString(outputSize) + " must be positive");
    if (in % o == 0) {
      // Windows of in / o, side by side: split the dim and average.
      SmallVector<int64_t> split(shape);
      split[dim] = in / o;
      split.insert(split.begin() + dim, o);
      y = mean(reshape(y, split), {dim + 1}, /*keepdim=*/false);
      continue;
    }
    SmallVector<Value> windows;
    for (int64_t i = 0; i < o; ++i) {
      int64_t start = i * in / o, end = ((i + 1) * in + o - 1) / o;
      Value piece = slice(y, dim, start, end, 1);
      windows.push_back(mean(piece, {dim}, /*keepdim=*/true));
    }
    y = concat(windows, dim);
  }
  return y;
}
