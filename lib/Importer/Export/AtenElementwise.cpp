//===- AtenElementwise.cpp - Core ATen elementwise operators --------------===//
//
// The operators of one family (elementwise arithmetic, comparisons,
// selections, copies and conversions): a handler each, named in the table
// at the end of the file, which importNode dispatches on
// (ExportImporter.cpp).
//
//===----------------------------------------------------------------------===//

#include "Importer.h"

using namespace mlir;
using namespace mlir::trace;
using namespace mlir::trace::pt2;

/// neg, abs, exp, log, sin, cos, tanh, sqrt, rsqrt, erf, sigmoid, relu,
/// silu, reciprocal, log1p, expm1, floor, ceil, round, sign, and the
/// builder's formulas: trunc, tan, sinh, cosh, log2, log10, exp2, and the
/// inverse trigonometric and hyperbolic functions.
void Importer::atenUnary(const ex::Node &node, StringRef op) {
  using U = TensorBuilder::Unary;
  static const llvm::StringMap<U> unaries = {
      {"neg", U::Neg},       {"abs", U::Abs},         {"exp", U::Exp},
      {"log", U::Log},       {"sin", U::Sin},         {"cos", U::Cos},
      {"tanh", U::Tanh},     {"sqrt", U::Sqrt},       {"rsqrt", U::Rsqrt},
      {"erf", U::Erf},       {"sigmoid", U::Sigmoid}, {"relu", U::Relu},
      {"silu", U::Silu},     {"reciprocal", U::Reciprocal},
      {"log1p", U::Log1p},   {"expm1", U::Expm1},     {"floor", U::Floor},
      {"ceil", U::Ceil},     {"round", U::Round},     {"sign", U::Sign},
      {"trunc", U::Trunc},   {"tan", U::Tan},         {"sinh", U::Sinh},
      {"cosh", U::Cosh},     {"log2", U::Log2},       {"log10", U::Log10},
      {"exp2", U::Exp2},     {"atan", U::Atan},       {"asin", U::Asin},
      {"acos", U::Acos},     {"asinh", U::Asinh},     {"acosh", U::Acosh},
      {"atanh", U::Atanh}};
  return setResult(node, tb.unary(unaries.lookup(op), self(node)));
}

/// add.Tensor, add.Scalar, sub.Tensor, sub.Scalar, rsub.Tensor,
/// rsub.Scalar: self + alpha * other (rsub: other - alpha * self).
void Importer::atenAdd(const ex::Node &node, StringRef op) {
  using B = TensorBuilder::Binary;
  Operand lhs = operandArg(node, "self");
  Operand rhs = operandArg(node, "other");
  Scalar alpha = scalarArg(node, "alpha", Scalar::ofInt(1));
  Operand &scaled = op == "rsub" ? lhs : rhs;
  if (alpha.asDouble() != 1.0) {
    if (scaled.scalar)
      scaled = Operand(scaled.scalar->kind != Scalar::Kind::Float &&
                               alpha.kind != Scalar::Kind::Float
                           ? Scalar::ofInt(scaled.scalar->i * alpha.i)
                           : Scalar::ofFloat(scaled.scalar->asDouble() *
                                             alpha.asDouble()));
    else
      scaled = Operand(check(tb.binary(B::Mul, scaled, alpha)));
  }
  if (!lhs.tensor && !rhs.tensor)
    fail(op + " of two numbers");
  if (op == "rsub")
    return setResult(node, tb.binary(B::Sub, rhs, lhs));
  return setResult(node, tb.binary(op == "add" ? B::Add : B::Sub, lhs, rhs));
}

