//===- Reductions.cpp - sums, means, maxima, softmax ----------------------===//
//
// The builders of one family (sums, means, extrema, statistics, products,
// scans and sorts over dims, and softmax), as the importers'
// AtenReductions.cpp. The ones without a primitive of their own (prod,
// cumsum, sort) are written as a few passes of primitives that autodiff
// differentiates.
//
//===----------------------------------------------------------------------===//

#include "trace/Importer/TensorBuilder.h"

#include "Detail.h"

#include "llvm/ADT/STLExtras.h"

#include <cmath>

using namespace mlir;
using namespace mlir::trace;
using namespace mlir::trace::detail;

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

Value TensorBuilder::sumOrMax(Value x, ArrayRef<int64_t> dims, bool keepdim,
                              bool isMax) {
  RankedTensorType type = typeOf(x);
  auto norm = reductionDims(dims, type.getRank());
  if (!norm)
    return Value();
  if (norm->empty())
    return x;
  SmallVector<int64_t> shape;
  for (auto [i, d] : llvm::enumerate(type.getShape())) {
    if (!llvm::is_contained(*norm, int64_t(i)))
      shape.push_back(d);
    else if (keepdim)
      shape.push_back(1);
  }
  auto resultType = type.clone(shape);
  UnitAttr keep = keepdim ? b.getUnitAttr() : UnitAttr();
  if (isMax)
    return ReduceMaxOp::create(b, loc, resultType, x,
                               b.getDenseI64ArrayAttr(*norm), keep);
  return ReduceSumOp::create(b, loc, resultType, x,
                             b.getDenseI64ArrayAttr(*norm), keep);
}

Value TensorBuilder::sum(Value x, ArrayRef<int64_t> dims, bool keepdim,
                         std::optional<Type> dtype) {
  Type elt = typeOf(x).getElementType();
  // torch.sum of bool and integer tensors accumulates in int64.
  Type acc = dtype ? *dtype : (isa<FloatType>(elt) ? elt : b.getI64Type());
  return sumOrMax(convert(x, acc), dims, keepdim, /*isMax=*/false);
}

Value TensorBuilder::mean(Value x, ArrayRef<int64_t> dims, bool keepdim,
                          std::optional<Type> dtype) {
  Type elt = dtype ? *dtype : typeOf(x).getElementType();
  if (!isa<FloatType>(elt))
    return error("mean needs a floating point tensor; pass dtype");
  RankedTensorType type = typeOf(x);
  Value s = sum(x, dims, keepdim, elt);
  if (!s)
    return s;
  // Elements folded into each output element.
  int64_t count = numElements(type.getShape()) /
                  std::max<int64_t>(numElements(typeOf(s).getShape()), 1);
  return binary(Binary::Div, s, Scalar::ofInt(count));
}

Value TensorBuilder::amax(Value x, ArrayRef<int64_t> dims, bool keepdim) {
  // Bools reduce as int64: a signed maximum of i1 ranks true (-1) below
  // false.
  Type element = typeOf(x).getElementType();
  if (element.isInteger(1)) {
    Value top = sumOrMax(convert(x, b.getI64Type()), dims, keepdim, true);
    return top ? convert(top, element) : top;
  }
  return sumOrMax(x, dims, keepdim, /*isMax=*/true);
}

Value TensorBuilder::softmax(Value x, int64_t dim, bool log) {
  x = convert(x, floatTypeFor(typeOf(x).getElementType()));
  RankedTensorType type = typeOf(x);
  if (type.getRank() == 0)
    return log ? full({}, type.getElementType(), Scalar::ofFloat(0.0))
               : full({}, type.getElementType(), Scalar::ofFloat(1.0));
  int64_t d = normalizeDim(dim, type.getRank());
  if (d < 0)
    return Value();
  // The shift by the row max only keeps exp in range: softmax does not
  // depend on it, so its gradient is cut (as torch's softmax backward,
  // y * (g - sum(y * g)), has no term for it). Through amax, autodiff
  // would spend a mask, a count and two passes over the input on a term
  // that sums to zero.
  Value max = stopGradient(amax(x, {d}, /*keepdim=*/true));
  Value shifted = binary(Binary::Sub, x, max);
  Value e = unary(Unary::Exp, shifted);
  Value total = sum(e, {d}, /*keepdim=*/true);
  if (log)
    return binary(Binary::Sub, shifted, unary(Unary::Log, total));
  return binary(Binary::Div, e, total);
}

