//===- Shapes.cpp - shapes and symbolic sizes of a program ----------------===//
//
// A program exported with dynamic_shapes has symbolic sizes: the user
// inputs' dims are symbols (`s77`), and nodes compute sizes from them
// (sym_size, Python arithmetic). The trace dialect's shapes are static, so
// each symbol takes the size --input-shape gives its input, checked against
// the static dims, the dtype and the range export derived for the symbol;
// the size nodes are then numbers, evaluated here.
//
//===----------------------------------------------------------------------===//

#include "Importer.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"

using namespace mlir;
using namespace mlir::trace;
using namespace mlir::trace::pt2;

/// An --input-shape dtype (f32, i64, bool, ...) as a type.
static Type parseDType(MLIRContext *ctx, StringRef dtype) {
  Builder b(ctx);
  return llvm::StringSwitch<Type>(dtype)
      .Case("f32", b.getF32Type())
      .Case("f64", b.getF64Type())
      .Case("f16", b.getF16Type())
      .Case("bf16", b.getBF16Type())
      .Case("i64", b.getI64Type())
      .Case("i32", b.getI32Type())
      .Cases({"i1", "bool"}, b.getI1Type())
      .Default(Type());
}

/// A type as --input-shape writes it.
static std::string dtypeName(Type type) {
  if (type.isInteger(1))
    return "bool";
  std::string s;
  llvm::raw_string_ostream os(s);
  type.print(os);
  return s;
}

//===----------------------------------------------------------------------===//
// Symbolic sizes
//===----------------------------------------------------------------------===//

/// The symbol an expression is, when it is one: `s77`, or sympy's srepr
/// form `Symbol('s77', positive=True, integer=True)` the schema writes.
static std::optional<std::string> symbolOf(StringRef expr) {
  expr = expr.trim();
  if (expr.consume_front("Symbol('")) {
    size_t end = expr.find('\'');
    if (end == StringRef::npos || end == 0)
      return std::nullopt;
    return expr.take_front(end).str();
  }
  if (!expr.empty() && (isalpha(expr[0]) || expr[0] == '_') &&
      llvm::all_of(expr, [](char c) { return isalnum(c) || c == '_'; }))
    return expr.str();
  return std::nullopt;
}

std::optional<int64_t> Importer::evaluate(const std::string &text) {
  StringRef expr = StringRef(text).trim();
  int64_t value;
  if (!expr.getAsInteger(10, value))
    return value;
  if (expr.consume_front("Integer(") && expr.consume_back(")") &&
      !expr.trim().getAsInteger(10, value))
    return value;
  if (std::optional<std::string> symbol = symbolOf(text)) {
    auto it = symbols.find(*symbol);
    if (it != symbols.end())
      return it->second;
  }
  return std::nullopt;
}

SmallVector<int64_t> Importer::shapeOf(const std::string &name,
                                       const ex::TensorMeta &meta) {
  SmallVector<int64_t> shape;
  for (auto [dim, size] : llvm::enumerate(meta.get_sizes())) {
    if (size.tag() == ex::SymInt::Tag::AS_INT) {
      shape.push_back(size.get_as_int());
      continue;
    }
    const std::string &expr = size.get_as_expr().get_expr_str();
    std::optional<int64_t> value = evaluate(expr);
    if (!value)
      fail("dimension " + Twine(dim) + " of '" + name + "' is '" + expr +
           "', which the input shapes do not determine");
    shape.push_back(*value);
  }
  return shape;
}

