//===- TensorBuilder.cpp - trace primitives with PyTorch semantics --------===//
//
// Each composite is written as PyTorch's own decomposition (torch/_decomp,
// aten's CompositeImplicit kernels) so its numerics match eager: layer_norm
// with the biased variance, softmax shifted by the row max, gelu's erf and
// tanh forms, nll_loss's mean over the non-ignored targets.
//
//===----------------------------------------------------------------------===//

#include "trace/Importer/TensorBuilder.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/STLExtras.h"

#include <cmath>
#include <limits>
#include <numeric>

using namespace mlir;
using namespace mlir::trace;

namespace {

int64_t numElements(ArrayRef<int64_t> shape) {
  return std::accumulate(shape.begin(), shape.end(), int64_t(1),
                         std::multiplies<int64_t>());
}

std::string shapeString(ArrayRef<int64_t> shape) {
  std::string s = "[";
  llvm::interleave(
      shape, [&](int64_t d) { s += std::to_string(d); }, [&] { s += ", "; });
  return s + "]";
}

/// 0 bool, 1 int, 2 float: torch's promotion categories.
int category(Type t) {
  if (t.isInteger(1))
    return 0;
  return isa<FloatType>(t) ? 2 : 1;
}

int category(const Scalar &s) {
  switch (s.kind) {
  case Scalar::Kind::Bool:
    return 0;
  case Scalar::Kind::Int:
    return 1;
  case Scalar::Kind::Float:
    return 2;
  }
  return 2;
}

} // namespace

Value TensorBuilder::error(const Twine &message) {
  emitError(loc) << message << errorSuffix;
  return Value();
}

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

Type TensorBuilder::scalarType(const Scalar &s) {
  switch (s.kind) {
  case Scalar::Kind::Bool:
    return b.getI1Type();
  case Scalar::Kind::Int:
    return b.getI64Type();
  case Scalar::Kind::Float:
    return b.getF32Type();
  }
  return b.getF32Type();
}

Type TensorBuilder::floatTypeFor(Type element) {
  return isa<FloatType>(element) ? element : b.getF32Type();
}

Type TensorBuilder::promoteTypes(Type tx, Type ty) {
  if (tx == ty)
    return tx;
  int cx = category(tx), cy = category(ty);
  if (cx != cy)
    return cx > cy ? tx : ty;
  unsigned wx = tx.getIntOrFloatBitWidth(), wy = ty.getIntOrFloatBitWidth();
  if (wx != wy)
    return wx > wy ? tx : ty;
  return b.getF32Type(); // f16 with bf16
}

Type TensorBuilder::promote(const Operand &x, const Operand &y) {
  if (x.tensor && y.tensor)
    return promoteTypes(typeOf(x.tensor).getElementType(),
                        typeOf(y.tensor).getElementType());
  if (x.tensor || y.tensor) {
    const Operand &t = x.tensor ? x : y;
    const Operand &s = x.tensor ? y : x;
    Type tt = typeOf(t.tensor).getElementType();
    // A Python scalar only raises the category (1.5 * int tensor is f32,
    // 1.5 * bf16 tensor stays bf16).
    return category(*s.scalar) > category(tt) ? scalarType(*s.scalar) : tt;
  }
  return category(*x.scalar) >= category(*y.scalar) ? scalarType(*x.scalar)
                                                    : scalarType(*y.scalar);
}

int64_t TensorBuilder::normalizeDim(int64_t dim, int64_t rank) {
  int64_t r = std::max<int64_t>(rank, 1);
  if (dim < -r || dim >= r) {
    error("dim " + Twine(dim) + " is out of range for a tensor of rank " +
          Twine(rank));
    return -1;
  }
  return dim < 0 ? dim + r : dim;
}

std::optional<SmallVector<int64_t>>
TensorBuilder::normalizeDims(ArrayRef<int64_t> dims, int64_t rank) {
  SmallVector<int64_t> out;
  for (int64_t d : dims) {
    int64_t n = normalizeDim(d, rank);
    if (n < 0)
      return std::nullopt;
    if (llvm::is_contained(out, n)) {
      error("dim " + Twine(d) + " appears more than once");
      return std::nullopt;
    }
    out.push_back(n);
  }
  llvm::sort(out);
  return out;
}

//===----------------------------------------------------------------------===//
// Sources
//===----------------------------------------------------------------------===//

Value TensorBuilder::full(ArrayRef<int64_t> shape, Type element,
                          const Scalar &value) {
  auto type = RankedTensorType::get(shape, element);
  TypedAttr attr;
  if (isa<FloatType>(element))
    attr = b.getFloatAttr(element, value.asDouble());
  else if (element.isInteger(1))
    attr = b.getBoolAttr(value.asDouble() != 0.0);
  else
    attr = b.getIntegerAttr(element, value.kind == Scalar::Kind::Float
                                         ? Scalar::saturateToInt64(value.f)
                                         : value.i);
  return FullOp::create(b, loc, type, attr);
}

Value TensorBuilder::materialize(const Operand &x, ArrayRef<int64_t> shape,
                                 Type element) {
  if (x.scalar)
    return full(shape, element, *x.scalar);
  Value v = convert(x.tensor, element);
  return v ? broadcastTo(v, shape) : v;
}

Value TensorBuilder::arange(const Scalar &start, const Scalar &end,
                            const Scalar &step, Type element) {
  double s = start.asDouble(), e = end.asDouble(), d = step.asDouble();
  if (d == 0.0 || (d > 0 && e < s) || (d < 0 && e > s))
    return error("arange: the step must move from start towards end");
  auto n = static_cast<int64_t>(std::ceil((e - s) / d));
  bool integral = start.kind != Scalar::Kind::Float &&
                  end.kind != Scalar::Kind::Float &&
                  step.kind != Scalar::Kind::Float;
  Type compute = integral ? Type(b.getI64Type()) : Type(b.getF64Type());
  Value idx = IotaOp::create(b, loc, RankedTensorType::get({n}, compute), 0);
  Value v = binary(Binary::Mul, idx, step);
  v = binary(Binary::Add, v, start);
  return convert(v, element);
}

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

Value TensorBuilder::convert(Value x, Type element) {
  RankedTensorType type = typeOf(x);
  if (type.getElementType() == element)
    return x;
  return ConvertOp::create(b, loc, type.clone(element), x);
}