Value TensorBuilder::amin(Value x, ArrayRef<int64_t> dims, bool keepdim) {
  // In x's type: integers stay integers, bools reduce as int64.
  Type element = typeOf(x).getElementType();
  if (element.isInteger(1)) {
    Value low = amin(convert(x, b.getI64Type()), dims, keepdim);
    return low ? convert(low, element) : low;
  }
  if (isa<FloatType>(element)) {
    Value top = amax(unary(Unary::Neg, x), dims, keepdim);
    return top ? unary(Unary::Neg, top) : top;
  }
  // min(x) = ~max(~x) with ~x = -1 - x: negation would overflow at the
  // type's minimum.
  Value top = amax(flipBits(x), dims, keepdim);
  return top ? flipBits(top) : top;
}

Value TensorBuilder::flipBits(Value x) {
  return binary(Binary::Sub, Scalar::ofInt(-1), x);
}

Value TensorBuilder::variance(Value x, ArrayRef<int64_t> dims,
                              double correction, bool keepdim) {
  x = convert(x, floatTypeFor(typeOf(x).getElementType()));
  RankedTensorType type = typeOf(x);
  auto norm = reductionDims(dims, type.getRank());
  if (!norm)
    return Value();
  int64_t count = 1;
  for (int64_t d : *norm)
    count *= type.getDimSize(d);
  Value mu = mean(x, *norm, /*keepdim=*/true);
  Value centered = binary(Binary::Sub, x, mu);
  Value total = sum(binary(Binary::Mul, centered, centered), *norm, keepdim);
  // torch divides by max(N - correction, 0): a zero count gives inf/NaN.
  double divisor = std::max(double(count) - correction, 0.0);
  return binary(Binary::Div, total, Scalar::ofFloat(divisor));
}

Value TensorBuilder::standardDeviation(Value x, ArrayRef<int64_t> dims,
                                       double correction, bool keepdim) {
  Value var = variance(x, dims, correction, keepdim);
  if (!var)
    return var;
  // No gradient where the variance is 0 (torch's std_backward masks it
  // there; sqrt's would be 0 * inf = NaN).
  Value flat = compare(ComparisonDirection::EQ, var, Scalar::ofFloat(0.0));
  Value safe = where(flat, Scalar::ofFloat(1.0), var);
  return where(flat, Scalar::ofFloat(0.0), unary(Unary::Sqrt, safe));
}

Value TensorBuilder::logsumexp(Value x, ArrayRef<int64_t> dims, bool keepdim) {
  x = convert(x, floatTypeFor(typeOf(x).getElementType()));
  // A 0-d tensor is its own logsumexp.
  if (typeOf(x).getRank() == 0)
    return x;
  // m + log(sum(exp(x - m))), m the max (through stop_gradient: the
  // gradient is then softmax exactly), 0 where it is infinite (all -inf
  // gives -inf, as torch).
  Value top = amax(x, dims, /*keepdim=*/true);
  if (!top)
    return top;
  Value finite = compare(ComparisonDirection::NE, unary(Unary::Abs, top),
                         Scalar::ofFloat(INFINITY));
  Value shift = stopGradient(where(finite, top, Scalar::ofFloat(0)));
  Value e = unary(Unary::Exp, binary(Binary::Sub, x, shift));
  Value lse = unary(Unary::Log, sum(e, dims, /*keepdim=*/true));
  Value out = binary(Binary::Add, lse, shift);
  return keepdim ? out : squeeze(out, dims);
}

/// torch's result type for sums and products: int64 for bool and integer
/// tensors, the float type itself otherwise.
static Type accumulationType(OpBuilder &b, Type element) {
  return isa<FloatType>(element) ? element : Type(b.getI64Type());
}

/// The type a scan computes in: f32 for the 16-bit floats (as torch's CPU
/// cumsum accumulates), which round to their own type once at the end
/// rather than at every step. (torch's CPU prod rounds at every step, so
/// prod stays in its type.)
static Type computeType(OpBuilder &b, Type element) {
  if (auto f = dyn_cast<FloatType>(element); f && f.getWidth() < 32)
    return b.getF32Type();
  return element;
}

