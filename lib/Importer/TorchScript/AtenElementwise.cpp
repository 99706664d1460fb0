//===- AtenElementwise.cpp - aten elementwise operators -------------------===//
//
// The aten operators of one family (elementwise and comparison operators,
// conversions): a handler each, named in the table at the end of the file,
// which importAten dispatches on (TorchScriptImporter.cpp).
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