Value TensorBuilder::unary(Unary kind, Value x) {
  Type elt = typeOf(x).getElementType();
  switch (kind) {
  case Unary::Neg:
    if (elt.isInteger(1))
      return error("negation of a bool tensor is not supported");
    return NegOp::create(b, loc, x);
  case Unary::Abs:
    return AbsOp::create(b, loc, x);
  case Unary::Relu:
    return binary(Binary::Max, x, Scalar::ofInt(0));
  case Unary::Square:
    // torch.square of a bool tensor is an int64 one.
    if (elt.isInteger(1))
      x = convert(x, b.getI64Type());
    return binary(Binary::Mul, x, x);
  case Unary::Floor:
  case Unary::Ceil:
  case Unary::Round:
    // Integers are integral already (torch returns them as they are).
    if (!isa<FloatType>(elt))
      return x;
    if (kind == Unary::Floor)
      return FloorOp::create(b, loc, x);
    if (kind == Unary::Ceil)
      return CeilOp::create(b, loc, x);
    return RoundOp::create(b, loc, x);
  case Unary::Sign: {
    // 1, -1 or 0 (NaN and zeros too, as torch.sign), in x's dtype; no
    // gradient reaches x through the comparisons.
    if (elt.isInteger(1))
      return x;
    ArrayRef<int64_t> shape = typeOf(x).getShape();
    Value positive = compare(ComparisonDirection::GT, x, Scalar::ofInt(0));
    Value negative = compare(ComparisonDirection::LT, x, Scalar::ofInt(0));
    Value one = full(shape, elt, Scalar::ofInt(1));
    Value minusOne = full(shape, elt, Scalar::ofInt(-1));
    Value zero = full(shape, elt, Scalar::ofInt(0));
    Value ifNotPositive = where(negative, minusOne, zero);
    return where(positive, one, ifNotPositive);
  }
  default:
    break;
  }
  // Transcendentals compute in float (torch.exp(int tensor) is f32).
  x = convert(x, floatTypeFor(elt));
  switch (kind) {
  case Unary::Exp:
    return ExpOp::create(b, loc, x);
  case Unary::Log:
    return LogOp::create(b, loc, x);
  case Unary::Sin:
    return SinOp::create(b, loc, x);
  case Unary::Cos:
    return CosOp::create(b, loc, x);
  case Unary::Tanh:
    return TanhOp::create(b, loc, x);
  case Unary::Sqrt:
    return SqrtOp::create(b, loc, x);
  case Unary::Rsqrt:
    return RsqrtOp::create(b, loc, x);
  case Unary::Erf:
    return ErfOp::create(b, loc, x);
  case Unary::Sigmoid:
    return LogisticOp::create(b, loc, x);
  case Unary::Log1p:
    return Log1pOp::create(b, loc, x);
  case Unary::Expm1:
    return Expm1Op::create(b, loc, x);
  case Unary::Silu:
    return MulOp::create(b, loc, x, LogisticOp::create(b, loc, x));
  case Unary::Reciprocal:
    return binary(Binary::Div, Scalar::ofFloat(1.0), x);
  default:
    return error("unhandled unary op");
  }
}

std::pair<Value, Value> TensorBuilder::broadcastOperands(const Operand &x,
                                                         const Operand &y,
                                                         Type element) {
  SmallVector<int64_t> shape;
  if (x.tensor && y.tensor) {
    auto s = broadcastShapes(typeOf(x.tensor).getShape(),
                             typeOf(y.tensor).getShape());
    if (!s)
      return {};
    shape = *s;
  } else if (x.tensor || y.tensor) {
    shape = llvm::to_vector(typeOf(x.tensor ? x.tensor : y.tensor).getShape());
  }
  return {materialize(x, shape, element), materialize(y, shape, element)};
}

Value TensorBuilder::binary(Binary kind, const Operand &x, const Operand &y) {
  Type elt = promote(x, y);
  // The type torch returns, when the computation happens in another: bool
  // + bool is a logical or and bool * bool an and (computed in i64, != 0);
  // an integer pow computes in f64 (exact below 2^53; trace.pow is
  // float-only) and converts back.
  Type resultType = elt;
  if (kind == Binary::Div)
    elt = resultType = floatTypeFor(elt);
  if (kind == Binary::Pow && !isa<FloatType>(elt))
    elt = b.getF64Type();
  if (elt.isInteger(1) && kind != Binary::Max && kind != Binary::Min) {
    if (kind == Binary::Sub)
      return error("subtraction of bool tensors is not supported (torch "
                   "raises too); use logical_xor or ~");
    elt = b.getI64Type();
  }
  auto [lhs, rhs] = broadcastOperands(x, y, elt);
  if (!lhs || !rhs)
    return Value();
  Value result;
  switch (kind) {
  case Binary::Add:
    result = AddOp::create(b, loc, lhs, rhs);
    break;
  case Binary::Sub:
    result = SubOp::create(b, loc, lhs, rhs);
    break;
  case Binary::Mul:
    result = MulOp::create(b, loc, lhs, rhs);
    break;
  case Binary::Div:
    result = DivOp::create(b, loc, lhs, rhs);
    break;
  case Binary::Pow:
    result = PowOp::create(b, loc, lhs, rhs);
    break;
  case Binary::Max:
    result = MaximumOp::create(b, loc, lhs, rhs);
    break;
  case Binary::Min:
    result = MinimumOp::create(b, loc, lhs, rhs);
    break;
  }
  return convert(result, resultType);
}

Value TensorBuilder::compare(ComparisonDirection dir, const Operand &x,
                             const Operand &y) {
  Type elt = promote(x, y);
  auto [lhs, rhs] = broadcastOperands(x, y, elt);
  if (!lhs || !rhs)
    return Value();
  return CompareOp::create(b, loc, typeOf(lhs).clone(b.getI1Type()),
                           ComparisonDirectionAttr::get(b.getContext(), dir),
                           lhs, rhs);
}

Value TensorBuilder::where(Value cond, const Operand &x, const Operand &y) {
  Type elt = promote(x, y);
  SmallVector<int64_t> shape = llvm::to_vector(typeOf(cond).getShape());
  for (const Operand *o : {&x, &y}) {
    if (!o->tensor)
      continue;
    auto s = broadcastShapes(shape, typeOf(o->tensor).getShape());
    if (!s)
      return Value();
    shape = *s;
  }
  Value c = broadcastTo(convert(cond, b.getI1Type()), shape);
  Value lhs = materialize(x, shape, elt);
  Value rhs = materialize(y, shape, elt);
  if (!c || !lhs || !rhs)
    return Value();
  return SelectOp::create(b, loc, c, lhs, rhs);
}

Value TensorBuilder::gelu(Value x, bool tanhApproximation) {
  x = convert(x, floatTypeFor(typeOf(x).getElementType()));
  Value half = binary(Binary::Mul, x, Scalar::ofFloat(0.5));
  Value inner;
  if (tanhApproximation) {
    // 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
    Value x3 = binary(Binary::Mul, binary(Binary::Mul, x, x), x);
    Value poly = binary(Binary::Add, x,
                        binary(Binary::Mul, x3, Scalar::ofFloat(0.044715)));
    inner = unary(Unary::Tanh,
                  binary(Binary::Mul, poly,
                         Scalar::ofFloat(std::sqrt(2.0 / M_PI))));
  } else {
    // 0.5 x (1 + erf(x / sqrt(2)))
    inner = unary(Unary::Erf,
                  binary(Binary::Mul, x, Scalar::ofFloat(M_SQRT1_2)));
  }
  return binary(Binary::Mul, half,
                binary(Binary::Add, inner, Scalar::ofFloat(1.0)));
}