/// mul, div (without rounding mode), maximum, minimum.
void Importer::atenMul(const ex::Node &node, StringRef op) {
  using B = TensorBuilder::Binary;
  B kind = op == "mul"       ? B::Mul
           : op == "maximum" ? B::Max
           : op == "minimum" ? B::Min
                             : B::Div;
  Operand lhs = operandArg(node, "self");
  Operand rhs = operandArg(node, "other");
  std::optional<std::string> mode;
  if (op == "div")
    mode = stringArg(node, "rounding_mode");
  if (!mode)
    return setResult(node, tb.binary(kind, lhs, rhs));
  if (*mode != "trunc" && *mode != "floor")
    fail(node.get_target() + ": rounding_mode='" + *mode +
         "' is none of 'trunc', 'floor'");
  // The quotient rounded, in the operands' promoted type; integers divide
  // in f64 (exact below 2^53) and convert back. No gradient, as torch.
  Type element = tb.promote(lhs, rhs);
  auto inF64 = [&](Operand &o) {
    if (o.tensor && !isa<FloatType>(element))
      o = Operand(tb.convert(o.tensor, builder.getF64Type()));
  };
  inF64(lhs);
  inF64(rhs);
  Value quotient = check(tb.binary(B::Div, lhs, rhs));
  using U = TensorBuilder::Unary;
  if (*mode == "trunc") {
    Value rounded = tb.unary(U::Trunc, quotient);
    return setResult(node, tb.convert(check(tb.stopGradient(rounded)),
                                      element));
  }
  return setResult(node, tb.convert(check(floorDivide(lhs, rhs, quotient)),
                                    element));
}

/// a // b as PyTorch's div_floor_floating: the exact multiple a - fmod(a,
/// b) divided by b, less one where fmod and b differ in sign, rounded to
/// the nearest integer; a / b where b is 0, and a zero of a / b's sign
/// where the quotient is 0. floor(a / b) would round a / b first, so
/// 5.0 // 0.1 would give 50 where torch gives 49.
Value Importer::floorDivide(const Operand &a, const Operand &b,
                            Value quotient) {
  using B = TensorBuilder::Binary;
  using U = TensorBuilder::Unary;
  using D = ComparisonDirection;
  Type element = TensorBuilder::typeOf(quotient).getElementType();
  ArrayRef<int64_t> shape = TensorBuilder::typeOf(quotient).getShape();
  Value x = check(tb.materialize(a, shape, element));
  Value y = check(tb.materialize(b, shape, element));
  Value mod = check(tb.fmod(x, y));
  Value whole = tb.binary(B::Div, tb.binary(B::Sub, x, mod), y);
  Value modNonzero = tb.compare(D::NE, mod, Scalar::ofInt(0));
  Value modNegative = tb.compare(D::LT, mod, Scalar::ofInt(0));
  Value divisorNegative = tb.compare(D::LT, y, Scalar::ofInt(0));
  Value differ = tb.compare(D::NE, modNegative, divisorNegative);
  Value adjust = tb.where(modNonzero, differ, modNonzero);
  whole = tb.where(adjust, tb.binary(B::Sub, whole, Scalar::ofInt(1)), whole);
  Value down = tb.unary(U::Floor, whole);
  Value pastHalf = tb.compare(D::GT, tb.binary(B::Sub, whole, down),
                              Scalar::ofFloat(0.5));
  Value rounded =
      tb.where(pastHalf, tb.binary(B::Add, down, Scalar::ofInt(1)), down);
  Value signedZero = tb.binary(B::Mul, quotient, Scalar::ofFloat(0.0));
  Value wholeZero = tb.compare(D::EQ, whole, Scalar::ofInt(0));
  rounded = tb.where(wholeZero, signedZero, rounded);
  Value divisorZero = tb.compare(D::EQ, y, Scalar::ofInt(0));
  return tb.stopGradient(tb.where(divisorZero, quotient, rounded));
}

/// atan2.default.
void Importer::atenAtan2(const ex::Node &node, StringRef op) {
  return setResult(node, tb.atan2(operandArg(node, "self"),
                                  operandArg(node, "other")));
}

