//===- AtenElementwise.cpp - aten elementwise operators -------------------===//
//
// The aten operators of one family (elementwise and comparison operators,
// conversions): a handler each, named in the table at the end of the file,
// which importAten dispatches on (GraphWalk.cpp).
//
//===----------------------------------------------------------------------===//

#include "Importer.h"

#include "llvm/ADT/StringSwitch.h"

using namespace mlir;
using namespace mlir::trace;
using namespace mlir::trace::ts;

/// aten::neg, aten::abs, aten::exp, aten::log, aten::sin, aten::cos,
/// aten::tanh, aten::sqrt, aten::rsqrt, aten::erf, aten::sigmoid,
/// aten::relu, aten::silu, aten::square, aten::reciprocal, aten::log1p,
/// aten::expm1, aten::floor, aten::ceil, aten::round, aten::sign.
void Importer::atenUnary(jit::Node *node, StringRef name) {
  using U = TensorBuilder::Unary;
  static const llvm::StringMap<U> unaries = {
      {"neg", U::Neg},     {"abs", U::Abs},       {"exp", U::Exp},
      {"log", U::Log},     {"sin", U::Sin},       {"cos", U::Cos},
      {"tanh", U::Tanh},   {"sqrt", U::Sqrt},     {"rsqrt", U::Rsqrt},
      {"erf", U::Erf},     {"sigmoid", U::Sigmoid}, {"relu", U::Relu},
      {"silu", U::Silu},   {"square", U::Square},
      {"reciprocal", U::Reciprocal}, {"log1p", U::Log1p},
      {"expm1", U::Expm1}, {"floor", U::Floor},  {"ceil", U::Ceil},
      {"round", U::Round}, {"sign", U::Sign}};
  // round.decimals rounds to a multiple of 10^-decimals: not this op.
  if (name == "round" && hasInput(node, "decimals") &&
      intArg(node, "decimals") != 0)
    fail("aten::round with decimals != 0 is not supported");
  return setResult(node, tb.unary(unaries.lookup(name), self(node)));
}

/// A float constant operand (a Scalar, no IR).
static Scalar real(double v) { return Scalar::ofFloat(v); }