Value TensorBuilder::clamp(Value x, std::optional<Operand> lo,
                           std::optional<Operand> hi, bool boundsPass) {
  if (!lo && !hi)
    return error("torch.clamp: at least one of 'min' or 'max' must not be "
                 "None");
  // A scalar bound is a select rather than max/min: the gradient goes to
  // x inside the bounds (at them too when boundsPass), where max/min would
  // split it at a tie; a tensor bound is maximum/minimum, which split it,
  // as PyTorch 2's clamp.Tensor. A compare with NaN is false, so NaN stays.
  Value result = x;
  auto bound = [&](Value current, const Operand &b, bool lower) -> Value {
    if (b.tensor)
      return binary(lower ? Binary::Max : Binary::Min, current, b);
    ComparisonDirection outside =
        lower ? (boundsPass ? ComparisonDirection::LT : ComparisonDirection::LE)
              : (boundsPass ? ComparisonDirection::GT : ComparisonDirection::GE);
    return where(compare(outside, current, b), b, current);
  };
  if (lo)
    result = bound(result, *lo, /*lower=*/true);
  if (result && hi)
    result = bound(result, *hi, /*lower=*/false);
  return result;
}

/// relu6(x + 3) / 6 of a float x, with `boundsPass` for the clamp.
static Value hardGate(TensorBuilder &tb, Value x, bool boundsPass) {
  using Binary = TensorBuilder::Binary;
  Value shifted = tb.binary(Binary::Add, x, Scalar::ofFloat(3.0));
  Value relu6 = tb.clamp(shifted, Operand(Scalar::ofFloat(0.0)),
                         Operand(Scalar::ofFloat(6.0)), boundsPass);
  return tb.binary(Binary::Div, relu6, Scalar::ofFloat(6.0));
}

Value TensorBuilder::hardsigmoid(Value x) {
  x = convert(x, floatTypeFor(typeOf(x).getElementType()));
  // torch's gradient is 0 at x = -3 and 3.
  return hardGate(*this, x, /*boundsPass=*/false);
}

Value TensorBuilder::hardswish(Value x) {
  x = convert(x, floatTypeFor(typeOf(x).getElementType()));
  // torch's gradient at x = -3 and 3 is x / 3 + 0.5: the gate's counts.
  Value gate = hardGate(*this, x, /*boundsPass=*/true);
  return binary(Binary::Mul, x, gate);
}

Value TensorBuilder::leakyRelu(Value x, const Scalar &slope) {
  Value positive = compare(ComparisonDirection::GT, x, Scalar::ofInt(0));
  Value scaled = binary(Binary::Mul, x, slope);
  return where(positive, x, scaled);
}

Value TensorBuilder::elu(Value x, const Scalar &alpha, const Scalar &scale,
                         const Scalar &inputScale) {
  x = convert(x, floatTypeFor(typeOf(x).getElementType()));
  Value positive = compare(ComparisonDirection::GT, x, Scalar::ofInt(0));
  Value inner = inputScale.asDouble() == 1.0
                    ? x
                    : binary(Binary::Mul, x, inputScale);
  // exp of the positive side would overflow where it is not taken, and
  // its gradient (0 * inf) would be NaN: exp(0) there instead.
  Value safe = where(positive, Scalar::ofFloat(0.0), inner);
  Value e = unary(Unary::Exp, safe);
  Value em1 = binary(Binary::Sub, e, Scalar::ofFloat(1.0));
  Value negative =
      binary(Binary::Mul, em1, Scalar::ofFloat(alpha.asDouble() *
                                                scale.asDouble()));
  Value scaled =
      scale.asDouble() == 1.0 ? x : binary(Binary::Mul, x, scale);
  return where(positive, scaled, negative);
}

Value TensorBuilder::softplus(Value x, const Scalar &beta,
                              const Scalar &threshold) {
  x = convert(x, floatTypeFor(typeOf(x).getElementType()));
  bool unit = beta.asDouble() == 1.0;
  Value bx = unit ? x : binary(Binary::Mul, x, beta);
  Value linear = compare(ComparisonDirection::GT, bx, threshold);
  // As in elu: no exp of the side that is not taken.
  Value safe = where(linear, Scalar::ofFloat(0.0), bx);
  Value e = unary(Unary::Exp, safe);
  Value onePlus = binary(Binary::Add, e, Scalar::ofFloat(1.0));
  Value logged = unary(Unary::Log, onePlus);
  Value soft = unit ? logged : binary(Binary::Div, logged, beta);
  return where(linear, x, soft);
}

Value TensorBuilder::mish(Value x) {
  x = convert(x, floatTypeFor(typeOf(x).getElementType()));
  Value soft = softplus(x, Scalar::ofFloat(1.0), Scalar::ofFloat(20.0));
  Value t = unary(Unary::Tanh, soft);
  return binary(Binary::Mul, x, t);
}

Value TensorBuilder::dropout(Value x, double p, bool train) {
  if (p < 0.0 || p > 1.0)
    return error("dropout probability has to be between 0 and 1, but got " +
                 std::to_string(p));
  if (!train || p == 0.0)
    return x;
  RankedTensorType type = typeOf(x);
  if (p == 1.0)
    return full(type.getShape(), type.getElementType(), Scalar::ofFloat(0.0));
  Type elt = floatTypeFor(type.getElementType());
  auto randType = RankedTensorType::get(type.getShape(), elt);
  Value seed = seedFn();
  auto rand = RandomUniformOp::create(b, loc, randType, seed,
                                      uint64_t(randomOffset));
  randomOffset += rand.getNumCounters();
  // Keep with probability 1 - p (u >= p), scale the kept by 1 / (1 - p).
  Value keep = compare(ComparisonDirection::GE, Value(rand),
                       Scalar::ofFloat(p));
  Value scaled = binary(Binary::Mul, x, Scalar::ofFloat(1.0 / (1.0 - p)));
  return where(keep, scaled, Scalar::ofFloat(0.0));
}

//===----------------------------------------------------------------------===//
// Shapes
//===----------------------------------------------------------------------===//

std::optional<SmallVector<int64_t>>
TensorBuilder::broadcastShapes(ArrayRef<int64_t> x, ArrayRef<int64_t> y) {
  size_t rank = std::max(x.size(), y.size());
  SmallVector<int64_t> out(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t dx = i < rank - x.size() ? 1 : x[i - (rank - x.size())];
    int64_t dy = i < rank - y.size() ? 1 : y[i - (rank - y.size())];
    if (dx != dy && dx != 1 && dy != 1) {
      error("shapes " + shapeString(x) + " and " + shapeString(y) +
            " do not broadcast (dim " + Twine(i) + ": " + Twine(dx) +
            " vs " + Twine(dy) + ")");
      return std::nullopt;
    }
    out[i] = dx == 1 ? dy : dx;
  }
  return out;
}

Value TensorBuilder::broadcastTo(Value x, ArrayRef<int64_t> shape) {
  RankedTensorType type = typeOf(x);
  if (type.getShape() == shape)
    return x;
  int64_t rank = type.getRank(), outRank = shape.size();
  if (rank > outRank)
    return error("cannot broadcast " + shapeString(type.getShape()) + " to " +
                 shapeString(shape));
  SmallVector<int64_t> dims;
  for (int64_t i = 0; i < rank; ++i) {
    int64_t d = outRank - rank + i;
    if (type.getDimSize(i) != 1 && type.getDimSize(i) != shape[d])
      return error("cannot broadcast " + shapeString(type.getShape()) +
                   " to " + shapeString(shape));
    dims.push_back(d);
  }
  return BroadcastInDimOp::create(b, loc, type.clone(shape), x, dims);
}