/// fmod and remainder (.Tensor, .Scalar): fmod is trace.rem, the sign of
/// a; remainder adds b where that and b differ in sign (the sign of b), as
/// PyTorch's CPU kernel. Integers compute in f64 and convert back. The
/// gradients are torch's: 1 for a, -trunc(a / b) (fmod) or -floor(a / b)
/// (remainder) for b.
void Importer::atenRemainder(const ex::Node &node, StringRef op) {
  using B = TensorBuilder::Binary;
  using D = ComparisonDirection;
  Operand a = operandArg(node, "self");
  Operand b = operandArg(node, "other");
  Type element = tb.promote(a, b);
  Type compute = isa<FloatType>(element) ? element : builder.getF64Type();
  auto tensorOf = [&](const Operand &o, const Operand &other) {
    Value like = o.tensor ? o.tensor : other.tensor;
    return check(tb.materialize(o, TensorBuilder::typeOf(like).getShape(),
                                compute));
  };
  Value x = tensorOf(a, b), y = tensorOf(b, a);
  Value mod = check(tb.fmod(x, y));
  if (op == "remainder") {
    Value nonzero = tb.compare(D::NE, mod, Scalar::ofInt(0));
    Value modNegative = tb.compare(D::LT, mod, Scalar::ofInt(0));
    Value divisorNegative = tb.compare(D::LT, y, Scalar::ofInt(0));
    Value differ = tb.compare(D::NE, modNegative, divisorNegative);
    Value adjust = tb.where(nonzero, differ, nonzero);
    mod = check(tb.where(adjust, tb.binary(B::Add, mod, y), mod));
  }
  return setResult(node, tb.convert(mod, element));
}

/// elu.default (alpha, scale, input_scale), leaky_relu.default.
void Importer::atenActivation(const ex::Node &node, StringRef op) {
  Value x = self(node);
  if (op == "leaky_relu")
    return setResult(node, tb.leakyRelu(x, scalarArg(node, "negative_slope",
                                                     Scalar::ofFloat(0.01))));
  return setResult(node,
                   tb.elu(x, scalarArg(node, "alpha", Scalar::ofInt(1)),
                          scalarArg(node, "scale", Scalar::ofInt(1)),
                          scalarArg(node, "input_scale", Scalar::ofInt(1))));
}

/// isnan (x != x), isinf (|x| == inf); integers are neither.
void Importer::atenIsSpecial(const ex::Node &node, StringRef op) {
  Value x = self(node);
  RankedTensorType type = TensorBuilder::typeOf(x);
  if (!isa<FloatType>(type.getElementType()))
    return setResult(node, tb.full(type.getShape(), builder.getI1Type(),
                                   Scalar::ofBool(false)));
  if (op == "isnan")
    return setResult(node, tb.compare(ComparisonDirection::NE, x, x));
  return setResult(node, tb.compare(ComparisonDirection::EQ,
                                    tb.unary(TensorBuilder::Unary::Abs, x),
                                    Scalar::ofFloat(INFINITY)));
}

/// fill.Scalar: self's shape and dtype, every element the value.
void Importer::atenFill(const ex::Node &node, StringRef op) {
  RankedTensorType type = TensorBuilder::typeOf(self(node));
  return setResult(node, tb.full(type.getShape(), type.getElementType(),
                                 scalarArg(node, "value")));
}

/// copy.default: src broadcast to self's shape, in self's dtype (the
/// functional form of self.copy_(src)).
void Importer::atenCopyFrom(const ex::Node &node, StringRef op) {
  RankedTensorType type = TensorBuilder::typeOf(self(node));
  Value src = tb.convert(tensorArg(node, "src"), type.getElementType());
  return setResult(node, tb.broadcastTo(src, type.getShape()));
}

/// pow.Tensor_Scalar, pow.Tensor_Tensor, pow.Scalar.
void Importer::atenPow(const ex::Node &node, StringRef op) {
  using B = TensorBuilder::Binary;
  Operand base = operandArg(node, "self");
  Operand exponent = operandArg(node, "exponent");
  return setResult(node, tb.binary(B::Pow, base, exponent));
}

/// eq, ne, lt, le, gt, ge (.Scalar and .Tensor).
void Importer::atenCompare(const ex::Node &node, StringRef op) {
  static const llvm::StringMap<ComparisonDirection> compares = {
      {"eq", ComparisonDirection::EQ}, {"ne", ComparisonDirection::NE},
      {"lt", ComparisonDirection::LT}, {"le", ComparisonDirection::LE},
      {"gt", ComparisonDirection::GT}, {"ge", ComparisonDirection::GE}};
  Operand lhs = operandArg(node, "self");
  Operand rhs = operandArg(node, "other");
  return setResult(node, tb.compare(compares.lookup(op), lhs, rhs));
}

