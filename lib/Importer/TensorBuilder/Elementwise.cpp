//===- Elementwise.cpp - elementwise trace ops ----------------------------===//
//
// The builders of one family (conversions, unary and binary arithmetic with
// torch's broadcasting and type promotion, comparisons, where, and the
// activations written out elementwise: gelu, clamp, hard*, leaky_relu, elu,
// softplus, mish, dropout), as the importers' AtenElementwise.cpp.
//
//===----------------------------------------------------------------------===//

#include "trace/Importer/TensorBuilder.h"

#include "llvm/ADT/STLExtras.h"

#include <cmath>
#include <string>

using namespace mlir;
using namespace mlir::trace;

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
  if (kind >= Unary::Exp2)
    return unaryComposite(kind, x);
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

/// A float number operand (a function, not a lambda: scripts/
/// check_call_order.py takes lambdas for IR builders).
static Scalar real(double v) { return Scalar::ofFloat(v); }

/// The magnitude past which sqrt(x^2 + 1) rounds to |x| in `element` (1 /
/// x^2 below its epsilon), a power of two: 2^ceil(p / 2) for a p-bit
/// significand (64 for f16, 16 for bf16, 4096 for f32, 2^27 for f64). x^2
/// stays finite there in every float type.
static double largeArgument(Type element) {
  unsigned precision = APFloat::semanticsPrecision(
      cast<FloatType>(element).getFloatSemantics());
  return std::ldexp(1.0, int((precision + 1) / 2));
}