Value TensorBuilder::reshape(Value x, ArrayRef<int64_t> sizes) {
  RankedTensorType type = typeOf(x);
  SmallVector<int64_t> shape(sizes);
  int64_t known = 1, inferred = -1;
  for (auto [i, d] : llvm::enumerate(shape)) {
    if (d == -1) {
      if (inferred >= 0)
        return error("only one dimension can be inferred (-1) in " +
                     shapeString(sizes));
      inferred = i;
    } else if (d < 0) {
      return error("invalid size " + Twine(d) + " in " + shapeString(sizes));
    } else {
      known *= d;
    }
  }
  int64_t numel = numElements(type.getShape());
  if (inferred >= 0) {
    if (known == 0 || numel % known != 0)
      return error("shape " + shapeString(sizes) +
                   " is invalid for input of size " + Twine(numel));
    shape[inferred] = numel / known;
  } else if (known != numel) {
    return error("shape " + shapeString(sizes) +
                 " is invalid for input of size " + Twine(numel));
  }
  if (type.getShape() == ArrayRef<int64_t>(shape))
    return x;
  return ReshapeOp::create(b, loc, type.clone(shape), x);
}

Value TensorBuilder::permute(Value x, ArrayRef<int64_t> perm) {
  RankedTensorType type = typeOf(x);
  if (int64_t(perm.size()) != type.getRank())
    return error("permute: " + Twine(perm.size()) +
                 " dims given for a tensor of rank " + Twine(type.getRank()));
  SmallVector<int64_t> p, shape;
  for (int64_t d : perm) {
    int64_t n = normalizeDim(d, type.getRank());
    if (n < 0)
      return Value();
    if (llvm::is_contained(p, n))
      return error("permute: dim " + Twine(d) + " repeats");
    p.push_back(n);
    shape.push_back(type.getDimSize(n));
  }
  if (llvm::equal(p, llvm::seq<int64_t>(0, type.getRank())))
    return x;
  return TransposeOp::create(b, loc, type.clone(shape), x,
                             b.getDenseI64ArrayAttr(p));
}

Value TensorBuilder::swapDims(Value x, int64_t d0, int64_t d1) {
  int64_t rank = typeOf(x).getRank();
  if (rank == 0)
    return x;
  d0 = normalizeDim(d0, rank);
  d1 = normalizeDim(d1, rank);
  if (d0 < 0 || d1 < 0)
    return Value();
  SmallVector<int64_t> perm = llvm::to_vector(llvm::seq<int64_t>(0, rank));
  std::swap(perm[d0], perm[d1]);
  return permute(x, perm);
}

Value TensorBuilder::slice(Value x, int64_t dim, std::optional<int64_t> start,
                           std::optional<int64_t> end, int64_t step) {
  RankedTensorType type = typeOf(x);
  dim = normalizeDim(dim, type.getRank());
  if (dim < 0)
    return Value();
  if (step < 1)
    return error("slice step must be positive, got " + Twine(step));
  int64_t size = type.getDimSize(dim);
  auto clamp = [&](int64_t v) {
    if (v < 0)
      v += size;
    return std::clamp<int64_t>(v, 0, size);
  };
  int64_t lo = start ? clamp(*start) : 0;
  int64_t hi = end ? clamp(*end) : size;
  hi = std::max(hi, lo);
  if (lo == 0 && hi == size && step == 1)
    return x;
  SmallVector<int64_t> starts(type.getRank(), 0), limits(type.getShape()),
      strides(type.getRank(), 1), shape(type.getShape());
  starts[dim] = lo;
  limits[dim] = hi;
  strides[dim] = step;
  shape[dim] = (hi - lo + step - 1) / step;
  return SliceOp::create(b, loc, type.clone(shape), x,
                         b.getDenseI64ArrayAttr(starts),
                         b.getDenseI64ArrayAttr(limits),
                         b.getDenseI64ArrayAttr(strides));
}

Value TensorBuilder::select(Value x, int64_t dim, int64_t index) {
  RankedTensorType type = typeOf(x);
  dim = normalizeDim(dim, type.getRank());
  if (dim < 0)
    return Value();
  int64_t size = type.getDimSize(dim);
  if (index < -size || index >= size)
    return error("index " + Twine(index) + " is out of range for dim " +
                 Twine(dim) + " of size " + Twine(size));
  if (index < 0)
    index += size;
  Value s = slice(x, dim, index, index + 1, 1);
  SmallVector<int64_t> shape(type.getShape());
  shape.erase(shape.begin() + dim);
  return s ? reshape(s, shape) : s;
}

Value TensorBuilder::unsqueeze(Value x, int64_t dim) {
  RankedTensorType type = typeOf(x);
  int64_t rank = type.getRank();
  if (dim < -(rank + 1) || dim > rank)
    return error("unsqueeze: dim " + Twine(dim) +
                 " is out of range for a tensor of rank " + Twine(rank));
  if (dim < 0)
    dim += rank + 1;
  SmallVector<int64_t> shape(type.getShape());
  shape.insert(shape.begin() + dim, 1);
  return reshape(x, shape);
}

Value TensorBuilder::squeeze(Value x, ArrayRef<int64_t> dims) {
  RankedTensorType type = typeOf(x);
  auto norm = normalizeDims(dims, type.getRank());
  if (!norm)
    return Value();
  SmallVector<int64_t> shape;
  for (auto [i, d] : llvm::enumerate(type.getShape())) {
    bool listed = dims.empty() || llvm::is_contained(*norm, int64_t(i));
    if (!(listed && d == 1))
      shape.push_back(d);
  }
  return reshape(x, shape);
}

Value TensorBuilder::flatten(Value x, int64_t startDim, int64_t endDim) {
  RankedTensorType type = typeOf(x);
  if (type.getRank() == 0)
    return reshape(x, {1});
  startDim = normalizeDim(startDim, type.getRank());
  endDim = normalizeDim(endDim, type.getRank());
  if (startDim < 0 || endDim < 0)
    return Value();
  if (startDim > endDim)
    return error("flatten: start_dim cannot come after end_dim");
  SmallVector<int64_t> shape;
  ArrayRef<int64_t> in = type.getShape();
  shape.append(in.begin(), in.begin() + startDim);
  shape.push_back(numElements(in.slice(startDim, endDim - startDim + 1)));
  shape.append(in.begin() + endDim + 1, in.end());
  return reshape(x, shape);
}

Value TensorBuilder::expand(Value x, ArrayRef<int64_t> sizes) {
  RankedTensorType type = typeOf(x);
  int64_t rank = type.getRank(), outRank = sizes.size();
  if (outRank < rank)
    return error("expand: " + Twine(outRank) +
                 " sizes given for a tensor of rank " + Twine(rank));
  SmallVector<int64_t> shape(sizes);
  for (int64_t i = 0; i < outRank; ++i) {
    int64_t src = i - (outRank - rank);
    if (shape[i] == -1) {
      if (src < 0)
        return error("expand: -1 is not allowed for a new leading dim");
      shape[i] = type.getDimSize(src);
    }
  }
  return broadcastTo(x, shape);
}