/// The elementwise ops torch computes with a formula of our primitives:
/// exp2, log2, log10, sinh, cosh, tan, trunc, frac, log_sigmoid, celu,
/// hardshrink, softshrink, threshold, prelu, glu, lerp, addcmul, addcdiv,
/// logaddexp, xlogy (of two tensors). Their gradients are autodiff's of
/// the formula, which agree with torch's derivatives.yaml at the ties (a
/// shrink's bound takes none, log_sigmoid and logaddexp split a tie as
/// torch does).
void Importer::atenComposite(jit::Node *node, StringRef name) {
  using B = TensorBuilder::Binary;
  using U = TensorBuilder::Unary;
  using D = ComparisonDirection;
  auto floatSelf = [&] {
    Value x = self(node);
    return tb.convert(x, tb.floatTypeFor(
                             TensorBuilder::typeOf(x).getElementType()));
  };
  static const llvm::StringMap<U> formulas = {
      {"exp2", U::Exp2},   {"log2", U::Log2}, {"log10", U::Log10},
      {"sinh", U::Sinh},   {"cosh", U::Cosh}, {"tan", U::Tan},
      {"trunc", U::Trunc}, {"fix", U::Trunc}, {"frac", U::Frac}};
  if (auto it = formulas.find(name); it != formulas.end())
    return setResult(node, tb.unary(it->second, self(node)));
  if (name == "log_sigmoid") {
    // min(x, 0) - log1p(exp(-|x|)): no overflow on either side.
    Value x = floatSelf();
    Value low = tb.binary(B::Min, x, real(0.0));
    Value tail = tb.unary(U::Exp, tb.unary(U::Neg, tb.unary(U::Abs, x)));
    return setResult(node, tb.binary(B::Sub, low, tb.unary(U::Log1p, tail)));
  }
  if (name == "celu") {
    Scalar alpha = scalarOf(constArg(node, "alpha"));
    if (alpha.asDouble() == 0.0)
      fail("aten::celu: alpha must not be 0");
    return setResult(node, tb.elu(self(node), alpha, real(1.0),
                                  real(1.0 / alpha.asDouble())));
  }
  if (name == "hardshrink" || name == "softshrink") {
    Value x = floatSelf();
    double lambda = scalarOf(constArg(node, "lambd")).asDouble();
    if (name == "softshrink") {
      // x - clamp(x, -l, l): 0 inside (bounds included, gradient 0 there),
      // x -+ l outside, NaN stays NaN, as torch.
      Value clamped =
          tb.clamp(x, Operand(real(-lambda)), Operand(real(lambda)),
                   /*boundsPass=*/true);
      return setResult(node, tb.binary(B::Sub, x, clamped));
    }
    // 0 on [-l, l], x elsewhere (NaN included).
    Value atLeast = tb.compare(D::GE, x, real(-lambda));
    Value atMost = tb.compare(D::LE, x, real(lambda));
    Value inside = tb.where(atLeast, atMost, atLeast);
    return setResult(node, tb.where(inside, real(0.0), x));
  }
  if (name == "threshold") {
    // x <= threshold ? value : x, so NaN stays NaN.
    Value x = self(node);
    Value below = tb.compare(D::LE, x, operandArg(node, "threshold"));
    return setResult(node, tb.where(below, operandArg(node, "value"), x));
  }
  if (name == "prelu") {
    // One slope, or one per channel (dim 1).
    Value x = floatSelf();
    Value w = tensorArg(node, "weight");
    ArrayRef<int64_t> shape = TensorBuilder::typeOf(x).getShape();
    int64_t slopes = TensorBuilder::typeOf(w).getNumElements();
    if (slopes != 1 && (shape.size() < 2 || shape[1] != slopes))
      fail("aten::prelu: " + Twine(slopes) + " slopes for an input of " +
           Twine(shape.size() < 2 ? 1 : shape[1]) + " channels");
    SmallVector<int64_t> along(std::max<size_t>(shape.size(), 1) - 1, 1);
    if (!along.empty())
      along[0] = slopes;
    Value slope = tb.reshape(w, slopes == 1 ? ArrayRef<int64_t>{} : along);
    Value positive = tb.compare(D::GT, x, real(0.0));
    Value scaled = tb.binary(B::Mul, x, slope);
    return setResult(node, tb.where(positive, x, scaled));
  }
  if (name == "glu") {
    Value x = floatSelf();
    auto [nd, size] = dimArg(node, x);
    if (size % 2)
      fail("aten::glu: dim " + Twine(nd) + " has odd size " + Twine(size));
    auto halves = tb.split(x, {size / 2, size / 2}, nd);
    if (!halves)
      throw ImportError();
    Value gate = tb.unary(U::Sigmoid, (*halves)[1]);
    return setResult(node, tb.binary(B::Mul, (*halves)[0], gate));
  }
  if (name == "lerp") {
    // a + w * (b - a).
    Value a = self(node);
    Value gap = tb.binary(B::Sub, tensorArg(node, "end"), a);
    Value step = tb.binary(B::Mul, gap, operandArg(node, "weight"));
    return setResult(node, tb.binary(B::Add, a, step));
  }
  if (name == "addcmul" || name == "addcdiv") {
    Value t1 = tensorArg(node, "tensor1"), t2 = tensorArg(node, "tensor2");
    Value term = tb.binary(name == "addcmul" ? B::Mul : B::Div, t1, t2);
    Scalar value = scalarOf(constArg(node, "value"));
    if (value.asDouble() != 1.0)
      term = tb.binary(B::Mul, term, value);
    return setResult(node, tb.binary(B::Add, self(node), term));
  }
  if (name == "logaddexp") {
    // max(a, b) + log1p(exp(-|a - b|)), so logaddexp(-inf, -inf) = -inf.
    Value a = floatSelf();
    Value b = tensorArg(node, "other");
    Value top = tb.binary(B::Max, a, b);
    // a == b (two equal infinities too: their difference is NaN) has no
    // gap.
    Value same = tb.compare(D::EQ, a, b);
    Value apart = tb.unary(U::Abs, tb.binary(B::Sub, a, b));
    Value gap = tb.where(same, real(0.0), apart);
    Value tail = tb.unary(U::Exp, tb.unary(U::Neg, gap));
    return setResult(node, tb.binary(B::Add, top, tb.unary(U::Log1p, tail)));
  }
  // xlogy: x * log(y), with log(y) taken as 0 where x == 0 and y <= 0 or
  // y == inf (so 0, not NaN; a NaN y stays NaN). The gradient of x at 0 is
  // then log(y), as torch's.
  Value x = floatSelf();
  Value y = tensorArg(node, "other");
  Value zero = tb.compare(D::EQ, x, real(0.0));
  Value nonPositive = tb.compare(D::LE, y, real(0.0));
  Value infinite = tb.compare(D::EQ, y, real(INFINITY));
  Value undefined = tb.where(nonPositive, nonPositive, infinite);
  Value masked = tb.where(zero, undefined, zero);
  Value logY = tb.where(masked, real(0.0), tb.unary(U::Log, y));
  return setResult(node, tb.binary(B::Mul, x, logY));
}