/// where.self.
void Importer::atenWhere(const ex::Node &node, StringRef op) {
  Value condition = tensorArg(node, "condition");
  Operand lhs = operandArg(node, "self");
  Operand rhs = operandArg(node, "other");
  return setResult(node, tb.where(condition, lhs, rhs));
}

/// clamp.default (number bounds), clamp.Tensor (tensor bounds).
void Importer::atenClamp(const ex::Node &node, StringRef op) {
  Value x = self(node);
  auto bound = [&](StringRef name) -> std::optional<Operand> {
    const ex::Argument *a = findArg(node, name);
    if (!a || a->tag() == ex::Argument::Tag::AS_NONE)
      return std::nullopt;
    if (a->tag() == ex::Argument::Tag::AS_OPTIONAL_TENSOR &&
        a->get_as_optional_tensor().tag() ==
            ex::OptionalTensorArgument::Tag::AS_NONE)
      return std::nullopt;
    return operandArg(node, name);
  };
  std::optional<Operand> lo = bound("min");
  std::optional<Operand> hi = bound("max");
  if (!lo && !hi)
    fail(node.get_target() + ": at least one of 'min' and 'max' must be "
                             "given");
  return setResult(node, tb.clamp(x, lo, hi));
}

/// clone, alias, lift_fresh_copy: the value itself (trace values are never
/// written in place). detach: the value, through which no gradient flows.
void Importer::atenCopy(const ex::Node &node, StringRef op) {
  Value x = self(node);
  if (op == "detach")
    return setResult(node, tb.stopGradient(x));
  return setResult(node, x);
}

/// _to_copy: a conversion to `dtype` (device, layout and memory format do
/// not exist here).
void Importer::atenToCopy(const ex::Node &node, StringRef op) {
  Value x = self(node);
  std::optional<Type> dtype = dtypeArg(node, "dtype");
  if (!dtype)
    return setResult(node, x);
  return setResult(node, tb.convert(x, *dtype));
}

/// logical_not, logical_and, logical_or, logical_xor: on each operand's
/// truth (x != 0), to bool.
void Importer::atenLogical(const ex::Node &node, StringRef op) {
  auto truth = [&](StringRef name) {
    Value v = tensorArg(node, name);
    if (TensorBuilder::typeOf(v).getElementType().isInteger(1))
      return v;
    return check(tb.compare(ComparisonDirection::NE, v, Scalar::ofInt(0)));
  };
  Value a = truth("self");
  if (op == "logical_not")
    return setResult(node, tb.where(a, Scalar::ofBool(false),
                                    Scalar::ofBool(true)));
  Value b = truth("other");
  if (op == "logical_and")
    return setResult(node, tb.where(a, b, Scalar::ofBool(false)));
  if (op == "logical_xor") {
    Value notB = tb.where(b, Scalar::ofBool(false), Scalar::ofBool(true));
    return setResult(node, tb.where(a, notB, b));
  }
  return setResult(node, tb.where(a, Scalar::ofBool(true), b));
}

/// bitwise_not, bitwise_and, bitwise_or, bitwise_xor (.Tensor, .Scalar) of
/// bool tensors: the logical operations. Integer bits have no primitive.
void Importer::atenBitwise(const ex::Node &node, StringRef op) {
  auto boolean = [&](Value v) {
    if (!TensorBuilder::typeOf(v).getElementType().isInteger(1))
      fail(node.get_target() + ": only bool tensors are supported (integer "
                               "bitwise operations have no primitive here)");
    return v;
  };
  Value a = boolean(self(node));
  Value notA = tb.where(a, Scalar::ofBool(false), Scalar::ofBool(true));
  if (op == "bitwise_not")
    return setResult(node, notA);
  Operand other = operandArg(node, "other");
  // A bool tensor and an int scalar promote to int64 in torch: integer
  // bits again.
  if (other.scalar && other.scalar->kind != Scalar::Kind::Bool)
    fail(node.get_target() + ": only a bool scalar is supported with a bool "
                             "tensor (an integer one makes it an integer "
                             "bitwise operation, which has no primitive "
                             "here)");
  Value b = other.tensor
                ? boolean(other.tensor)
                : tb.full(TensorBuilder::typeOf(a).getShape(),
                          builder.getI1Type(),
                          *other.scalar);
  if (op == "bitwise_and")
    return setResult(node, tb.where(a, b, Scalar::ofBool(false)));
  if (op == "bitwise_or")
    return setResult(node, tb.where(a, Scalar::ofBool(true), b));
  Value notB = tb.where(b, Scalar::ofBool(false), Scalar::ofBool(true));
  return setResult(node, tb.where(a, notB, b));
}