Value TensorBuilder::concat(ArrayRef<Value> xs, int64_t dim) {
  if (xs.empty())
    return error("cat of an empty list");
  // Promotes to a common dtype, as torch.cat does.
  Type elt = typeOf(xs.front()).getElementType();
  for (Value x : xs.drop_front())
    elt = promoteTypes(elt, typeOf(x).getElementType());
  RankedTensorType first = typeOf(xs.front());
  dim = normalizeDim(dim, first.getRank());
  if (dim < 0)
    return Value();
  SmallVector<Value> inputs;
  SmallVector<int64_t> shape(first.getShape());
  shape[dim] = 0;
  for (Value x : xs) {
    RankedTensorType t = typeOf(x);
    if (t.getRank() != first.getRank())
      return error("cat: tensors of rank " + Twine(first.getRank()) + " and " +
                   Twine(t.getRank()));
    for (int64_t d = 0; d < t.getRank(); ++d)
      if (d != dim && t.getDimSize(d) != first.getDimSize(d))
        return error("cat: sizes " + shapeString(first.getShape()) + " and " +
                     shapeString(t.getShape()) + " differ outside dim " +
                     Twine(dim));
    shape[dim] += t.getDimSize(dim);
    inputs.push_back(convert(x, elt));
  }
  if (inputs.size() == 1)
    return inputs.front();
  return ConcatenateOp::create(b, loc, RankedTensorType::get(shape, elt),
                               inputs, b.getI64IntegerAttr(dim));
}

std::optional<SmallVector<Value>>
TensorBuilder::split(Value x, ArrayRef<int64_t> sizes, int64_t dim) {
  RankedTensorType type = typeOf(x);
  dim = normalizeDim(dim, type.getRank());
  if (dim < 0)
    return std::nullopt;
  int64_t total = std::accumulate(sizes.begin(), sizes.end(), int64_t(0));
  if (total != type.getDimSize(dim)) {
    error("split sizes " + shapeString(sizes) + " do not add up to " +
          Twine(type.getDimSize(dim)));
    return std::nullopt;
  }
  SmallVector<Value> pieces;
  int64_t start = 0;
  for (int64_t s : sizes) {
    pieces.push_back(slice(x, dim, start, start + s, 1));
    start += s;
  }
  return pieces;
}