Value TensorBuilder::cumsum(Value x, int64_t dim, std::optional<Type> dtype) {
  Type result =
      dtype ? *dtype : accumulationType(b, typeOf(x).getElementType());
  x = convert(x, computeType(b, result));
  RankedTensorType type = typeOf(x);
  if (type.getRank() == 0)
    return convert(x, result);
  int64_t d = normalizeDim(dim, type.getRank());
  if (d < 0)
    return Value();
  // Hillis and Steele's scan: after the step of shift k, each element holds
  // the sum of the 2k elements ending at it. log2(n) steps of an add of the
  // tensor and itself shifted, each a few elementwise ops that fuse; there
  // is no scan primitive, and autodiff gives the reverse scan as gradient.
  int64_t n = type.getDimSize(d);
  for (int64_t k = 1; k < n; k *= 2) {
    SmallVector<int64_t> zerosShape(type.getShape());
    zerosShape[d] = k;
    Value zeros = full(zerosShape, type.getElementType(), Scalar::ofInt(0));
    Value shifted = concat({zeros, slice(x, d, 0, n - k, 1)}, d);
    x = binary(Binary::Add, x, shifted);
  }
  return convert(x, result);
}

Value TensorBuilder::prod(Value x, ArrayRef<int64_t> dims, bool keepdim,
                          std::optional<Type> dtype) {
  Type result =
      dtype ? *dtype : accumulationType(b, typeOf(x).getElementType());
  x = convert(x, result);
  RankedTensorType type = typeOf(x);
  auto norm = reductionDims(dims, type.getRank());
  if (!norm)
    return Value();
  // A pairwise tree of multiplies per dim (no product reduction primitive):
  // the halves of the dim multiply until one element is left. Each factor's
  // gradient is the product of the others, zeros included, from the
  // multiplies' own derivatives.
  for (int64_t d : *norm) {
    int64_t n = typeOf(x).getDimSize(d);
    if (n == 0) {
      SmallVector<int64_t> shape(typeOf(x).getShape());
      shape[d] = 1;
      x = full(shape, typeOf(x).getElementType(), Scalar::ofInt(1));
      continue;
    }
    while (n > 1) {
      int64_t half = n / 2;
      Value low = slice(x, d, 0, half, 1);
      Value high = slice(x, d, half, 2 * half, 1);
      Value product = binary(Binary::Mul, low, high);
      x = n % 2 ? concat({product, slice(x, d, 2 * half, n, 1)}, d) : product;
      n = n - half;
    }
  }
  return keepdim ? x : squeeze(x, *norm);
}

std::pair<Value, Value> TensorBuilder::extremum(Value x,
                                                std::optional<int64_t> dim,
                                                bool keepdim, bool isMax) {
  RankedTensorType type = typeOf(x);
  if (typeOf(x).getElementType().isInteger(1))
    x = convert(x, b.getI64Type());
  bool flat = !dim;
  if (flat)
    x = reshape(x, {-1});
  else if (type.getRank() == 0)
    x = reshape(x, {1});
  int64_t rank = typeOf(x).getRank();
  int64_t d = flat ? 0 : normalizeDim(*dim, rank);
  if (d < 0)
    return {};
  int64_t n = typeOf(x).getDimSize(d);
  if (n == 0)
    return {error(Twine(isMax ? "max" : "min") +
                  ": the reduced dim is empty"),
                  Value()};
  // The first index of the extreme value, as torch, where NaN counts as the
  // extreme: the NaNs, else the elements equal to the max, are candidates,
  // and the smallest candidate index wins.
  Value key = isMax                                  ? x
              : isa<FloatType>(typeOf(x).getElementType()) ? unary(Unary::Neg, x)
                                                         : flipBits(x);
  Value top = stopGradient(amax(key, {d}, /*keepdim=*/true));
  Value hit = compare(ComparisonDirection::EQ, key, top);
  if (isa<FloatType>(typeOf(x).getElementType())) {
    Value nan = compare(ComparisonDirection::NE, x, x);
    Value anyNan = amax(convert(nan, b.getI64Type()), {d}, true);
    Value hasNan = compare(ComparisonDirection::NE, anyNan, Scalar::ofInt(0));
    hit = where(hasNan, nan, hit);
  }
  SmallVector<int64_t> along(rank, 1);
  along[d] = n;
  Value iota = reshape(IotaOp::create(
                           b, loc, RankedTensorType::get({n}, b.getI64Type()),
                           0),
                       along);
  Value candidates = where(hit, iota, Scalar::ofInt(n));
  Value index = amin(candidates, {d}, /*keepdim=*/true);
  // The value is read at the index, so its gradient goes to that one
  // element, as torch's max.dim and min.dim.
  Value value = gather(x, d, index);
  if (!index || !value)
    return {};
  value = convert(value, type.getElementType());
  if (flat) {
    SmallVector<int64_t> ones(keepdim ? type.getRank() : 0, 1);
    return {reshape(value, ones), reshape(index, ones)};
  }
  if (type.getRank() == 0)
    return {reshape(value, {}), reshape(index, {})};
  if (!keepdim)
    return {squeeze(value, {d}), squeeze(index, {d})};
  return {value, index};
}

