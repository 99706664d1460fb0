//===- Arguments.cpp - a node's arguments and outputs ---------------------===//
//
// A node of the program names its arguments by their schema names, each a
// tagged union (torch::_export::Argument: as_tensor, as_int, as_ints,
// as_float, as_bool, as_sym_int, as_scalar_type, as_none, ...); the
// handlers read them here as trace values and numbers. A kind a handler
// does not expect is an error at the node's location naming the argument
// and its kind. Its outputs name the values later nodes read.
//
//===----------------------------------------------------------------------===//

#include "Importer.h"

using namespace mlir;
using namespace mlir::trace;
using namespace mlir::trace::pt2;

//===----------------------------------------------------------------------===//
// Arguments
//===----------------------------------------------------------------------===//

const ex::Argument *Importer::findArg(const ex::Node &node, StringRef name) {
  for (const ex::NamedArgument &a : node.get_inputs())
    if (a.get_name() == name)
      return &a.get_arg();
  return nullptr;
}

const ex::Argument &Importer::arg(const ex::Node &node, StringRef name) {
  if (const ex::Argument *a = findArg(node, name))
    return *a;
  fail(node.get_target() + ": no argument '" + name + "'");
}

void Importer::badArg(const ex::Node &node, StringRef name,
                      const ex::Argument &a, StringRef expected) {
  fail(node.get_target() + ": argument '" + name + "' is " +
       std::string(ex::printEnum(a.tag())) + ", expected " + expected);
}

Value Importer::valueNamed(const std::string &name) {
  auto it = values.find(name);
  if (it == values.end())
    fail("value '" + name + "' is used before it is defined");
  return it->second;
}

Value Importer::tensorArg(const ex::Node &node, StringRef name) {
  const ex::Argument &a = arg(node, name);
  if (a.tag() == ex::Argument::Tag::AS_TENSOR)
    return valueNamed(a.get_as_tensor().get_name());
  if (a.tag() == ex::Argument::Tag::AS_OPTIONAL_TENSOR &&
      a.get_as_optional_tensor().tag() ==
          ex::OptionalTensorArgument::Tag::AS_TENSOR)
    return valueNamed(a.get_as_optional_tensor().get_as_tensor().get_name());
  badArg(node, name, a, "a tensor");
}

Value Importer::optTensorArg(const ex::Node &node, StringRef name) {
  const ex::Argument *a = findArg(node, name);
  if (!a || a->tag() == ex::Argument::Tag::AS_NONE)
    return Value();
  if (a->tag() == ex::Argument::Tag::AS_OPTIONAL_TENSOR &&
      a->get_as_optional_tensor().tag() ==
          ex::OptionalTensorArgument::Tag::AS_NONE)
    return Value();
  return tensorArg(node, name);
}

int64_t Importer::symInt(const ex::Node &node, StringRef name,
                         const ex::SymIntArgument &s) {
  if (s.tag() == ex::SymIntArgument::Tag::AS_INT)
    return s.get_as_int();
  const std::string &symbol = s.get_as_name();
  if (auto it = symInts.find(symbol); it != symInts.end())
    return it->second;
  // A size the graph names without computing it: its expression.
  const auto &known = graph->get_sym_int_values();
  if (auto it = known.find(symbol);
      it != known.end() && it->second.tag() == ex::SymInt::Tag::AS_EXPR)
    if (std::optional<int64_t> v =
            evaluate(it->second.get_as_expr().get_expr_str()))
      return *v;
  if (auto it = known.find(symbol);
      it != known.end() && it->second.tag() == ex::SymInt::Tag::AS_INT)
    return it->second.get_as_int();
  fail(node.get_target() + ": argument '" + name + "' is the symbolic size '" +
       symbol + "', which the input shapes do not determine");
}

Scalar Importer::scalarArg(const ex::Node &node, StringRef name,
                           std::optional<Scalar> byDefault) {
  const ex::Argument *a = findArg(node, name);
  if (!a && byDefault)
    return *byDefault;
  if (!a)
    arg(node, name); // fails
  using T = ex::Argument::Tag;
  switch (a->tag()) {
  case T::AS_INT:
    return Scalar::ofInt(a->get_as_int());
  case T::AS_FLOAT:
    return Scalar::ofFloat(a->get_as_float().get());
  case T::AS_BOOL:
    return Scalar::ofBool(a->get_as_bool());
  case T::AS_SYM_INT:
    return Scalar::ofInt(symInt(node, name, a->get_as_sym_int()));
  case T::AS_SYM_FLOAT:
    if (a->get_as_sym_float().tag() == ex::SymFloatArgument::Tag::AS_FLOAT)
      return Scalar::ofFloat(a->get_as_sym_float().get_as_float().get());
    break;
  case T::AS_SYM_BOOL:
    if (a->get_as_sym_bool().tag() == ex::SymBoolArgument::Tag::AS_BOOL)
      return Scalar::ofBool(a->get_as_sym_bool().get_as_bool());
    break;
  case T::AS_NONE:
    if (byDefault)
      return *byDefault;
    break;
  default:
    break;
  }
  badArg(node, name, *a, "a number");
}

Operand Importer::operandArg(const ex::Node &node, StringRef name) {
  const ex::Argument &a = arg(node, name);
  if (a.tag() == ex::Argument::Tag::AS_TENSOR ||
      a.tag() == ex::Argument::Tag::AS_OPTIONAL_TENSOR)
    return Operand(tensorArg(node, name));
  return Operand(scalarArg(node, name));
}