/// aten::eq, aten::ne, aten::lt, aten::le, aten::gt, aten::ge.
void Importer::atenCompare(jit::Node *node, StringRef name) {
  static const llvm::StringMap<ComparisonDirection> compares = {
      {"eq", ComparisonDirection::EQ}, {"ne", ComparisonDirection::NE},
      {"lt", ComparisonDirection::LT}, {"le", ComparisonDirection::LE},
      {"gt", ComparisonDirection::GT}, {"ge", ComparisonDirection::GE}};
  Operand self = operandArg(node, "self");
  Operand other = operandArg(node, "other");
  return setResult(node, tb.compare(compares.lookup(name), self, other));
}

/// aten::add, aten::sub, aten::rsub.
void Importer::atenAdd(jit::Node *node, StringRef name) {
  using B = TensorBuilder::Binary;
  Operand self = operandArg(node, "self");
  Operand other = operandArg(node, "other");
  if (hasInput(node, "alpha")) {
    Scalar alpha = scalarOf(constArg(node, "alpha"));
    if (alpha.asDouble() != 1.0) {
      if (other.scalar && name != "rsub")
        other = Operand(
            other.scalar->kind != Scalar::Kind::Float &&
                    alpha.kind != Scalar::Kind::Float
                ? Scalar::ofInt(other.scalar->i * alpha.i)
                : Scalar::ofFloat(other.scalar->asDouble() *
                                  alpha.asDouble()));
      else if (name == "rsub")
        self = Operand(check(tb.binary(B::Mul, self, alpha)));
      else
        other = Operand(check(tb.binary(B::Mul, other, alpha)));
    }
  }
  if (!self.tensor && !other.tensor)
    fail("aten::" + name + " of two numbers");
  if (name == "rsub")
    return setResult(node, tb.binary(B::Sub, other, self));
  return setResult(node,
                   tb.binary(name == "add" ? B::Add : B::Sub, self, other));
}

/// aten::mul, aten::div, aten::maximum, aten::minimum, aten::true_divide.
void Importer::atenMul(jit::Node *node, StringRef name) {
  using B = TensorBuilder::Binary;
  B kind = name == "mul"       ? B::Mul
           : name == "maximum" ? B::Max
           : name == "minimum" ? B::Min
                               : B::Div;
  if (name == "div" && hasInput(node, "rounding_mode")) {
    c10::IValue mode = constArg(node, "rounding_mode");
    if (!mode.isNone())
      fail("aten::div with rounding_mode='" + mode.toStringRef() +
           "' on tensors is not supported");
  }
  Operand self = operandArg(node, "self");
  Operand other = operandArg(node, "other");
  return setResult(node, tb.binary(kind, self, other));
}

/// aten::pow.
void Importer::atenPow(jit::Node *node, StringRef name) {
  using B = TensorBuilder::Binary;
  Operand base = hasInput(node, "self")
                     ? operandArg(node, "self")
                     : Operand(scalarOf(constArg(node, "self")));
  return setResult(node, tb.binary(B::Pow, base, operandArg(node, "exponent")));
}

/// aten::masked_fill.
void Importer::atenMaskedFill(jit::Node *node, StringRef name) {
  Value v = self(node);
  Operand fill = operandArg(node, "value");
  // torch keeps self's dtype.
  Type elt = TensorBuilder::typeOf(v).getElementType();
  Value filler = fill.scalar
                     ? tb.full({}, elt, *fill.scalar)
                     : tb.convert(fill.tensor, elt);
  return setResult(node, tb.where(tensorArg(node, "mask"), filler, v));
}

/// aten::where.
void Importer::atenWhere(jit::Node *node, StringRef name) {
  Value condition = tensorArg(node, "condition");
  Operand self = operandArg(node, "self");
  Operand other = operandArg(node, "other");
  return setResult(node, tb.where(condition, self, other));
}

/// aten::tril, aten::triu.
void Importer::atenTril(jit::Node *node, StringRef name) {
  Value v = self(node);
  return setResult(node,
                   tb.triangle(v, intArg(node, "diagonal"), name == "tril"));
}