Value TensorBuilder::unaryComposite(Unary kind, Value x) {
  using B = Binary;
  using D = ComparisonDirection;
  Type elt = typeOf(x).getElementType();
  // An integer is its own trunc, as in torch.
  if (kind == Unary::Trunc && !isa<FloatType>(elt))
    return x;
  x = convert(x, floatTypeFor(elt));
  // sinh: (expm1(x) - expm1(-x)) / 2 where |x| < 1 (no cancellation for
  // tiny x), else sign(x) (exp(|x| - ln 2) - exp(-|x| - ln 2)) (finite up
  // to torch's own overflow, not exp's). Each branch reads x only where it
  // is taken, so the other's exp cannot overflow into a NaN gradient.
  auto preciseSinh = [&](Value v) {
    Value size = unary(Unary::Abs, v);
    Value small = compare(D::LT, size, real(1.0));
    Value near = where(small, v, real(0.0));
    Value up = unary(Unary::Expm1, near);
    Value down = unary(Unary::Expm1, unary(Unary::Neg, near));
    Value smallValue = binary(B::Mul, binary(B::Sub, up, down), real(0.5));
    Value far = where(small, real(1.0), size);
    Value big = unary(Unary::Exp, binary(B::Sub, far, real(std::log(2.0))));
    Value tiny = unary(Unary::Exp, binary(B::Sub, unary(Unary::Neg, far),
                                          real(std::log(2.0))));
    Value sign = unary(Unary::Sign, v);
    Value largeValue = binary(B::Mul, sign, binary(B::Sub, big, tiny));
    return where(small, smallValue, largeValue);
  };
  switch (kind) {
  case Unary::Exp2:
    return unary(Unary::Exp, binary(B::Mul, x, real(std::log(2.0))));
  case Unary::Log2:
  case Unary::Log10: {
    double ln = std::log(kind == Unary::Log10 ? 10.0 : 2.0);
    return binary(B::Div, unary(Unary::Log, x), real(ln));
  }
  case Unary::Sinh:
    return preciseSinh(x);
  case Unary::Cosh: {
    // cosh(x) = 1 + 2 sinh(x / 2)^2: value and gradient from the precise
    // sinh.
    Value half = preciseSinh(binary(B::Mul, x, real(0.5)));
    Value twice = binary(B::Mul, binary(B::Mul, half, half), real(2.0));
    return binary(B::Add, twice, real(1.0));
  }
  case Unary::Tan: {
    Value sin = unary(Unary::Sin, x);
    Value cos = unary(Unary::Cos, x);
    return binary(B::Div, sin, cos);
  }
  case Unary::Trunc:
  case Unary::Frac: {
    // Toward zero: ceil below zero, floor above (no gradient, as torch;
    // frac's is 1).
    Value negative = compare(D::LT, x, Scalar::ofInt(0));
    Value up = unary(Unary::Ceil, x);
    Value down = unary(Unary::Floor, x);
    Value whole = where(negative, up, down);
    return kind == Unary::Trunc ? whole : binary(B::Sub, x, whole);
  }
  case Unary::Atan:
    return atan2(x, Scalar::ofFloat(1.0));
  case Unary::Asin:
  case Unary::Acos: {
    // The angle of (sqrt(1 - x^2), x), with 1 - x^2 as (1 - x)(1 + x):
    // exact near +-1, NaN outside [-1, 1] (sqrt of a negative), as torch.
    Value one = full(typeOf(x).getShape(), typeOf(x).getElementType(),
                     Scalar::ofFloat(1.0));
    Value below = binary(B::Sub, one, x);
    Value above = binary(B::Add, x, real(1.0));
    Value rest = unary(Unary::Sqrt, binary(B::Mul, below, above));
    return kind == Unary::Asin ? atan2(x, rest) : atan2(rest, x);
  }
  case Unary::Asinh: {
    // sign(x) log1p(|x| + x^2 / (1 + sqrt(1 + x^2))): no cancellation for
    // small or negative x. Past `large` (where 1 / x^2 is below the type's
    // epsilon, and before x^2 overflows) it is sign(x) (log(|x|) + ln 2).
    // |x| by a select, not abs: abs's gradient at 0 is 0, asinh's is 1.
    double large = largeArgument(typeOf(x).getElementType());
    Value negative = compare(D::LT, x, Scalar::ofInt(0));
    Value size = where(negative, unary(Unary::Neg, x), x);
    Value big = compare(D::GT, size, real(large));
    Value small = where(big, real(1.0), size);
    Value square = binary(B::Mul, small, small);
    Value root = unary(Unary::Sqrt, binary(B::Add, square, real(1.0)));
    Value near = unary(Unary::Log1p,
                       binary(B::Add, small,
                              binary(B::Div, square,
                                     binary(B::Add, root, real(1.0)))));
    Value far = binary(B::Add, unary(Unary::Log, where(big, size, real(1.0))),
                       real(std::log(2.0)));
    Value magnitude = where(big, far, near);
    return where(negative, unary(Unary::Neg, magnitude), magnitude);
  }
  case Unary::Acosh: {
    // log1p(t + sqrt(t (t + 2))) with t = x - 1: exact near 1; NaN below
    // 1, as torch. Past `large`, log(x) + ln 2, as t (t + 2) would
    // overflow.
    double large = largeArgument(typeOf(x).getElementType());
    Value big = compare(D::GT, x, real(large));
    Value t = binary(B::Sub, where(big, real(1.0), x), real(1.0));
    Value root = unary(Unary::Sqrt,
                       binary(B::Mul, t, binary(B::Add, t, real(2.0))));
    Value near = unary(Unary::Log1p, binary(B::Add, t, root));
    Value far = binary(B::Add, unary(Unary::Log, where(big, x, real(1.0))),
                       real(std::log(2.0)));
    return where(big, far, near);
  }
  case Unary::Atanh: {
    // log1p(2x / (1 - x)) / 2: +-inf at +-1, NaN outside, as torch.
    Value twice = binary(B::Mul, x, real(2.0));
    Value rest = binary(B::Sub, real(1.0), x);
    Value ratio = binary(B::Div, twice, rest);
    return binary(B::Mul, unary(Unary::Log1p, ratio), real(0.5));
  }
  default:
    return error("unhandled unary op");
  }
}

Value TensorBuilder::atan2(const Operand &a, const Operand &b) {
  Type element = floatTypeFor(promote(a, b));
  auto [lhs, rhs] = broadcastOperands(a, b, element);
  if (!lhs || !rhs)
    return Value();
  return Atan2Op::create(this->b, loc, lhs, rhs);
}

Value TensorBuilder::fmod(const Operand &a, const Operand &b) {
  Type element = floatTypeFor(promote(a, b));
  auto [lhs, rhs] = broadcastOperands(a, b, element);
  if (!lhs || !rhs)
    return Value();
  return RemOp::create(this->b, loc, lhs, rhs);
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
