//===- Arguments.cpp - a node's arguments ---------------------------------===//
//
// A node names its arguments by their schema names; the handlers read them
// here as trace values (tensors, operands) or as numbers known at compile
// time (ints, floats, bools, lists, dtypes). An argument that must be known
// at compile time and depends on tensor data is an error at the node's
// location naming the argument.
//
//===----------------------------------------------------------------------===//

#include "Importer.h"

using namespace mlir;
using namespace mlir::trace;

namespace mlir::trace::ts {

/// A list of constants as the IValue an operator unboxes: int[], float[],
/// bool[] or Tensor[]; none when an element is not a constant.
std::optional<c10::IValue> typedList(const TSValue &v) {
  bool ints = true, floats = true, bools = true, tensors = true;
  for (const TSValue &e : v.elements) {
    if (e.kind != TSValue::Kind::Const)
      return std::nullopt;
    ints &= e.constant.isInt();
    floats &= e.constant.isDouble();
    bools &= e.constant.isBool();
    tensors &= e.constant.isTensor();
  }
  if (ints) {
    c10::List<int64_t> l;
    for (const TSValue &e : v.elements)
      l.push_back(e.constant.toInt());
    return c10::IValue(l);
  }
  if (floats) {
    c10::List<double> l;
    for (const TSValue &e : v.elements)
      l.push_back(e.constant.toDouble());
    return c10::IValue(l);
  }
  if (bools) {
    c10::List<bool> l;
    for (const TSValue &e : v.elements)
      l.push_back(e.constant.toBool());
    return c10::IValue(l);
  }
  if (tensors) {
    c10::List<at::Tensor> l;
    for (const TSValue &e : v.elements)
      l.push_back(e.constant.toTensor());
    return c10::IValue(l);
  }
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// Arguments
//===----------------------------------------------------------------------===//

bool Importer::hasInput(const jit::Node *n, const char *name) {
  const c10::FunctionSchema *schema = n->maybeSchema();
  if (!schema)
    return false;
  return schema->argumentIndexWithName(name).has_value();
}

const jit::Value *Importer::input(const jit::Node *n, const char *name) {
  const c10::FunctionSchema *schema = n->maybeSchema();
  if (!schema)
    fail("no schema for " + Twine(n->kind().toQualString()));
  auto idx = schema->argumentIndexWithName(name);
  if (!idx || *idx < 0 || static_cast<size_t>(*idx) >= n->inputs().size())
    fail(Twine(n->kind().toQualString()) + ": no argument '" + name + "'");
  return n->input(*idx);
}

Value Importer::tensorArg(const jit::Node *n, const char *name) {
  const jit::Value *v = input(n, name);
  return asTensor(lookup(v), v);
}

Value Importer::optTensorArg(const jit::Node *n, const char *name) {
  if (!hasInput(n, name))
    return Value();
  const jit::Value *v = input(n, name);
  TSValue &tv = lookup(v);
  if (tv.kind == TSValue::Kind::Const && tv.constant.isNone())
    return Value();
  return asTensor(tv, v);
}

Scalar Importer::scalarOf(const c10::IValue &v) {
  if (v.isBool())
    return Scalar::ofBool(v.toBool());
  if (v.isInt())
    return Scalar::ofInt(v.toInt());
  if (v.isDouble())
    return Scalar::ofFloat(v.toDouble());
  if (v.isTensor() && v.toTensor().dim() == 0) {
    at::Tensor t = v.toTensor();
    if (t.is_floating_point())
      return Scalar::ofFloat(t.item<double>());
    if (t.scalar_type() == at::kBool)
      return Scalar::ofBool(t.item<bool>());
    return Scalar::ofInt(t.item<int64_t>());
  }
  fail("expected a number, got " + Twine(v.tagKind()));
}

Operand Importer::operandArg(const jit::Node *n, const char *name) {
  const jit::Value *v = input(n, name);
  TSValue &tv = lookup(v);
  if (tv.kind == TSValue::Kind::Const &&
      (tv.constant.isInt() || tv.constant.isDouble() || tv.constant.isBool() ||
       (tv.constant.isTensor() && tv.constant.toTensor().dim() == 0)))
    return Operand(scalarOf(tv.constant));
  return Operand(asTensor(tv, v));
}

std::optional<Operand> Importer::optOperandArg(const jit::Node *n,
                                               const char *name) {
  if (!hasInput(n, name))
    return std::nullopt;
  TSValue &tv = lookup(input(n, name));
  if (tv.kind == TSValue::Kind::Const && tv.constant.isNone())
    return std::nullopt;
  return operandArg(n, name);
}

c10::IValue Importer::constArg(const jit::Node *n, const char *name) {
  const jit::Value *v = input(n, name);
  TSValue &tv = lookup(v);
  if (tv.kind == TSValue::Kind::Const)
    return tv.constant;
  if (tv.kind == TSValue::Kind::List)
    if (std::optional<c10::IValue> list = typedList(tv))
      return *list;
  fail(Twine(n->kind().toQualString()) + ": argument '" + name +
       "' must be known at compile time (it depends on tensor data)");
}

int64_t Importer::intArg(const jit::Node *n, const char *name) {
  c10::IValue v = constArg(n, name);
  if (v.isInt())
    return v.toInt();
  if (v.isBool())
    return v.toBool();
  if (v.isTensor() && v.toTensor().dim() == 0 &&
      !v.toTensor().is_floating_point())
    return v.toTensor().item<int64_t>();
  fail(Twine(n->kind().toQualString()) + ": argument '" + name +
       "' must be an int");
}

double Importer::floatArg(const jit::Node *n, const char *name) {
  return scalarOf(constArg(n, name)).asDouble();
}

bool Importer::boolArg(const jit::Node *n, const char *name) {
  c10::IValue v = constArg(n, name);
  if (v.isBool())
    return v.toBool();
  if (v.isInt())
    return v.toInt() != 0;
  fail(Twine(n->kind().toQualString()) + ": argument '" + name +
       "' must be a bool");
}

std::optional<int64_t> Importer::optIntArg(const jit::Node *n,
                                           const char *name) {
  if (!hasInput(n, name))
    return std::nullopt;
  c10::IValue v = constArg(n, name);
  if (v.isNone())
    return std::nullopt;
  return intArg(n, name);
}

std::vector<int64_t> Importer::intListArg(const jit::Node *n,
                                          const char *name) {
  c10::IValue v = constArg(n, name);
  std::vector<int64_t> out;
  if (v.isInt()) {
    out.push_back(v.toInt());
  } else if (v.isList()) {
    for (const c10::IValue &e : v.toListRef()) {
      if (e.isInt())
        out.push_back(e.toInt());
      else if (e.isTensor() && e.toTensor().dim() == 0)
        out.push_back(e.toTensor().item<int64_t>());
      else
        fail(Twine(n->kind().toQualString()) + ": argument '" + name +
             "' must be a list of ints");
    }
  } else if (!v.isNone()) {
    fail(Twine(n->kind().toQualString()) + ": argument '" + name +
         "' must be a list of ints");
  }
  return out;
}

std::optional<Type> Importer::dtypeArg(const jit::Node *n, const char *name) {
  if (!hasInput(n, name))
    return std::nullopt;
  c10::IValue v = constArg(n, name);
  if (v.isNone())
    return std::nullopt;
  return elementTypeOf(static_cast<c10::ScalarType>(v.toInt()));
}

} // namespace mlir::trace::ts