Value TensorBuilder::triangle(Value x, int64_t k, bool lower) {
  RankedTensorType type = typeOf(x);
  if (type.getRank() < 2)
    return error(Twine(lower ? "tril" : "triu") +
                 ": the tensor needs at least 2 dims");
  auto idxType = RankedTensorType::get(type.getShape(), b.getI64Type());
  int64_t rank = type.getRank();
  Value row = IotaOp::create(b, loc, idxType, uint64_t(rank - 2));
  Value col = IotaOp::create(b, loc, idxType, uint64_t(rank - 1));
  // tril keeps col - row <= k, triu keeps col - row >= k.
  Value diff = binary(Binary::Sub, col, row);
  Value keep = compare(lower ? ComparisonDirection::LE
                             : ComparisonDirection::GE,
                       diff, Scalar::ofInt(k));
  return where(keep, x, full({}, type.getElementType(), Scalar::ofInt(0)));
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

Value TensorBuilder::sumOrMax(Value x, ArrayRef<int64_t> dims, bool keepdim,
                              bool isMax) {
  RankedTensorType type = typeOf(x);
  SmallVector<int64_t> all;
  if (dims.empty())
    all = llvm::to_vector(llvm::seq<int64_t>(0, type.getRank()));
  auto norm = normalizeDims(dims.empty() ? ArrayRef<int64_t>(all) : dims,
                            type.getRank());
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

//===----------------------------------------------------------------------===//
// Linear algebra
//===----------------------------------------------------------------------===//

Value TensorBuilder::matmul(Value x, Value y) {
  RankedTensorType tx = typeOf(x), ty = typeOf(y);
  if (tx.getRank() == 0 || ty.getRank() == 0)
    return error("matmul: both arguments need at least 1 dim");
  Type elt = promote(Operand(x), Operand(y));
  x = convert(x, elt);
  y = convert(y, elt);
  // 1-D operands: a row vector on the left, a column vector on the right,
  // the added dim dropped from the result.
  bool vecL = tx.getRank() == 1, vecR = ty.getRank() == 1;
  if (vecL)
    x = reshape(x, {1, tx.getDimSize(0)});
  if (vecR)
    y = reshape(y, {ty.getDimSize(0), 1});
  tx = typeOf(x);
  ty = typeOf(y);
  int64_t k = tx.getShape().back();
  if (k != ty.getDimSize(ty.getRank() - 2))
    return error("matmul: shapes " + shapeString(tx.getShape()) + " and " +
                 shapeString(ty.getShape()) + " cannot be multiplied (" +
                 Twine(k) + " vs " + Twine(ty.getDimSize(ty.getRank() - 2)) +
                 ")");
  int64_t n = ty.getShape().back();
  SmallVector<int64_t> outShape;
  Value result;
  if (ty.getRank() == 2) {
    // [..., M, K] x [K, N]: one [B*M, K] x [K, N] product.
    ArrayRef<int64_t> lead = tx.getShape().drop_back();
    int64_t rows = numElements(lead);
    Value flat = reshape(x, {rows, k});
    auto resType = RankedTensorType::get({rows, n}, elt);
    result = MatmulOp::create(b, loc, resType, flat, y);
    outShape.append(lead.begin(), lead.end());
    outShape.push_back(n);
    result = reshape(result, outShape);
  } else {
    ArrayRef<int64_t> bx = tx.getShape().drop_back(2);
    ArrayRef<int64_t> by = ty.getShape().drop_back(2);
    auto batch = broadcastShapes(bx, by);
    if (!batch)
      return Value();
    int64_t m = tx.getDimSize(tx.getRank() - 2);
    SmallVector<int64_t> sx(*batch), sy(*batch);
    sx.append({m, k});
    sy.append({k, n});
    Value lhs = broadcastTo(x, sx), rhs = broadcastTo(y, sy);
    if (!lhs || !rhs)
      return Value();
    outShape.assign(batch->begin(), batch->end());
    outShape.append({m, n});
    result = MatmulOp::create(b, loc, RankedTensorType::get(outShape, elt),
                              lhs, rhs);
  }
  if (!result || (!vecL && !vecR))
    return result;
  SmallVector<int64_t> squeezed(outShape);
  if (vecR)
    squeezed.pop_back();
  if (vecL)
    squeezed.erase(squeezed.end() - (vecR ? 1 : 2));
  return reshape(result, squeezed);
}

Value TensorBuilder::linear(Value x, Value w, Value bias) {
  if (typeOf(w).getRank() != 2)
    return error("linear: the weight must be 2-D, got shape " +
                 shapeString(typeOf(w).getShape()));
  Value wt = swapDims(w, 0, 1);
  Value y = matmul(x, wt);
  if (!y || !bias)
    return y;
  return binary(Binary::Add, y, bias);
}

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

Value TensorBuilder::flip(Value x, ArrayRef<int64_t> dims) {
  RankedTensorType type = typeOf(x);
  auto norm = normalizeDims(dims, type.getRank());
  if (!norm)
    return Value();
  return ReverseOp::create(b, loc, x, *norm);
}

//===----------------------------------------------------------------------===//
// Indexing
//===----------------------------------------------------------------------===//

bool TensorBuilder::isIndexTensor(Value x) {
  Type element = typeOf(x).getElementType();
  return element.isInteger(32) || element.isInteger(64);
}

std::string TensorBuilder::describeElements(Value x) {
  Type element = typeOf(x).getElementType();
  if (isa<FloatType>(element))
    return "a float tensor";
  if (element.isInteger(1))
    return "a bool tensor";
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "a tensor of " << element;
  return text;
}

Value TensorBuilder::gather(Value x, int64_t dim, Value index) {
  RankedTensorType type = typeOf(x), it = typeOf(index);
  if (!isIndexTensor(index))
    return error("gather: expected integer indices, got " +
                 describeElements(index));
  // torch treats a 0-d tensor as 1-d here, and gives a 0-d result for a
  // 0-d index.
  bool scalar = it.getRank() == 0;
  if (type.getRank() == 0)
    x = reshape(x, {1});
  if (scalar)
    index = reshape(index, {1});
  type = typeOf(x);
  it = typeOf(index);
  dim = normalizeDim(dim, type.getRank());
  if (dim < 0)
    return Value();
  if (it.getRank() != type.getRank())
    return error("gather: index of shape " + shapeString(it.getShape()) +
                 " does not have the rank of input " +
                 shapeString(type.getShape()));
  for (int64_t d = 0; d < type.getRank(); ++d)
    if (d != dim && it.getDimSize(d) > type.getDimSize(d))
      return error("gather: index of shape " + shapeString(it.getShape()) +
                   " is larger than input " + shapeString(type.getShape()) +
                   " in dim " + Twine(d));
  if (type.getDimSize(dim) == 0 && it.getNumElements() > 0)
    return error("gather: dim " + Twine(dim) + " of input " +
                 shapeString(type.getShape()) + " is empty");
  Value picked = GatherOp::create(b, loc, x, index, dim);
  return scalar ? reshape(picked, {}) : picked;
}

Value TensorBuilder::scatterAdd(Value x, int64_t dim, Value index, Value src) {
  RankedTensorType type = typeOf(x), it = typeOf(index), st = typeOf(src);
  if (!isIndexTensor(index))
    return error("scatter_add: expected integer indices, got " +
                 describeElements(index));
  dim = normalizeDim(dim, type.getRank());
  if (dim < 0)
    return Value();
  if (it.getRank() != type.getRank() || st.getRank() != type.getRank())
    return error("scatter_add: index " + shapeString(it.getShape()) +
                 " and src " + shapeString(st.getShape()) +
                 " must have the rank of self " +
                 shapeString(type.getShape()));
  for (int64_t d = 0; d < type.getRank(); ++d) {
    if (it.getDimSize(d) > st.getDimSize(d))
      return error("scatter_add: index " + shapeString(it.getShape()) +
                   " is larger than src " + shapeString(st.getShape()) +
                   " in dim " + Twine(d));
    if (d != dim && it.getDimSize(d) > type.getDimSize(d))
      return error("scatter_add: index " + shapeString(it.getShape()) +
                   " is larger than self " + shapeString(type.getShape()) +
                   " in dim " + Twine(d));
  }
  // torch reads src only where the index has elements.
  for (int64_t d = 0; d < st.getRank() && src; ++d)
    if (st.getDimSize(d) != it.getDimSize(d))
      src = slice(src, d, 0, it.getDimSize(d), 1);
  src = src ? convert(src, type.getElementType()) : src;
  if (!src)
    return src;
  return ScatterAddOp::create(b, loc, x, index, src, dim);
}

Value TensorBuilder::indexSelect(Value x, int64_t dim, Value index) {
  RankedTensorType type = typeOf(x), it = typeOf(index);
  if (!isIndexTensor(index))
    return error("index_select: expected integer indices, got " +
                 describeElements(index));
  if (it.getRank() > 1)
    return error("index_select: the index must be 0-D or 1-D, got shape " +
                 shapeString(it.getShape()));
  // A 0-d input gives a 0-d result (its one element, picked).
  bool scalar = type.getRank() == 0;
  if (scalar)
    x = reshape(x, {1});
  type = typeOf(x);
  dim = normalizeDim(dim, type.getRank());
  if (dim < 0)
    return Value();
  // The index along `dim`, broadcast over the other dims (a view the
  // gather's lowering reads in place).
  int64_t count = it.getNumElements();
  SmallVector<int64_t> shape(type.getShape());
  shape[dim] = count;
  Value flat = reshape(index, {count});
  Value spread = BroadcastInDimOp::create(b, loc, it.clone(shape), flat,
                                          ArrayRef<int64_t>{dim});
  Value picked = gather(x, dim, spread);
  return scalar && picked && count == 1 ? reshape(picked, {}) : picked;
}

Value TensorBuilder::stopGradient(Value x) {
  return StopGradientOp::create(b, loc, x);
}

Value TensorBuilder::stack(ArrayRef<Value> xs, int64_t dim) {
  if (xs.empty())
    return error("stack of an empty list");
  RankedTensorType first = typeOf(xs.front());
  int64_t rank = first.getRank();
  if (dim < -(rank + 1) || dim > rank)
    return error("stack: dim " + Twine(dim) +
                 " is out of range for tensors of rank " + Twine(rank));
  if (dim < 0)
    dim += rank + 1;
  SmallVector<Value> parts;
  for (Value x : xs) {
    if (typeOf(x).getShape() != first.getShape())
      return error("stack: tensors of shapes " +
                   shapeString(first.getShape()) + " and " +
                   shapeString(typeOf(x).getShape()));
    parts.push_back(unsqueeze(x, dim));
  }
  return concat(parts, dim);
}

namespace {

/// PyTorch's source positions for one dim of an upsampling
/// (aten/src/ATen/native/UpSample.h), in its float arithmetic: per output
/// position, the two source indices and their weights (nearest: one index,
/// weight 1).
struct UpsampleTaps {
  SmallVector<int64_t> lo, hi;
  SmallVector<double> loWeight, hiWeight;
};

/// compute_scales_value<float>: 1 / scale when given, else in / out.
float scalesValue(double scale, int64_t in, int64_t out) {
  return scale > 0 ? float(1.0 / scale) : float(in) / float(out);
}

UpsampleTaps upsampleTaps(int64_t in, int64_t out, double scale,
                          bool linear, bool alignCorners) {
  UpsampleTaps taps;
  if (!linear) {
    // nearest_idx: the same size and exact doubling are special-cased.
    float s = scalesValue(scale, in, out);
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
  // area_pixel_compute_scale and compute_indices_weights_linear.
  float s = alignCorners ? (out > 1 ? float(in - 1) / float(out - 1) : 0.0f)
                         : scalesValue(scale, in, out);
  for (int64_t i = 0; i < out; ++i) {
    float real = alignCorners
                     ? s * float(i)
                     : std::max(s * (float(i) + 0.5f) - 0.5f, 0.0f);
    int64_t lo = std::min(int64_t(real), in - 1);
    int64_t hi = lo + (lo < in - 1 ? 1 : 0);
    float lambda = std::min(std::max(real - float(lo), 0.0f), 1.0f);
    taps.lo.push_back(lo);
    taps.hi.push_back(hi);
    taps.loWeight.push_back(1.0f - lambda);
    taps.hiWeight.push_back(lambda);
  }
  return taps;
}

} // namespace

Value TensorBuilder::floatConstant(RankedTensorType type,
                                   ArrayRef<double> values) {
  const llvm::fltSemantics &semantics =
      cast<FloatType>(type.getElementType()).getFloatSemantics();
  SmallVector<APFloat> elements;
  for (double v : values) {
    APFloat value(v);
    bool lost;
    value.convert(semantics, APFloat::rmNearestTiesToEven, &lost);
    elements.push_back(value);
  }
  return ConstantOp::create(b, loc, DenseElementsAttr::get(type, elements));
}

Value TensorBuilder::indexConstant(ArrayRef<int64_t> values) {
  auto type = RankedTensorType::get({int64_t(values.size())}, b.getI64Type());
  return ConstantOp::create(b, loc, DenseElementsAttr::get(type, values));
}

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
    UpsampleTaps taps = upsampleTaps(in, out, d < int64_t(scales.size())
                                                  ? scales[d]
                                                  : 0.0,
                                     linear, alignCorners);
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
                             ArrayRef<int64_t> dilation, bool ceilMode) {
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
  Value maximum;
  for (int64_t flat = 0; flat < windowSize; ++flat) {
    SmallVector<int64_t> starts(rank, 0), limits(paddedType.getShape()),
        strides(rank, 1);
    int64_t rest = flat;
    for (int64_t d = spatial - 1; d >= 0; --d) {
      int64_t dim = rank - spatial + d, k = rest % kernel[d];
      rest /= kernel[d];
      starts[dim] = k * dilation[d];
      limits[dim] = starts[dim] + (out[d] - 1) * steps[d] + 1;
      strides[dim] = steps[d];
    }
    Value candidate = SliceOp::create(b, loc, padded, starts, limits, strides);
    if (!maximum) {
      maximum = candidate;
      continue;
    }
    Value greater = CompareOp::create(b, loc, ComparisonDirection::GT,
                                      candidate, maximum);
    Value isNan = CompareOp::create(b, loc, ComparisonDirection::NE,
                                    candidate, candidate);
    Value takes = SelectOp::create(b, loc, isNan, isNan, greater);
    maximum = SelectOp::create(b, loc, takes, candidate, maximum);
  }
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

//===----------------------------------------------------------------------===//
// Model-level composites
//===----------------------------------------------------------------------===//

Value TensorBuilder::layerNorm(Value x, ArrayRef<int64_t> normalizedShape,
                               Value weight, Value bias, double eps) {
  RankedTensorType type = typeOf(x);
  int64_t n = normalizedShape.size();
  if (n == 0 || n > type.getRank() ||
      type.getShape().take_back(n) != normalizedShape)
    return error("layer_norm: normalized_shape " +
                 shapeString(normalizedShape) +
                 " does not match the trailing dims of input " +
                 shapeString(type.getShape()));
  x = convert(x, floatTypeFor(type.getElementType()));
  SmallVector<int64_t> dims =
      llvm::to_vector(llvm::seq<int64_t>(type.getRank() - n, type.getRank()));
  Value mu = mean(x, dims, /*keepdim=*/true);
  Value centered = binary(Binary::Sub, x, mu);
  Value var = mean(binary(Binary::Mul, centered, centered), dims,
                   /*keepdim=*/true);
  Value rstd = unary(Unary::Rsqrt,
                     binary(Binary::Add, var, Scalar::ofFloat(eps)));
  Value y = binary(Binary::Mul, centered, rstd);
  if (y && weight)
    y = binary(Binary::Mul, y, weight);
  if (y && bias)
    y = binary(Binary::Add, y, bias);
  return y;
}

/// `v` [C] as [C, 1, ...] for `rank`-D tensors [N, C, ...]: a per-channel
/// operand.
static Value perChannel(TensorBuilder &tb, Value v, int64_t rank) {
  SmallVector<int64_t> shape(rank - 1, 1);
  shape[0] = TensorBuilder::typeOf(v).getDimSize(0);
  return tb.reshape(v, shape);
}

TensorBuilder::BatchNorm
TensorBuilder::batchNorm(Value x, Value weight, Value bias, Value runningMean,
                         Value runningVar, bool training, double momentum,
                         double eps) {
  RankedTensorType type = typeOf(x);
  int64_t rank = type.getRank();
  if (rank < 2)
    return {error("batch_norm: needs an input [N, C, ...], got " +
                  shapeString(type.getShape())), {}, {}};
  int64_t channels = type.getDimSize(1);
  if (type.getNumElements() == 0)
    return {error("batch_norm: the input " + shapeString(type.getShape()) +
                  " is empty"), {}, {}};
  for (Value v : {weight, bias, runningMean, runningVar})
    if (v && (typeOf(v).getRank() != 1 || typeOf(v).getDimSize(0) != channels))
      return {error("batch_norm: weight, bias and running statistics must "
                    "have shape [" + Twine(channels) + "], got " +
                    shapeString(typeOf(v).getShape())), {}, {}};
  if (!training && (!runningMean || !runningVar))
    return {error("batch_norm: eval mode needs running_mean and "
                  "running_var"), {}, {}};
  x = convert(x, floatTypeFor(type.getElementType()));
  SmallVector<int64_t> dims = {0};
  for (int64_t d = 2; d < rank; ++d)
    dims.push_back(d);
  BatchNorm result;
  Value centered, rstd;
  if (training) {
    Value mu = mean(x, dims, /*keepdim=*/true);
    centered = binary(Binary::Sub, x, mu);
    Value squares = binary(Binary::Mul, centered, centered);
    Value var = mean(squares, dims, /*keepdim=*/true);
    Value shifted = binary(Binary::Add, var, Scalar::ofFloat(eps));
    rstd = unary(Unary::Rsqrt, shifted);
    if (runningMean && runningVar) {
      // running = (1 - momentum) running + momentum batch, the variance
      // unbiased (n / (n - 1)), as PyTorch's kernels update them.
      int64_t n = type.getNumElements() / channels;
      Value batchMean = reshape(mu, {channels});
      Value batchVar = reshape(var, {channels});
      Value unbiased = binary(Binary::Mul, batchVar,
                              Scalar::ofFloat(n > 1 ? double(n) / (n - 1)
                                                    : 1.0));
      Value keptMean = binary(Binary::Mul, runningMean,
                              Scalar::ofFloat(1.0 - momentum));
      Value newMean = binary(Binary::Mul, batchMean, Scalar::ofFloat(momentum));
      result.runningMean = binary(Binary::Add, keptMean, newMean);
      Value keptVar = binary(Binary::Mul, runningVar,
                             Scalar::ofFloat(1.0 - momentum));
      Value newVar = binary(Binary::Mul, unbiased, Scalar::ofFloat(momentum));
      result.runningVar = binary(Binary::Add, keptVar, newVar);
    }
  } else {
    Value mu = perChannel(*this, runningMean, rank);
    centered = binary(Binary::Sub, x, mu);
    Value var = perChannel(*this, runningVar, rank);
    Value shifted = binary(Binary::Add, var, Scalar::ofFloat(eps));
    rstd = unary(Unary::Rsqrt, shifted);
  }
  Value y = binary(Binary::Mul, centered, rstd);
  if (y && weight)
    y = binary(Binary::Mul, y, perChannel(*this, weight, rank));
  if (y && bias)
    y = binary(Binary::Add, y, perChannel(*this, bias, rank));
  result.output = y;
  return result;
}

Value TensorBuilder::groupNorm(Value x, int64_t groups, Value weight,
                               Value bias, double eps) {
  RankedTensorType type = typeOf(x);
  int64_t rank = type.getRank();
  if (rank < 2 || groups < 1 || type.getDimSize(1) % groups != 0)
    return error("group_norm: " + Twine(groups) + " groups do not divide the "
                 "channels of the input " + shapeString(type.getShape()));
  if (type.getNumElements() == 0)
    return error("group_norm: the input " + shapeString(type.getShape()) +
                 " is empty");
  for (Value v : {weight, bias})
    if (v && (typeOf(v).getRank() != 1 ||
              typeOf(v).getDimSize(0) != type.getDimSize(1)))
      return error("group_norm: weight and bias must have shape [" +
                   Twine(type.getDimSize(1)) + "], got " +
                   shapeString(typeOf(v).getShape()));
  int64_t batch = type.getDimSize(0);
  int64_t perGroup = type.getNumElements() / (batch * groups);
  Value grouped = reshape(x, {batch, groups, perGroup});
  grouped = convert(grouped, floatTypeFor(type.getElementType()));
  Value mu = mean(grouped, {2}, /*keepdim=*/true);
  Value centered = binary(Binary::Sub, grouped, mu);
  Value squares = binary(Binary::Mul, centered, centered);
  Value var = mean(squares, {2}, /*keepdim=*/true);
  Value shifted = binary(Binary::Add, var, Scalar::ofFloat(eps));
  Value rstd = unary(Unary::Rsqrt, shifted);
  Value normalized = binary(Binary::Mul, centered, rstd);
  Value y = reshape(normalized, type.getShape());
  if (y && weight)
    y = binary(Binary::Mul, y, perChannel(*this, weight, rank));
  if (y && bias)
    y = binary(Binary::Add, y, perChannel(*this, bias, rank));
  return y;
}

Value TensorBuilder::embedding(Value weight, Value indices,
                               std::optional<int64_t> paddingIdx) {
  RankedTensorType wt = typeOf(weight);
  if (wt.getRank() != 2)
    return error("embedding: the weight must be 2-D, got shape " +
                 shapeString(wt.getShape()));
  if (!isIndexTensor(indices))
    return error("embedding: expected integer indices, got " +
                 describeElements(indices));
  RankedTensorType it = typeOf(indices);
  int64_t count = numElements(it.getShape());
  // Rows of the weight picked by a gather: its backward is a scatter-add
  // over the indices (work in the rows picked, not the vocabulary).
  Value rows = indexSelect(weight, 0, reshape(indices, {count}));
  if (rows && paddingIdx) {
    // torch's embedding backward leaves the padding row's gradient at zero:
    // where the index is padding_idx, the value comes through
    // stop_gradient.
    Value isPad = compare(ComparisonDirection::EQ, reshape(indices, {count, 1}),
                          Scalar::ofInt(*paddingIdx));
    Value frozen = stopGradient(rows);
    rows = where(isPad, frozen, rows);
  }
  SmallVector<int64_t> shape(it.getShape());
  shape.push_back(wt.getDimSize(1));
  return rows ? reshape(rows, shape) : rows;
}

Value TensorBuilder::nllLoss(Value logProbs, Value target, Value weight,
                             int64_t reduction, int64_t ignoreIndex,
                             double labelSmoothing) {
  RankedTensorType type = typeOf(logProbs);
  RankedTensorType tt = typeOf(target);
  if (type.getRank() != 2 && type.getRank() != 1)
    return error("nll_loss: expected input of shape [N, C] or [C], got " +
                 shapeString(type.getShape()));
  if (tt.getRank() != type.getRank() - 1 ||
      (type.getRank() == 2 && tt.getDimSize(0) != type.getDimSize(0)))
    return error("nll_loss: target of shape " + shapeString(tt.getShape()) +
                 " does not match input of shape " +
                 shapeString(type.getShape()));
  if (weight)
    return error("nll_loss: class weights are not supported");
  if (reduction < 0 || reduction > 2)
    return error("nll_loss: unknown reduction " + Twine(reduction));
  int64_t classes = type.getShape().back();
  Type elt = type.getElementType();
  if (!isIndexTensor(target))
    return error("nll_loss: expected integer targets, got " +
                 describeElements(target));
  int64_t classDim = type.getRank() - 1;
  // -logp[target] per sample, a gather along the classes (its gradient a
  // scatter of one element per sample); 0 where the target is
  // ignore_index, which the gather clamps into range and the select below
  // then drops.
  SmallVector<int64_t> column(tt.getShape());
  column.push_back(1);
  Value index = reshape(target, column);
  Value gathered = gather(logProbs, classDim, index);
  Value picked = gathered ? reshape(gathered, tt.getShape()) : gathered;
  if (!picked)
    return picked;
  Value valid = compare(ComparisonDirection::NE, target,
                        Scalar::ofInt(ignoreIndex));
  Value perSample = unary(Unary::Neg, picked);
  if (labelSmoothing > 0.0) {
    // (1 - e) * nll + e * mean_c(-logp), as torch's label_smoothing.
    Value total = sum(logProbs, {classDim}, false);
    Value negated = unary(Unary::Neg, total);
    Value smooth = binary(Binary::Div, negated, Scalar::ofInt(classes));
    Value kept =
        binary(Binary::Mul, perSample, Scalar::ofFloat(1.0 - labelSmoothing));
    Value spread = binary(Binary::Mul, smooth, Scalar::ofFloat(labelSmoothing));
    perSample = binary(Binary::Add, kept, spread);
  }
  perSample = where(valid, perSample, Scalar::ofFloat(0.0));
  if (!perSample || reduction == 0)
    return perSample;
  Value total = sum(perSample, {}, false);
  if (reduction == 2)
    return total;
  Value count = sum(convert(valid, elt), {}, false);
  return binary(Binary::Div, total, count);
}

Value TensorBuilder::crossEntropy(Value logits, Value target, Value weight,
                                  int64_t reduction, int64_t ignoreIndex,
                                  double labelSmoothing) {
  RankedTensorType type = typeOf(logits);
  if (isa<FloatType>(typeOf(target).getElementType()))
    return error("cross_entropy with class probabilities as target is not "
                 "supported; pass class indices");
  if (type.getRank() != 2 && type.getRank() != 1)
    return error("cross_entropy: expected logits of shape [N, C] or [C], got " +
                 shapeString(type.getShape()));
  Value logp = softmax(logits, -1, /*log=*/true);
  return logp ? nllLoss(logp, target, weight, reduction, ignoreIndex,
                        labelSmoothing)
              : logp;
}