LogicalResult Importer::bindSymbols(const ex::Graph &graph,
                                    ArrayRef<std::string> userInputs) {
  Location fileLoc = FileLineColLoc::get(ctx, path, 0, 0);
  std::vector<bool> used(options.inputs.size(), false);
  std::string all = llvm::join(userInputs, ", ");
  for (const InputSpec &given : options.inputs)
    if (!given.name.empty() && !llvm::is_contained(userInputs, given.name)) {
      emitError(fileLoc) << "--input-shape '" << given.name
                         << "' names no user input of the program (it takes: "
                         << all << ")";
      return failure();
    }
  for (const std::string &name : userInputs) {
    const ex::TensorMeta &meta = graph.get_tensor_values().at(name);
    const InputSpec *given = nullptr;
    for (size_t s = 0; s < options.inputs.size() && !given; ++s)
      if (!used[s] && options.inputs[s].name == name)
        given = &options.inputs[s], used[s] = true;
    for (size_t s = 0; s < options.inputs.size() && !given; ++s)
      if (!used[s] && options.inputs[s].name.empty())
        given = &options.inputs[s], used[s] = true;
    const std::vector<ex::SymInt> &sizes = meta.get_sizes();
    Type element = elementTypeOf(meta.get_dtype());
    if (!given) {
      // Only a symbolic dim needs a shape; say what the export saw.
      for (auto [dim, size] : llvm::enumerate(sizes)) {
        if (size.tag() != ex::SymInt::Tag::AS_EXPR)
          continue;
        std::string example;
        for (const ex::SymInt &s : sizes) {
          int64_t d = 2;
          if (s.tag() == ex::SymInt::Tag::AS_INT)
            d = s.get_as_int();
          else if (const auto &hint = s.get_as_expr().get_hint();
                   hint && hint->tag() == ex::SymExprHint::Tag::AS_INT)
            d = hint->get_as_int();
          example += std::to_string(d) + "x";
        }
        const std::string &expr = size.get_as_expr().get_expr_str();
        emitError(fileLoc) << "dimension " << dim << " of input '" << name
                           << "' is symbolic ('"
                           << symbolOf(expr).value_or(expr)
                           << "'): give its size with --input-shape, e.g. "
                              "--input-shape "
                           << name << "=" << example << dtypeName(element);
        return failure();
      }
      continue;
    }
    if (parseDType(ctx, given->dtype) != element) {
      emitError(fileLoc) << "--input-shape gives input '" << name << "' dtype "
                         << given->dtype << ", the program's is "
                         << dtypeName(element);
      return failure();
    }
    if (given->shape.size() != sizes.size()) {
      emitError(fileLoc) << "--input-shape gives input '" << name << "' "
                         << given->shape.size() << " dims, the program's has "
                         << sizes.size();
      return failure();
    }
    for (auto [dim, size] : llvm::enumerate(sizes)) {
      int64_t want = given->shape[dim];
      if (size.tag() == ex::SymInt::Tag::AS_INT) {
        if (size.get_as_int() != want) {
          emitError(fileLoc) << "--input-shape gives dimension " << dim
                             << " of input '" << name << "' size " << want
                             << ", but the program was exported with size "
                             << size.get_as_int() << " there (static)";
          return failure();
        }
        continue;
      }
      const std::string &expr = size.get_as_expr().get_expr_str();
      std::optional<std::string> symbol = symbolOf(expr);
      if (!symbol) {
        emitError(fileLoc) << "dimension " << dim << " of input '" << name
                           << "' is the expression '" << expr
                           << "', not a symbol: unsupported";
        return failure();
      }
      auto [it, inserted] = symbols.try_emplace(*symbol, want);
      if (!inserted && it->second != want) {
        emitError(fileLoc) << "--input-shape gives dimension " << dim
                           << " of input '" << name << "' size " << want
                           << ", but it is the same symbol ('" << *symbol
                           << "') as a dimension given size " << it->second;
        return failure();
      }
    }
  }
  for (size_t s = 0; s < options.inputs.size(); ++s)
    if (!used[s]) {
      emitError(fileLoc) << "--input-shape " << s + 1
                         << " (unnamed) is one more than the program's "
                         << userInputs.size() << " user inputs (" << all
                         << ")";
      return failure();
    }
  // The ranges export derived for the symbols (a dim it saw used as a size
  // of 2 or more, say) hold for the sizes given.
  for (const auto &[symbol, range] :
       program->get_range_constraints()) {
    auto it = symbols.find(symbol);
    if (it == symbols.end())
      continue;
    int64_t v = it->second;
    if ((range.get_min_val() && v < *range.get_min_val()) ||
        (range.get_max_val() && v > *range.get_max_val())) {
      emitError(fileLoc) << "--input-shape gives symbol '" << symbol
                         << "' the size " << v
                         << ", outside the range the program was exported "
                            "for ["
                         << (range.get_min_val()
                                 ? std::to_string(*range.get_min_val())
                                 : std::string("-inf"))
                         << ", "
                         << (range.get_max_val()
                                 ? std::to_string(*range.get_max_val())
                                 : std::string("inf"))
                         << "]";
      return failure();
    }
  }
  return success();
}

bool Importer::importSymbolic(const ex::Node &node, StringRef target) {
  // Sizes read off tensors and Python arithmetic on them (a dynamic dim's
  // `B * T`): numbers at import time, since every size is static once the
  // input shapes are given.
  auto define = [&](int64_t v) {
    const std::vector<ex::Argument> &outputs = node.get_outputs();
    if (outputs.size() != 1 ||
        outputs[0].tag() != ex::Argument::Tag::AS_SYM_INT ||
        outputs[0].get_as_sym_int().tag() != ex::SymIntArgument::Tag::AS_NAME)
      fail(target + ": expected one symbolic int output");
    symInts[outputs[0].get_as_sym_int().get_as_name()] = v;
    return true;
  };
  if (target == "torch.ops.aten.sym_size.int") {
    Value x = self(node);
    ArrayRef<int64_t> shape = TensorBuilder::typeOf(x).getShape();
    int64_t d = tb.normalizeDim(intArg(node, "dim"), shape.size());
    if (d < 0)
      throw ImportError();
    return define(shape[d]);
  }
  if (target == "torch.ops.aten.sym_numel.default") {
    return define(TensorBuilder::typeOf(self(node)).getNumElements());
  }
  // _operator.mul(a, b) and friends: positional arguments, named by
  // position in the schema's serialization.
  static const llvm::StringMap<int> arithmetic = {
      {"_operator.add", 0},      {"_operator.sub", 1},
      {"_operator.mul", 2},      {"_operator.floordiv", 3},
      {"_operator.mod", 4},      {"_operator.neg", 5}};
  auto it = arithmetic.find(target);
  if (it == arithmetic.end())
    return false;
  const std::vector<ex::NamedArgument> &inputs = node.get_inputs();
  size_t arity = it->second == 5 ? 1 : 2;
  if (inputs.size() != arity)
    fail(target + ": expected " + Twine(arity) + " arguments");
  int64_t a = intArg(node, inputs[0].get_name());
  if (it->second == 5)
    return define(-a);
  int64_t b = intArg(node, inputs[1].get_name());
  switch (it->second) {
  case 0:
    return define(a + b);
  case 1:
    return define(a - b);
  case 2:
    return define(a * b);
  default:
    if (b == 0)
      fail(target + ": division by zero");
    // Python's floor division and modulo round toward -inf.
    int64_t q = a / b, r = a % b;
    if (r != 0 && ((r < 0) != (b < 0)))
      --q, r += b;
    return define(it->second == 3 ? q : r);
  }
}