std::pair<Value, Value> TensorBuilder::sort(Value x, int64_t dim,
                                            bool descending) {
  using D = ComparisonDirection;
  RankedTensorType type = typeOf(x);
  Type element = type.getElementType();
  bool scalar = type.getRank() == 0;
  if (scalar)
    x = reshape(x, {1});
  type = typeOf(x);
  int64_t d = normalizeDim(dim, type.getRank());
  if (d < 0)
    return {};
  int64_t n = type.getDimSize(d);
  // There is no sort primitive: each element's rank is the count of the
  // elements that go before it, from all pairs along the dim. That takes n
  // times the input's elements, so long dims are refused rather than
  // allocated.
  constexpr int64_t kMaxPairs = int64_t(1) << 26;
  if (n > 0 && type.getNumElements() > kMaxPairs / n)
    return {error("sort and topk compare every pair along the dim: " +
                  Twine(n) + " elements of a tensor of shape " +
                  shapeString(type.getShape()) + " would take " +
                  Twine(n * type.getNumElements()) +
                  " comparisons, more than this build supports (" +
                  Twine(kMaxPairs) + ")"),
            Value()};
  if (type.getElementType().isInteger(1))
    x = convert(x, b.getI64Type());
  // a goes before b: a < b (descending: a > b), NaN after every number
  // (descending: before), and equal keys in index order (stable).
  Value xi = unsqueeze(x, d + 1); // [.., n(i), 1, ..]
  Value xj = unsqueeze(x, d);     // [.., 1, n(j), ..]
  Value before = compare(descending ? D::GT : D::LT, xj, xi);
  Value same = compare(D::EQ, xj, xi);
  if (isa<FloatType>(typeOf(x).getElementType())) {
    Value nanI = compare(D::NE, xi, xi), nanJ = compare(D::NE, xj, xj);
    Value notNanI = compare(D::EQ, xi, xi), notNanJ = compare(D::EQ, xj, xj);
    // NaN j goes before a number i when descending, after when ascending.
    Value nanOrder = descending ? where(nanJ, notNanI, before)
                                : where(nanI, notNanJ, before);
    before = nanOrder;
    same = where(nanI, nanJ, same);
  }
  SmallVector<int64_t> alongJ(typeOf(xj).getRank(), 1);
  alongJ[d + 1] = n;
  SmallVector<int64_t> alongI(typeOf(xi).getRank(), 1);
  alongI[d] = n;
  auto iotaN = [&] {
    return IotaOp::create(b, loc, RankedTensorType::get({n}, b.getI64Type()),
                          0);
  };
  Value j = reshape(iotaN(), alongJ), i = reshape(iotaN(), alongI);
  Value earlier = compare(D::LT, j, i);
  Value tie = where(same, earlier, same);
  Value goesFirst = where(before, before, tie);
  // rank[i] = #j before i; then position r holds the i whose rank is r.
  Value rank = sum(goesFirst, {d + 1}, /*keepdim=*/false);
  Value rankI = unsqueeze(rank, d + 1); // [.., n(i), 1, ..]
  Value slot = reshape(iotaN(), alongJ); // r along dim d + 1
  Value at = compare(D::EQ, rankI, slot);
  Value indices = sum(where(at, i, Scalar::ofInt(0)), {d}, false);
  Value values = gather(x, d, indices);
  if (!values)
    return {};
  values = convert(values, element);
  if (scalar)
    return {reshape(values, {}), reshape(indices, {})};
  return {values, indices};
}