int64_t Importer::intArg(const ex::Node &node, StringRef name,
                         std::optional<int64_t> byDefault) {
  const ex::Argument *a = findArg(node, name);
  if (!a || a->tag() == ex::Argument::Tag::AS_NONE) {
    if (byDefault)
      return *byDefault;
    arg(node, name); // fails when absent
    badArg(node, name, *a, "an int");
  }
  if (a->tag() == ex::Argument::Tag::AS_INT)
    return a->get_as_int();
  if (a->tag() == ex::Argument::Tag::AS_SYM_INT)
    return symInt(node, name, a->get_as_sym_int());
  if (a->tag() == ex::Argument::Tag::AS_BOOL)
    return a->get_as_bool();
  badArg(node, name, *a, "an int");
}

std::optional<int64_t> Importer::optIntArg(const ex::Node &node,
                                           StringRef name) {
  const ex::Argument *a = findArg(node, name);
  if (!a || a->tag() == ex::Argument::Tag::AS_NONE)
    return std::nullopt;
  return intArg(node, name);
}

double Importer::floatArg(const ex::Node &node, StringRef name,
                          std::optional<double> byDefault) {
  std::optional<Scalar> d;
  if (byDefault)
    d = Scalar::ofFloat(*byDefault);
  return scalarArg(node, name, d).asDouble();
}

bool Importer::boolArg(const ex::Node &node, StringRef name,
                       std::optional<bool> byDefault) {
  const ex::Argument *a = findArg(node, name);
  if (!a || a->tag() == ex::Argument::Tag::AS_NONE) {
    if (byDefault)
      return *byDefault;
    arg(node, name);
    badArg(node, name, *a, "a bool");
  }
  if (a->tag() == ex::Argument::Tag::AS_BOOL)
    return a->get_as_bool();
  if (a->tag() == ex::Argument::Tag::AS_SYM_BOOL &&
      a->get_as_sym_bool().tag() == ex::SymBoolArgument::Tag::AS_BOOL)
    return a->get_as_sym_bool().get_as_bool();
  if (a->tag() == ex::Argument::Tag::AS_INT)
    return a->get_as_int() != 0;
  badArg(node, name, *a, "a bool");
}

SmallVector<int64_t>
Importer::intsArg(const ex::Node &node, StringRef name,
                  std::optional<SmallVector<int64_t>> byDefault) {
  const ex::Argument *a = findArg(node, name);
  if (!a || a->tag() == ex::Argument::Tag::AS_NONE)
    return byDefault ? *byDefault : SmallVector<int64_t>();
  switch (a->tag()) {
  case ex::Argument::Tag::AS_INTS:
    return SmallVector<int64_t>(a->get_as_ints().begin(),
                                a->get_as_ints().end());
  case ex::Argument::Tag::AS_INT:
  case ex::Argument::Tag::AS_SYM_INT:
    return {intArg(node, name)};
  case ex::Argument::Tag::AS_SYM_INTS: {
    SmallVector<int64_t> out;
    for (const ex::SymIntArgument &s : a->get_as_sym_ints())
      out.push_back(symInt(node, name, s));
    return out;
  }
  default:
    badArg(node, name, *a, "a list of ints");
  }
}

std::optional<Type> Importer::dtypeArg(const ex::Node &node, StringRef name) {
  const ex::Argument *a = findArg(node, name);
  if (!a || a->tag() == ex::Argument::Tag::AS_NONE)
    return std::nullopt;
  if (a->tag() != ex::Argument::Tag::AS_SCALAR_TYPE)
    badArg(node, name, *a, "a dtype");
  return elementTypeOf(a->get_as_scalar_type());
}

std::optional<std::string> Importer::stringArg(const ex::Node &node,
                                               StringRef name) {
  const ex::Argument *a = findArg(node, name);
  if (!a || a->tag() == ex::Argument::Tag::AS_NONE)
    return std::nullopt;
  if (a->tag() != ex::Argument::Tag::AS_STRING)
    badArg(node, name, *a, "a string");
  return a->get_as_string();
}

//===----------------------------------------------------------------------===//
// Outputs
//===----------------------------------------------------------------------===//

std::optional<std::string> Importer::usedOutput(const ex::Node &node,
                                                unsigned index) {
  const std::vector<ex::Argument> &outputs = node.get_outputs();
  if (index >= outputs.size() ||
      outputs[index].tag() != ex::Argument::Tag::AS_TENSOR)
    return std::nullopt;
  const std::string &name = outputs[index].get_as_tensor().get_name();
  if (!usersOf.count(name))
    return std::nullopt;
  return name;
}

void Importer::setResult(const ex::Node &node, unsigned index, Value v) {
  check(v);
  const std::vector<ex::Argument> &outputs = node.get_outputs();
  if (index >= outputs.size())
    fail(node.get_target() + ": has no output " + Twine(index));
  const ex::Argument &out = outputs[index];
  if (out.tag() == ex::Argument::Tag::AS_TENSOR) {
    values[out.get_as_tensor().get_name()] = v;
  } else if (out.tag() != ex::Argument::Tag::AS_NONE) {
    fail(node.get_target() + ": output " + Twine(index) + " is " +
         std::string(ex::printEnum(out.tag())) + ", expected a tensor");
  }
  nodeResults[currentNode].push_back(v);
}
