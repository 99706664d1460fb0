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
/// silu, reciprocal, log1p, expm1, floor, ceil, round, sign.
void Importer::atenUnary(const ex::Node &node, StringRef op) {
  using U = TensorBuilder::Unary;
  static const llvm::StringMap<U> unaries = {
      {"neg", U::Neg},       {"abs", U::Abs},         {"exp", U::Exp},
      {"log", U::Log},       {"sin", U::Sin},         {"cos", U::Cos},
      {"tanh", U::Tanh},     {"sqrt", U::Sqrt},       {"rsqrt", U::Rsqrt},
      {"erf", U::Erf},       {"sigmoid", U::Sigmoid}, {"relu", U::Relu},
      {"silu", U::Silu},     {"reciprocal", U::Reciprocal},
      {"log1p", U::Log1p},   {"expm1", U::Expm1},     {"floor", U::Floor},
      {"ceil", U::Ceil},     {"round", U::Round},     {"sign", U::Sign}};
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
  if (op == "div")
    if (std::optional<std::string> mode = stringArg(node, "rounding_mode"))
      fail(node.get_target() + " with rounding_mode='" + *mode +
           "' is not supported");
  Operand lhs = operandArg(node, "self");
  Operand rhs = operandArg(node, "other");
  return setResult(node, tb.binary(kind, lhs, rhs));
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

/// logical_not, logical_and, logical_or: on each operand's truth (x != 0),
/// to bool.
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
  return setResult(node, tb.where(a, Scalar::ofBool(true), b));
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