ArrayRef<Importer::Entry> Importer::elementwiseOps() {
  static const Entry entries[] = {
      {"torch.ops.aten.logical_not.default", &Importer::atenLogical},
      {"torch.ops.aten.logical_and.default", &Importer::atenLogical},
      {"torch.ops.aten.logical_or.default", &Importer::atenLogical},
      {"torch.ops.aten.neg.default", &Importer::atenUnary},
      {"torch.ops.aten.abs.default", &Importer::atenUnary},
      {"torch.ops.aten.exp.default", &Importer::atenUnary},
      {"torch.ops.aten.log.default", &Importer::atenUnary},
      {"torch.ops.aten.sin.default", &Importer::atenUnary},
      {"torch.ops.aten.cos.default", &Importer::atenUnary},
      {"torch.ops.aten.tanh.default", &Importer::atenUnary},
      {"torch.ops.aten.sqrt.default", &Importer::atenUnary},
      {"torch.ops.aten.rsqrt.default", &Importer::atenUnary},
      {"torch.ops.aten.erf.default", &Importer::atenUnary},
      {"torch.ops.aten.sigmoid.default", &Importer::atenUnary},
      {"torch.ops.aten.relu.default", &Importer::atenUnary},
      {"torch.ops.aten.silu.default", &Importer::atenUnary},
      {"torch.ops.aten.reciprocal.default", &Importer::atenUnary},
      {"torch.ops.aten.log1p.default", &Importer::atenUnary},
      {"torch.ops.aten.expm1.default", &Importer::atenUnary},
      {"torch.ops.aten.floor.default", &Importer::atenUnary},
      {"torch.ops.aten.ceil.default", &Importer::atenUnary},
      {"torch.ops.aten.round.default", &Importer::atenUnary},
      {"torch.ops.aten.sign.default", &Importer::atenUnary},
      {"torch.ops.aten.trunc.default", &Importer::atenUnary},
      {"torch.ops.aten.tan.default", &Importer::atenUnary},
      {"torch.ops.aten.sinh.default", &Importer::atenUnary},
      {"torch.ops.aten.cosh.default", &Importer::atenUnary},
      {"torch.ops.aten.log2.default", &Importer::atenUnary},
      {"torch.ops.aten.log10.default", &Importer::atenUnary},
      {"torch.ops.aten.exp2.default", &Importer::atenUnary},
      {"torch.ops.aten.atan.default", &Importer::atenUnary},
      {"torch.ops.aten.asin.default", &Importer::atenUnary},
      {"torch.ops.aten.acos.default", &Importer::atenUnary},
      {"torch.ops.aten.asinh.default", &Importer::atenUnary},
      {"torch.ops.aten.acosh.default", &Importer::atenUnary},
      {"torch.ops.aten.atanh.default", &Importer::atenUnary},
      {"torch.ops.aten.atan2.default", &Importer::atenAtan2},
      {"torch.ops.aten.elu.default", &Importer::atenActivation},
      {"torch.ops.aten.leaky_relu.default", &Importer::atenActivation},
      {"torch.ops.aten.isnan.default", &Importer::atenIsSpecial},
      {"torch.ops.aten.isinf.default", &Importer::atenIsSpecial},
      {"torch.ops.aten.logical_xor.default", &Importer::atenLogical},
      {"torch.ops.aten.bitwise_not.default", &Importer::atenBitwise},
      {"torch.ops.aten.bitwise_and.Tensor", &Importer::atenBitwise},
      {"torch.ops.aten.bitwise_and.Scalar", &Importer::atenBitwise},
      {"torch.ops.aten.bitwise_or.Tensor", &Importer::atenBitwise},
      {"torch.ops.aten.bitwise_or.Scalar", &Importer::atenBitwise},
      {"torch.ops.aten.bitwise_xor.Tensor", &Importer::atenBitwise},
      {"torch.ops.aten.bitwise_xor.Scalar", &Importer::atenBitwise},
      {"torch.ops.aten.fmod.Tensor", &Importer::atenRemainder},
      {"torch.ops.aten.fmod.Scalar", &Importer::atenRemainder},
      {"torch.ops.aten.remainder.Tensor", &Importer::atenRemainder},
      {"torch.ops.aten.remainder.Scalar", &Importer::atenRemainder},
      {"torch.ops.aten.div.Scalar_mode", &Importer::atenMul},
      {"torch.ops.aten.fill.Scalar", &Importer::atenFill},
      {"torch.ops.aten.copy.default", &Importer::atenCopyFrom},
      {"torch.ops.aten.add.Tensor", &Importer::atenAdd},
      {"torch.ops.aten.add.Scalar", &Importer::atenAdd},
      {"torch.ops.aten.sub.Tensor", &Importer::atenAdd},
      {"torch.ops.aten.sub.Scalar", &Importer::atenAdd},
      {"torch.ops.aten.rsub.Tensor", &Importer::atenAdd},
      {"torch.ops.aten.rsub.Scalar", &Importer::atenAdd},
      {"torch.ops.aten.mul.Tensor", &Importer::atenMul},
      {"torch.ops.aten.mul.Scalar", &Importer::atenMul},
      {"torch.ops.aten.div.Tensor", &Importer::atenMul},
      {"torch.ops.aten.div.Scalar", &Importer::atenMul},
      {"torch.ops.aten.div.Tensor_mode", &Importer::atenMul},
      {"torch.ops.aten.maximum.default", &Importer::atenMul},
      {"torch.ops.aten.minimum.default", &Importer::atenMul},
      {"torch.ops.aten.pow.Tensor_Scalar", &Importer::atenPow},
      {"torch.ops.aten.pow.Tensor_Tensor", &Importer::atenPow},
      {"torch.ops.aten.pow.Scalar", &Importer::atenPow},
      {"torch.ops.aten.eq.Scalar", &Importer::atenCompare},
      {"torch.ops.aten.eq.Tensor", &Importer::atenCompare},
      {"torch.ops.aten.ne.Scalar", &Importer::atenCompare},
      {"torch.ops.aten.ne.Tensor", &Importer::atenCompare},
      {"torch.ops.aten.lt.Scalar", &Importer::atenCompare},
      {"torch.ops.aten.lt.Tensor", &Importer::atenCompare},
      {"torch.ops.aten.le.Scalar", &Importer::atenCompare},
      {"torch.ops.aten.le.Tensor", &Importer::atenCompare},
      {"torch.ops.aten.gt.Scalar", &Importer::atenCompare},
      {"torch.ops.aten.gt.Tensor", &Importer::atenCompare},
      {"torch.ops.aten.ge.Scalar", &Importer::atenCompare},
      {"torch.ops.aten.ge.Tensor", &Importer::atenCompare},
      {"torch.ops.aten.where.self", &Importer::atenWhere},
      {"torch.ops.aten.clamp.default", &Importer::atenClamp},
      {"torch.ops.aten.clamp.Tensor", &Importer::atenClamp},
      {"torch.ops.aten.clone.default", &Importer::atenCopy},
      {"torch.ops.aten.alias.default", &Importer::atenCopy},
      {"torch.ops.aten.lift_fresh_copy.default", &Importer::atenCopy},
      {"torch.ops.aten.detach.default", &Importer::atenCopy},
      {"torch.ops.aten._to_copy.default", &Importer::atenToCopy},
  };
  return entries;
}