/// aten::to, aten::type_as, aten::float, aten::double, aten::half,
/// aten::long, aten::bool, aten::int.
void Importer::atenTo(jit::Node *node, StringRef name) {
  Value v = self(node);
  std::optional<Type> dt;
  if (name == "type_as")
    dt = TensorBuilder::typeOf(tensorArg(node, "other")).getElementType();
  else if (name == "to" && hasInput(node, "other"))
    dt = TensorBuilder::typeOf(tensorArg(node, "other")).getElementType();
  else if (name == "to")
    dt = dtypeArg(node, "dtype");
  else
    dt = llvm::StringSwitch<std::optional<Type>>(name)
             .Case("float", builder.getF32Type())
             .Case("double", builder.getF64Type())
             .Case("half", builder.getF16Type())
             .Case("long", builder.getI64Type())
             .Case("int", builder.getI32Type())
             .Case("bool", builder.getI1Type())
             .Default(std::nullopt);
  return setResult(node, dt ? tb.convert(v, *dt) : v);
}

/// aten::clamp, aten::clip (Scalar or Tensor bounds, either may be None),
/// aten::clamp_min, aten::clamp_max.
void Importer::atenClamp(jit::Node *node, StringRef name) {
  Value v = self(node);
  std::optional<Operand> lo, hi;
  if (name != "clamp_max")
    lo = optOperandArg(node, "min");
  if (name != "clamp_min")
    hi = optOperandArg(node, "max");
  return setResult(node, tb.clamp(v, lo, hi));
}

ArrayRef<Importer::AtenEntry> Importer::elementwiseAtenOps() {
  static const AtenEntry entries[] = {
      {"neg", &Importer::atenUnary},
      {"abs", &Importer::atenUnary},
      {"exp", &Importer::atenUnary},
      {"log", &Importer::atenUnary},
      {"sin", &Importer::atenUnary},
      {"cos", &Importer::atenUnary},
      {"tanh", &Importer::atenUnary},
      {"sqrt", &Importer::atenUnary},
      {"rsqrt", &Importer::atenUnary},
      {"erf", &Importer::atenUnary},
      {"sigmoid", &Importer::atenUnary},
      {"relu", &Importer::atenUnary},
      {"silu", &Importer::atenUnary},
      {"square", &Importer::atenUnary},
      {"reciprocal", &Importer::atenUnary},
      {"log1p", &Importer::atenUnary},
      {"expm1", &Importer::atenUnary},
      {"floor", &Importer::atenUnary},
      {"ceil", &Importer::atenUnary},
      {"round", &Importer::atenUnary},
      {"sign", &Importer::atenUnary},
      {"exp2", &Importer::atenComposite},
      {"log2", &Importer::atenComposite},
      {"log10", &Importer::atenComposite},
      {"sinh", &Importer::atenComposite},
      {"cosh", &Importer::atenComposite},
      {"tan", &Importer::atenComposite},
      {"trunc", &Importer::atenComposite},
      {"fix", &Importer::atenComposite},
      {"frac", &Importer::atenComposite},
      {"log_sigmoid", &Importer::atenComposite},
      {"celu", &Importer::atenComposite},
      {"hardshrink", &Importer::atenComposite},
      {"softshrink", &Importer::atenComposite},
      {"threshold", &Importer::atenComposite},
      {"prelu", &Importer::atenComposite},
      {"glu", &Importer::atenComposite},
      {"lerp", &Importer::atenComposite},
      {"addcmul", &Importer::atenComposite},
      {"addcdiv", &Importer::atenComposite},
      {"logaddexp", &Importer::atenComposite},
      {"xlogy", &Importer::atenComposite},
      {"clamp", &Importer::atenClamp},
      {"clip", &Importer::atenClamp},
      {"clamp_min", &Importer::atenClamp},
      {"clamp_max", &Importer::atenClamp},
      {"eq", &Importer::atenCompare},
      {"ne", &Importer::atenCompare},
      {"lt", &Importer::atenCompare},
      {"le", &Importer::atenCompare},
      {"gt", &Importer::atenCompare},
      {"ge", &Importer::atenCompare},
      {"add", &Importer::atenAdd},
      {"sub", &Importer::atenAdd},
      {"rsub", &Importer::atenAdd},
      {"mul", &Importer::atenMul},
      {"div", &Importer::atenMul},
      {"maximum", &Importer::atenMul},
      {"minimum", &Importer::atenMul},
      {"true_divide", &Importer::atenMul},
      {"pow", &Importer::atenPow},
      {"masked_fill", &Importer::atenMaskedFill},
      {"where", &Importer::atenWhere},
      {"tril", &Importer::atenTril},
      {"triu", &Importer::atenTril},
      {"to", &Importer::atenTo},
      {"type_as", &Importer::atenTo},
      {"float", &Importer::atenTo},
      {"double", &Importer::atenTo},
      {"half", &Importer::atenTo},
      {"long", &Importer::atenTo},
      {"bool", &Importer::atenTo},
      {"int", &Importer::atenTo},
  };
  return entries;
}
