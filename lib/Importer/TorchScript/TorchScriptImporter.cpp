//===- TorchScriptImporter.cpp - TorchScript (.pt) to the trace dialect ---===//
//
// Walks the module hierarchy of a TorchScript file and the graph of each
// `forward` it calls, emitting trace ops through TensorBuilder. Submodule
// calls are followed rather than inlined up front, so the importer knows
// which module every op came from: that gives module-path names and
// locations, and turns a call of a `CheckpointWrapper` (or of a module
// matching --checkpoint-modules) into a `trace.checkpoint` region.
//
// Values a TorchScript graph computes from constants alone (sizes read with
// aten::size, their arithmetic, lists of them) are evaluated here with
// LibTorch's own operator implementations, as TorchScript's constant
// propagation does; everything else becomes trace ops.
//
// LibTorch reports errors by throwing: every call into it is inside the
// try block of importTorchScript, and no exception reaches MLIR code.
//
//===----------------------------------------------------------------------===//

#include "trace/Importer/TorchScript.h"
#include "trace/Importer/TensorBuilder.h"
#include "trace/Support/ChildProcess.h"

#include "trace/Importer/CheckpointCalls.h"
#include "Importer.h"
#include "PickleScan.h"

#include "trace/Dialect/Trace/IR/TraceDialect.h"
#include "trace/Dialect/Trace/IR/TraceOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Regex.h"

#include <caffe2/serialize/inline_container.h>
#include <torch/csrc/jit/ir/constants.h>
#include <torch/csrc/jit/ir/ir.h>
#include <torch/csrc/jit/serialization/import.h>
#include <torch/script.h>

#include <fstream>
#include <sstream>
#include <functional>

using namespace mlir;
using namespace mlir::trace;
namespace jit = torch::jit;

//===----------------------------------------------------------------------===//
// Input specs
//===----------------------------------------------------------------------===//

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

bool mlir::trace::readInputSpecsFile(StringRef path,
                                     std::vector<std::string> &specs,
                                     std::string &error) {
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer) {
    error = "cannot read '" + path.str() + "': " + buffer.getError().message();
    return false;
  }
  SmallVector<StringRef> lines;
  (*buffer)->getBuffer().split(lines, '\n');
  for (StringRef line : lines)
    if (!line.trim().empty() && !line.trim().starts_with("#"))
      specs.push_back(line.trim().str());
  return true;
}

bool mlir::trace::parseInputSpec(StringRef text, InputSpec &spec,
                                 std::string &error) {
  spec = InputSpec();
  StringRef body = text;
  if (auto [name, rest] = text.split('='); !rest.empty() || text.contains('=')) {
    spec.name = name.trim().str();
    body = rest;
    if (spec.name.empty()) {
      error = "missing input name before '=' in '" + text.str() + "'";
      return false;
    }
  }
  SmallVector<StringRef> parts;
  body.trim().split(parts, 'x');
  if (parts.empty() || parts.back().empty()) {
    error = "expected NAME=D0xD1x...xDTYPE (e.g. x=2x128xf32), got '" +
            text.str() + "'";
    return false;
  }
  spec.dtype = parts.back().str();
  MLIRContext probe;
  if (!parseDType(&probe, spec.dtype)) {
    error = "unknown dtype '" + spec.dtype + "' in '" + text.str() +
            "' (expected f32, f64, f16, bf16, i64, i32 or bool)";
    return false;
  }
  for (StringRef p : ArrayRef<StringRef>(parts).drop_back()) {
    int64_t d;
    if (p.getAsInteger(10, d) || d < 0) {
      error = "bad dimension '" + p.str() + "' in '" + text.str() + "'";
      return false;
    }
    spec.shape.push_back(d);
  }
  // Sizes, strides and costs are int64 byte counts everywhere downstream.
  Type element = parseDType(&probe, spec.dtype);
  int64_t bytes = std::max<int64_t>(1, element.getIntOrFloatBitWidth() / 8);
  for (int64_t d : spec.shape) {
    if (__builtin_mul_overflow(bytes, d, &bytes)) {
      error = "shape of '" + text.str() +
              "' is too large: its size in bytes does not fit in 64 bits";
      return false;
    }
  }
  return true;
}

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

std::string stripMangling(const std::string &qualified) {
  // __torch__.m.___torch_mangle_5.Block -> __torch__.m.Block
  std::string out;
  for (StringRef part : llvm::split(StringRef(qualified), '.')) {
    if (part.starts_with("___torch_mangle_"))
      continue;
    if (!out.empty())
      out += '.';
    out += part.str();
  }
  return out;
}


//===----------------------------------------------------------------------===//
// Locations and errors
//===----------------------------------------------------------------------===//

c10::optional<jit::SourceRange>
Importer::recordedRange(const jit::Node *node, bool *stack) {
  // LibTorch reads a node's debug info when it is first asked for it, and
  // throws on a corrupt record: the import goes on without it, with one
  // warning at the end.
  try {
    jit::SourceRange range = node->sourceRange();
    c10::optional<jit::SourceRange> generated =
        range.findSourceRangeThatGenerated();
    if (stack)
      *stack = generated.has_value();
    return generated ? generated : range;
  } catch (const std::exception &e) {
    if (debugInfoError.empty())
      debugInfoError = StringRef(e.what()).split('\n').first.str();
    return c10::nullopt;
  }
}

Location Importer::locationOf(const c10::optional<jit::SourceRange> &range,
                               const std::string &path) {
  Location loc = UnknownLoc::get(ctx);
  if (auto flc = range ? range->file_line_col() : c10::nullopt) {
    auto [file, line, col] = *flc;
    loc = FileLineColLoc::get(ctx, file, line, col + 1);
  }
  return NameLoc::get(StringAttr::get(ctx, path.empty() ? "<model>" : path),
                      loc);
}

std::string Importer::describe(const jit::Node *node) {
  std::string s = node->kind().toQualString();
  if (const c10::FunctionSchema *schema = node->maybeSchema()) {
    std::ostringstream os;
    os << *schema;
    s += " (schema: " + os.str() + ")";
  }
  return s;
}

//===----------------------------------------------------------------------===//
// Values
//===----------------------------------------------------------------------===//

Value Importer::capture(Scope *s, Value v) {
  if (!s || v.getParentBlock() == s->block)
    return v;
  auto it = s->captured.find(v);
  if (it != s->captured.end())
    return it->second;
  Value outer = capture(s->parent, v);
  Value arg = s->block->addArgument(v.getType(), v.getLoc());
  s->captured[v] = arg;
  s->outerValues.push_back(outer);
  return arg;
}

Value Importer::use(Value v) { return capture(scope, v); }

Value Importer::bufferArg(const jit::Node *node, const char *name) {
  if (!hasInput(node, name))
    return Value();
  const TSValue &v = lookup(input(node, name));
  if (v.kind != TSValue::Kind::Tensor)
    return Value();
  if (bufferNames.count(v.tensor))
    return v.tensor;
  // num_batches_tracked.add_(1) twice: the second adds to the first's.
  return bufferOfUpdate.lookup(v.tensor);
}

void Importer::updateBuffer(const jit::Node *node, Value buffer,
                            Value updated) {
  // A region's values leave it only through its results: the update is
  // one when the region closes. PyTorch's checkpoint updates the buffer
  // again when it recomputes the region in the backward (momentum applied
  // twice); the compiled step's recomputation does not, so it matches the
  // model without checkpoints. Said once, after the walk.
  if (scope && scope->parent && !llvm::is_contained(scope->updatedBuffers,
                                                     buffer)) {
    if (regionBufferUpdates.insert(buffer).second && !firstRegionUpdate)
      firstRegionUpdate = {tb.getLoc(), bufferNames.lookup(buffer),
                           scope->path};
    scope->updatedBuffers.push_back(buffer);
  }
  bufferUpdates[buffer] = updated;
  bufferOfUpdate[updated] = buffer;
}

Value Importer::getSeed() {
  if (!seed) {
    seed = entry->addArgument(RankedTensorType::get({}, builder.getI64Type()),
                              UnknownLoc::get(ctx));
    argAttrs.push_back(builder.getDictionaryAttr(
        {builder.getNamedAttr(TraceDialect::kNameAttrName,
                              builder.getStringAttr("seed"))}));
  }
  return seed;
}

Type Importer::elementTypeOf(c10::ScalarType st) {
  switch (st) {
  case c10::ScalarType::Float:
    return builder.getF32Type();
  case c10::ScalarType::Double:
    return builder.getF64Type();
  case c10::ScalarType::Half:
    return builder.getF16Type();
  case c10::ScalarType::BFloat16:
    return builder.getBF16Type();
  case c10::ScalarType::Long:
    return builder.getI64Type();
  case c10::ScalarType::Int:
    return builder.getI32Type();
  case c10::ScalarType::Short:
    return builder.getI16Type();
  case c10::ScalarType::Char:
  case c10::ScalarType::Byte:
    return builder.getI8Type();
  case c10::ScalarType::Bool:
    return builder.getI1Type();
  default:
    fail(Twine("unsupported dtype ") + c10::toString(st));
  }
}

Value Importer::constantTensor(const at::Tensor &value) {
  at::Tensor t = value.contiguous();
  Type elt = elementTypeOf(t.scalar_type());
  SmallVector<int64_t> shape(t.sizes().begin(), t.sizes().end());
  // Splats become trace.full: readable, and no data in the IR.
  if (t.numel() > 0) {
    at::Tensor first = t.flatten()[0];
    if (t.eq(first).all().item<bool>()) {
      Scalar s = isa<FloatType>(elt) ? Scalar::ofFloat(first.item<double>())
                 : elt.isInteger(1)  ? Scalar::ofBool(first.item<bool>())
                                     : Scalar::ofInt(first.item<int64_t>());
      return tb.full(shape, elt, s);
    }
  }
  auto type = RankedTensorType::get(shape, elt);
  DenseElementsAttr attr;
  if (elt.isInteger(1)) {
    SmallVector<bool> data;
    auto acc = t.to(at::kBool).flatten();
    for (int64_t i = 0; i < t.numel(); ++i)
      data.push_back(acc[i].item<bool>());
    attr = DenseElementsAttr::get(type, data);
  } else {
    auto *bytes = static_cast<const char *>(t.data_ptr());
    attr = DenseElementsAttr::getFromRawBuffer(
        type, ArrayRef<char>(bytes, t.numel() * t.element_size()));
  }
  return ConstantOp::create(builder, tb.getLoc(), cast<ElementsAttr>(attr));
}

TSValue &Importer::lookup(const jit::Value *v) {
  auto it = env.find(v);
  if (it == env.end())
    fail("internal: value %" + v->debugName() + " used before definition");
  return it->second;
}

Value Importer::asTensor(const TSValue &v, const jit::Value *origin) {
  switch (v.kind) {
  case TSValue::Kind::Tensor:
    return use(v.tensor);
  case TSValue::Kind::Const:
    if (v.constant.isTensor())
      return constantTensor(v.constant.toTensor());
    if (v.constant.isInt() || v.constant.isDouble() || v.constant.isBool()) {
      Scalar s = scalarOf(v.constant);
      return tb.full({}, tb.scalarType(s), s);
    }
    break;
  default:
    break;
  }
  fail("expected a tensor for %" + origin->debugName());
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

//===----------------------------------------------------------------------===//
// Graph walk
//===----------------------------------------------------------------------===//

bool Importer::isCheckpointModule(const jit::Module &m,
                                  const std::string &path) {
  std::string type = stripMangling(m.type()->name()->qualifiedName());
  StringRef shortName = StringRef(type).rsplit('.').second;
  if (shortName.empty())
    shortName = type;
  if (shortName == "CheckpointWrapper" &&
      StringRef(type).contains("checkpoint_wrapper"))
    return true;
  if (!checkpointRegex)
    return false;
  for (StringRef candidate : {StringRef(path), shortName, StringRef(type)})
    if (checkpointRegex->match(candidate))
      return true;
  return false;
}

std::vector<TSValue> Importer::importGraph(jit::Graph &graph, jit::Module self,
                                           const std::string &path,
                                           std::vector<TSValue> args) {
  // The ops created after the graph's nodes (by the caller) are not the
  // last node's: they get the calls current before the graph.
  SmallVector<CallInstance> outerCalls = currentCalls;
  llvm::scope_exit restore([&] { currentCalls = outerCalls; });
  auto inputs = graph.inputs();
  if (inputs.size() != args.size() + 1)
    fail("method of '" + Twine(path) + "' takes " + Twine(inputs.size() - 1) +
         " arguments, called with " + Twine(args.size()));
  env[inputs[0]] = TSValue::ofModule(self, path);
  for (size_t i = 0; i < args.size(); ++i)
    env[inputs[i + 1]] = args[i];
  for (jit::Node *node : graph.nodes())
    importNode(node, path);
  std::vector<TSValue> results;
  for (const jit::Value *out : graph.outputs())
    results.push_back(lookup(out));
  return results;
}

std::vector<TSValue> Importer::callMethod(jit::Node *node,
                                          const std::string &path) {
  TSValue &target = lookup(node->input(0));
  if (target.kind != TSValue::Kind::Module)
    fail("prim::CallMethod on a value that is not a module");
  std::string method = node->s(c10::Symbol::attr("name"));
  jit::Module callee = target.module();
  std::string calleePath = target.path;
  std::vector<TSValue> args;
  for (size_t i = 1; i < node->inputs().size(); ++i)
    args.push_back(lookup(node->input(i)));
  auto fn = callee.find_method(method);
  if (!fn)
    fail("module '" + Twine(calleePath) + "' has no method '" + method + "'");
  if (callStack.size() > 256)
    fail("module calls nest deeper than 256 levels (recursive model?)");
  callStack.push_back(calleePath);
  uint64_t visit = nextVisit++;
  visitStack.push_back(visit);
  callRegions.noteMethodCall(
      visit, calleePath,
      StringRef(stripMangling(callee.type()->name()->qualifiedName()))
          .rsplit('.')
          .second.str());
  std::shared_ptr<jit::Graph> graph = fn->graph();

  if (!isCheckpointModule(callee, calleePath)) {
    std::vector<TSValue> results =
        importGraph(*graph, callee, calleePath, std::move(args));
    callStack.pop_back();
    visitStack.pop_back();
    // Name a submodule's tensor output after the submodule (unless it is
    // the body of a region of that name: checkpoint_wrapper's inner module).
    if (results.size() == 1 && results[0].kind == TSValue::Kind::Tensor &&
        scope->path != calleePath) {
      Operation *def = results[0].tensor.getDefiningOp();
      if (def && def->getBlock() == scope->block &&
          !def->hasAttr(TraceDialect::kNameAttrName) && !calleePath.empty())
        def->setAttr(TraceDialect::kNameAttrName,
                     builder.getStringAttr(calleePath));
    }
    return results;
  }

  // A checkpoint region: import the body into a block of its own, capture
  // what it uses from outside, then wrap it in trace.checkpoint.
  Location loc = tb.getLoc();
  OpBuilder::InsertPoint outerIp = builder.saveInsertionPoint();
  auto body = std::make_unique<Block>();
  Scope inner{body.get(), scope, calleePath};
  scope = &inner;
  builder.setInsertionPointToEnd(body.get());
  std::vector<TSValue> results =
      importGraph(*graph, callee, calleePath, std::move(args));
  // Tensors (possibly nested in a returned tuple) leave the region.
  SmallVector<Value> yielded;
  std::function<void(TSValue &)> collect = [&](TSValue &v) {
    if (v.kind == TSValue::Kind::Tensor) {
      yielded.push_back(use(v.tensor));
    } else if (v.kind == TSValue::Kind::List) {
      for (TSValue &e : v.elements)
        collect(e);
    }
  };
  for (TSValue &r : results)
    collect(r);
  size_t numModuleResults = yielded.size();
  for (Value buffer : inner.updatedBuffers)
    yielded.push_back(bufferUpdates.lookup(buffer));
  tb.setLoc(loc);
  YieldOp::create(builder, loc, yielded);
  scope = inner.parent;
  builder.restoreInsertionPoint(outerIp);
  SmallVector<Type> types;
  for (Value v : yielded)
    types.push_back(v.getType());
  auto region = CheckpointOp::create(builder, loc, types, inner.outerValues,
                                     builder.getStringAttr(calleePath),
                                     CheckpointPolicyAttr());
  region.getBody().push_back(body.release());
  region->setAttr(TraceDialect::kNameAttrName,
                  builder.getStringAttr(calleePath));
  callRegions.noteModuleRegion(region, callStack.size());
  callStack.pop_back();
  visitStack.pop_back();
  unsigned next = 0;
  std::function<void(TSValue &)> rebind = [&](TSValue &v) {
    if (v.kind == TSValue::Kind::Tensor) {
      // A buffer's value the module returns is still that buffer's, so an
      // in-place op on it outside updates the buffer.
      Value result = region.getResult(next);
      if (Value buffer = bufferOfUpdate.lookup(yielded[next]))
        bufferOfUpdate[result] = buffer;
      v.tensor = result;
      ++next;
    } else if (v.kind == TSValue::Kind::List)
      for (TSValue &e : v.elements)
        rebind(e);
  };
  for (TSValue &r : results)
    rebind(r);
  // The buffers' new values are now the region's results (and leave the
  // enclosing region in turn).
  for (auto [i, buffer] : llvm::enumerate(inner.updatedBuffers)) {
    Value result = region.getResult(numModuleResults + i);
    bufferUpdates[buffer] = result;
    bufferOfUpdate[result] = buffer;
    if (scope->parent && !llvm::is_contained(scope->updatedBuffers, buffer))
      scope->updatedBuffers.push_back(buffer);
  }
  return results;
}

bool Importer::tryFold(jit::Node *node) {
  if (!node->kind().is_aten() || node->isNondeterministic() ||
      node->outputs().empty())
    return false;
  // Factories stay ops (trace.full / trace.iota) rather than data in the IR.
  static const llvm::StringSet<llvm::MallocAllocator> factories = {
      "ones", "zeros", "full", "arange", "ones_like", "zeros_like",
      "full_like", "empty", "empty_like", "rand", "randn", "dropout"};
  if (factories.contains(node->kind().toUnqualString()))
    return false;
  jit::Stack stack;
  for (const jit::Value *in : node->inputs()) {
    auto it = env.find(in);
    if (it == env.end())
      return false;
    const TSValue &v = it->second;
    if (v.kind == TSValue::Kind::Const) {
      stack.push_back(v.constant);
    } else if (v.kind == TSValue::Kind::List) {
      std::optional<c10::IValue> list = typedList(v);
      if (!list)
        return false;
      stack.push_back(*list);
    } else {
      return false;
    }
  }
  try {
    jit::Operation op = node->getOperation();
    op(stack);
  } catch (const std::exception &) {
    return false; // evaluate as ops instead; errors surface there
  }
  if (stack.size() != node->outputs().size())
    return false;
  for (size_t i = 0; i < stack.size(); ++i) {
    if (stack[i].isTensor() && stack[i].toTensor().numel() > (1 << 16))
      return false;
    env[node->output(i)] = TSValue::ofConst(stack[i]);
  }
  return true;
}

SmallVector<CallInstance>
Importer::checkpointCallsOf(const jit::Node *node,
                            const c10::optional<jit::SourceRange> &generated,
                            bool stack) {
  if (node->kind().is_aten()) {
    // Read with its debug info, a traced node has its Python stack and a
    // scripted one its Python source; without, a node only has its place in
    // the archive's own code (code/__torch__/...).
    ++atenOps;
    bool archiveCode = true;
    if (generated && generated->source())
      if (auto file = generated->source()->filename())
        archiveCode = StringRef(*file).starts_with("code/");
    atenOpsWithoutDebugInfo += !stack && archiveCode;
  }
  if (!generated || !stack)
    return {};
  std::string text = generated->text().str();
  auto cached = callsOfStack.find(text);
  if (cached == callsOfStack.end())
    cached = callsOfStack
                 .try_emplace(text, findCheckpointCalls(parseStack(text)))
                 .first;
  SmallVector<CallInstance> chain;
  unsigned depth = visitStack.size();
  for (const CheckpointCallFrame &call : cached->second) {
    if (call.fromWrapper)
      continue; // the CheckpointWrapper's region already
    // The call site runs in the method call `moduleCallsInside` above the
    // node's (clamped: a module called outside TorchScript's hierarchy adds
    // a frame and no method call).
    unsigned site = depth - std::min(depth, call.moduleCallsInside);
    CallInstance c;
    c.call = callRegions.internCall(call);
    c.siteVisit = site > 0 ? visitStack[site - 1] : 0;
    c.entered = site < depth ? visitStack[site] : 0;
    c.siteDepth = site;
    chain.push_back(c);
  }
  return chain;
}

void Importer::importNode(jit::Node *node, const std::string &path) {
  bool stack = false;
  c10::optional<jit::SourceRange> range = recordedRange(node, &stack);
  tb.setLoc(locationOf(range, path));
  currentCalls.clear();
  if (options.checkpointCalls)
    currentCalls = checkpointCallsOf(node, range, stack);
  currentPath = path;
  tb.setErrorSuffix(path.empty() ? "" : " [module '" + path + "']");
  c10::Symbol kind = node->kind();
  std::string kindName = kind.toQualString();

  if (kind == c10::prim::Constant) {
    auto value = jit::toIValue(node->output());
    env[node->output()] = TSValue::ofConst(value ? *value : c10::IValue());
    return;
  }
  if (kind == c10::prim::GetAttr) {
    TSValue &obj = lookup(node->input(0));
    if (obj.kind != TSValue::Kind::Module)
      fail("prim::GetAttr on a value that is not a module");
    std::string name = node->s(c10::Symbol::attr("name"));
    c10::IValue attr = obj.module().attr(name);
    // checkpoint_wrapper's inner module adds nothing to a readable path.
    std::string child = name == "_checkpoint_wrapped_module" ? obj.path
                        : obj.path.empty()                  ? name
                                                            : obj.path + "." + name;
    if (attr.isObject()) {
      env[node->output()] =
          TSValue::ofModule(jit::Module(attr.toObject()), child);
    } else if (attr.isTensor()) {
      auto it = parameterArgs.find(attr.toTensor().unsafeGetTensorImpl());
      // A buffer the step has written reads as its new value (a module
      // called twice sees its first call's update, as in PyTorch).
      env[node->output()] =
          it != parameterArgs.end()
              ? TSValue::ofTensor(currentBuffer(it->second))
              : TSValue::ofConst(attr); // a tensor attribute, not registered
    } else {
      env[node->output()] = TSValue::ofConst(attr);
    }
    return;
  }
  if (kind == c10::prim::CallMethod) {
    std::vector<TSValue> results = callMethod(node, path);
    for (size_t i = 0; i < node->outputs().size(); ++i)
      env[node->output(i)] = results.at(i);
    return;
  }
  if (kind == c10::prim::ListConstruct || kind == c10::prim::TupleConstruct) {
    std::vector<TSValue> elems;
    for (const jit::Value *in : node->inputs())
      elems.push_back(lookup(in));
    env[node->output()] = TSValue::ofList(std::move(elems));
    return;
  }
  if (kind == c10::prim::ListUnpack || kind == c10::prim::TupleUnpack) {
    TSValue list = lookup(node->input(0));
    std::vector<TSValue> elems;
    if (list.kind == TSValue::Kind::List) {
      elems = list.elements;
    } else if (list.kind == TSValue::Kind::Const &&
               (list.constant.isList() || list.constant.isTuple())) {
      for (const c10::IValue &e :
           list.constant.isList() ? list.constant.toListRef()
                                  : list.constant.toTupleRef().elements())
        elems.push_back(TSValue::ofConst(e));
    } else {
      fail(kindName + " of a value that is not a list");
    }
    if (elems.size() != node->outputs().size())
      fail(kindName + ": " + Twine(elems.size()) + " elements, " +
           Twine(node->outputs().size()) + " outputs");
    for (size_t i = 0; i < elems.size(); ++i)
      env[node->output(i)] = elems[i];
    return;
  }
  if (kind == c10::prim::TupleIndex || kind == c10::aten::__getitem__) {
    TSValue list = lookup(node->input(0));
    TSValue &idx = lookup(node->input(1));
    if (list.kind == TSValue::Kind::List && idx.kind == TSValue::Kind::Const &&
        idx.constant.isInt()) {
      int64_t i = idx.constant.toInt();
      int64_t n = list.elements.size();
      if (i < -n || i >= n)
        fail(kindName + ": index " + Twine(i) + " out of range");
      env[node->output()] = list.elements[i < 0 ? i + n : i];
      return;
    }
  }
  if (kind == c10::prim::NumToTensor || kind == c10::aten::Int ||
      kind == c10::aten::Float || kind == c10::aten::Bool ||
      kind == c10::aten::ScalarImplicit || kind == c10::aten::IntImplicit ||
      kind == c10::aten::FloatImplicit) {
    TSValue &in = lookup(node->input(0));
    if (in.kind != TSValue::Kind::Const) {
      // Name the control flow the number steers, if any.
      for (const jit::Use &use : node->output()->uses())
        if (use.user->kind() == c10::prim::If ||
            use.user->kind() == c10::prim::Loop)
          fail("data-dependent control flow is not supported: " +
               Twine(use.user->kind().toQualString()) +
               " depends on tensor data through " + kindName);
      fail(kindName + " reads a number from tensor data: data-dependent "
                      "values are not supported");
    }
    if (kind == c10::prim::NumToTensor) {
      // A number known at compile time, as the 0-d tensor it is in torch.
      Scalar s = scalarOf(in.constant);
      env[node->output()] = TSValue::ofConst(
          s.kind == Scalar::Kind::Float ? at::scalar_tensor(s.f, at::kDouble)
          : s.kind == Scalar::Kind::Bool
              ? at::scalar_tensor(bool(s.i), at::kBool)
              : at::scalar_tensor(s.i, at::kLong));
      return;
    }
    if (tryFold(node))
      return;
    env[node->output()] = in;
    return;
  }
  if (kind == c10::aten::size || kind == c10::aten::dim ||
      kind == c10::Symbol::aten("numel")) {
    TSValue &in = lookup(node->input(0));
    if (in.kind == TSValue::Kind::Tensor) {
      ArrayRef<int64_t> shape = TensorBuilder::typeOf(in.tensor).getShape();
      if (kind == c10::aten::dim) {
        env[node->output()] = TSValue::ofConst(int64_t(shape.size()));
      } else if (kind == c10::Symbol::aten("numel")) {
        int64_t n = 1;
        for (int64_t d : shape)
          n *= d;
        env[node->output()] = TSValue::ofConst(n);
      } else if (node->inputs().size() == 1) {
        std::vector<TSValue> dims;
        for (int64_t d : shape)
          dims.push_back(TSValue::ofConst(d));
        env[node->output()] = TSValue::ofList(std::move(dims));
      } else {
        int64_t d = intArg(node, "dim");
        int64_t nd = tb.normalizeDim(d, shape.size());
        if (nd < 0)
          throw ImportError();
        env[node->output()] = TSValue::ofConst(shape[nd]);
      }
      return;
    }
  }
  if (kind == c10::prim::PythonOp) {
    // torch.jit.save refuses these ("Could not export Python function
    // call"), but an archive written otherwise may hold one.
    auto *python = static_cast<jit::PythonOp *>(node);
    fail("prim::PythonOp: a call of the Python autograd.Function '" +
         python->name() +
         "', which TorchScript cannot run and trace-import cannot import; "
         "for torch.utils.checkpoint's reentrant CheckpointFunction, call "
         "checkpoint(..., use_reentrant=False)");
  }
  if (kind == c10::prim::If || kind == c10::prim::Loop)
    fail("data-dependent control flow (" + kindName +
         ") is not supported: trace the model with torch.jit.trace, or keep "
         "the branch outside the compiled step");
  if (kind == c10::prim::device || kind == c10::prim::dtype) {
    env[node->output()] = TSValue::ofConst(c10::IValue());
    if (kind == c10::prim::dtype) {
      TSValue &in = lookup(node->input(0));
      if (in.kind == TSValue::Kind::Tensor) {
        Type t = TensorBuilder::typeOf(in.tensor).getElementType();
        c10::ScalarType st =
            t.isF32()    ? c10::ScalarType::Float
            : t.isF64()  ? c10::ScalarType::Double
            : t.isF16()  ? c10::ScalarType::Half
            : t.isBF16() ? c10::ScalarType::BFloat16
            : t.isInteger(1) ? c10::ScalarType::Bool
            : t.isInteger(32) ? c10::ScalarType::Int
                              : c10::ScalarType::Long;
        env[node->output()] = TSValue::ofConst(int64_t(st));
      }
    }
    return;
  }
  if (kind.is_aten()) {
    if (tryFold(node))
      return;
    importAten(node);
    return;
  }
  fail("unsupported op " + describe(node) + " in module '" + path + "'");
}

//===----------------------------------------------------------------------===//
// aten ops
//===----------------------------------------------------------------------===//

void Importer::importAten(jit::Node *node) {
  static const llvm::StringMap<AtenHandler> table = atenTable();
  std::string name = node->kind().toUnqualString();
  const c10::FunctionSchema *schema = node->maybeSchema();
  // An overload's own handler (`add.Tensor`), else the operator's.
  auto handler = [&](const std::string &key) -> AtenHandler {
    if (schema && !schema->overload_name().empty())
      if (auto it = table.find(key + "." + schema->overload_name());
          it != table.end())
        return it->second;
    auto it = table.find(key);
    return it == table.end() ? nullptr : it->second;
  };
  if (AtenHandler h = handler(name))
    return (this->*h)(node, name);
  // In-place variants (add_, relu_, hardswish_): the schema says the op
  // writes its first argument. They act on values a traced graph no longer
  // reads (the tracer rebinds later uses to the op's output), so they
  // import as the operator they are a variant of. Other mutations (copy_,
  // fill_, index_put_) have no out-of-place operator here and stay
  // unsupported.
  // A module buffer written in place (num_batches_tracked.add_(1)) outlives
  // the graph: its new value is a result of the function.
  if (schema && !schema->arguments().empty() &&
      schema->arguments()[0].alias_info() &&
      schema->arguments()[0].alias_info()->isWrite() && name.size() > 1 &&
      name.back() == '_' && name[name.size() - 2] != '_') {
    std::string base = name.substr(0, name.size() - 1);
    if (AtenHandler h = handler(base)) {
      Value buffer = bufferArg(node, schema->arguments()[0].name().c_str());
      (this->*h)(node, base);
      if (buffer)
        updateBuffer(node, buffer, lookup(node->output()).tensor);
      return;
    }
  }
  fail("unsupported op " + describe(node));
}

llvm::StringMap<Importer::AtenHandler> Importer::atenTable() {
  llvm::StringMap<AtenHandler> table;
  for (ArrayRef<AtenEntry> family :
       {elementwiseAtenOps(), nnAtenOps(), reductionsAtenOps(),
        shapeAtenOps(), creationAtenOps(), convAtenOps()})
    for (const AtenEntry &entry : family)
      if (!table.try_emplace(entry.name, entry.handler).second)
        llvm::report_fatal_error(llvm::Twine("aten::") + entry.name +
                                 " has two handlers");
  return table;
}

//===----------------------------------------------------------------------===//
// Entry
//===----------------------------------------------------------------------===//

OwningOpRef<ModuleOp> Importer::run(jit::Module &root, StringRef path) {
  if (!options.checkpointModules.empty()) {
    checkpointRegex.emplace("^(" + options.checkpointModules + ")$");
    std::string err;
    if (!checkpointRegex->isValid(err)) {
      emitError(UnknownLoc::get(ctx))
          << "invalid --checkpoint-modules regex '"
          << options.checkpointModules << "': " << err;
      return nullptr;
    }
  }
  auto forward = root.find_method("forward");
  if (!forward) {
    emitError(UnknownLoc::get(ctx)) << "the module has no forward method";
    return nullptr;
  }
  std::shared_ptr<jit::Graph> graph = forward->graph();
  Location fileLoc = FileLineColLoc::get(ctx, path, 0, 0);

  OwningOpRef<ModuleOp> module = ModuleOp::create(fileLoc);
  auto body = std::make_unique<Block>();
  entry = body.get();
  Scope top{entry, nullptr, ""};
  scope = &top;
  builder.setInsertionPointToEnd(entry);
  auto nameAttr = [&](StringRef name) {
    return builder.getDictionaryAttr({builder.getNamedAttr(
        TraceDialect::kNameAttrName, builder.getStringAttr(name))});
  };

  // Forward inputs, by name or position.
  std::vector<TSValue> args;
  auto inputs = graph->inputs();
  std::vector<bool> used(options.inputs.size(), false);
  for (size_t i = 1; i < inputs.size(); ++i) {
    std::string name = StringRef(inputs[i]->debugName()).split('.').first.str();
    if (!inputs[i]->type()->cast<c10::TensorType>()) {
      emitError(fileLoc) << "forward input '" << name
                         << "' is not a tensor (" << inputs[i]->type()->str()
                         << "); only tensor inputs are supported";
      return nullptr;
    }
    const InputSpec *spec = nullptr;
    for (size_t s = 0; s < options.inputs.size() && !spec; ++s)
      if (!used[s] && options.inputs[s].name == name)
        spec = &options.inputs[s], used[s] = true;
    for (size_t s = 0; s < options.inputs.size() && !spec; ++s)
      if (!used[s] && options.inputs[s].name.empty())
        spec = &options.inputs[s], used[s] = true;
    if (!spec) {
      std::string all;
      for (size_t k = 1; k < inputs.size(); ++k)
        all += (k > 1 ? ", " : "") +
               StringRef(inputs[k]->debugName()).split('.').first.str();
      emitError(fileLoc) << "no --input-shape for forward input '" << name
                         << "' (forward takes: " << all
                         << "); give e.g. --input-shape " << name
                         << "=2x16xf32";
      return nullptr;
    }
    auto type = RankedTensorType::get(spec->shape, parseDType(ctx, spec->dtype));
    args.push_back(TSValue::ofTensor(entry->addArgument(type, fileLoc)));
    argAttrs.push_back(nameAttr(name));
  }
  for (size_t s = 0; s < options.inputs.size(); ++s)
    if (!used[s]) {
      emitError(fileLoc) << "--input-shape '" << options.inputs[s].name
                         << "' names no input of forward";
      return nullptr;
    }

  // Parameters, then buffers, named by module path; tied weights once.
  auto addTensorArg = [&](const std::string &rawName, const at::Tensor &t,
                          StringRef role) {
    if (parameterArgs.count(t.unsafeGetTensorImpl()))
      return;
    std::string name = rawName;
    for (size_t pos; (pos = name.find("_checkpoint_wrapped_module.")) !=
                     std::string::npos;)
      name.erase(pos, strlen("_checkpoint_wrapped_module."));
    SmallVector<int64_t> shape(t.sizes().begin(), t.sizes().end());
    auto type = RankedTensorType::get(shape, elementTypeOf(t.scalar_type()));
    parameterArgs[t.unsafeGetTensorImpl()] = entry->addArgument(type, fileLoc);
    argAttrs.push_back(builder.getDictionaryAttr(
        {builder.getNamedAttr(TraceDialect::kNameAttrName,
                              builder.getStringAttr(name)),
         builder.getNamedAttr("trace.role", builder.getStringAttr(role))}));
  };
  for (const auto &p : root.named_parameters(/*recurse=*/true))
    addTensorArg(p.name, p.value, "parameter");
  for (const auto &p : root.named_buffers(/*recurse=*/true)) {
    addTensorArg(p.name, p.value, "buffer");
    Value arg = parameterArgs.lookup(p.value.unsafeGetTensorImpl());
    bufferNames.try_emplace(arg, cast<StringAttr>(argAttrs.back().get(
                                     TraceDialect::kNameAttrName))
                                     .str());
  }

  std::vector<TSValue> results;
  try {
    results = importGraph(*graph, root, "", std::move(args));
  } catch (const ImportError &) {
    return nullptr;
  }

  SmallVector<Value> returned;
  std::function<bool(const TSValue &)> flatten = [&](const TSValue &v) {
    if (v.kind == TSValue::Kind::List) {
      for (const TSValue &e : v.elements)
        if (!flatten(e))
          return false;
      return true;
    }
    try {
      returned.push_back(asTensor(v, graph->outputs()[0]));
    } catch (const ImportError &) {
      return false;
    }
    return true;
  };
  for (const TSValue &r : results)
    if (!flatten(r))
      return nullptr;
  // The buffers the graph wrote, after its results.
  size_t numResults = returned.size();
  for (auto [buffer, updated] : bufferUpdates)
    returned.push_back(updated);
  func::ReturnOp::create(builder, fileLoc, returned);

  SmallVector<Type> argTypes(entry->getArgumentTypes());
  auto fnType = builder.getFunctionType(argTypes, ValueRange(returned).getTypes());
  builder.setInsertionPointToEnd(module->getBody());
  auto func = func::FuncOp::create(builder, fileLoc, "forward", fnType);
  func.getBody().push_back(body.release());
  func.setAllArgAttrs(argAttrs);
  for (auto [i, update] : llvm::enumerate(bufferUpdates))
    func.setResultAttrs(
        numResults + i,
        builder.getDictionaryAttr(
            {builder.getNamedAttr(TraceDialect::kNameAttrName,
                                  builder.getStringAttr(
                                      bufferNames.lookup(update.first))),
             builder.getNamedAttr(
                 TraceDialect::kRoleAttrName,
                 builder.getStringAttr(TraceDialect::kBufferUpdateRole))}));
  if (!debugInfoError.empty())
    emitWarning(fileLoc)
        << "'" << path
        << "' has corrupt debug info (" << debugInfoError
        << "): imported without the ops' source locations"
        << (options.checkpointCalls
                ? ", and torch.utils.checkpoint calls in it cannot be "
                  "recognised (only CheckpointWrapper modules and "
                  "--checkpoint-modules make regions)"
                : "");
  else if (options.checkpointCalls) {
    if (atenOpsWithoutDebugInfo > 0)
      emitWarning(fileLoc)
          << "'" << path << "' records no Python stack for "
          << (atenOpsWithoutDebugInfo == atenOps
                  ? std::string("its ops")
                  : std::to_string(atenOpsWithoutDebugInfo) + " of its " +
                        std::to_string(atenOps) + " aten ops")
          << " (its debug info, the archive's code/**.debug_pkl records, "
             "is missing): "
             "torch.utils.checkpoint calls among them cannot be "
             "recognised, so only CheckpointWrapper modules and "
             "--checkpoint-modules make regions there";
  }
  if (options.checkpointCalls)
    callRegions.form(func, options.reportCheckpointCalls);
  // A torch.utils.checkpoint call around a buffer's update (the region's
  // result): as for module regions, the step updates it once.
  auto ret = cast<func::ReturnOp>(func.getBody().front().getTerminator());
  for (auto [i, update] : llvm::enumerate(bufferUpdates))
    if (auto region =
            ret.getOperand(numResults + i).getDefiningOp<CheckpointOp>())
      if (regionBufferUpdates.insert(update.first).second &&
          !firstRegionUpdate)
        firstRegionUpdate = {region.getLoc(), bufferNames.lookup(update.first),
                             region.getName().value_or("").str()};
  if (firstRegionUpdate) {
    size_t others = regionBufferUpdates.size() - 1;
    emitWarning(firstRegionUpdate->loc)
        << "buffer '" << firstRegionUpdate->buffer << "'"
        << (others ? " and " + std::to_string(others) + " more" : "")
        << " updated inside checkpoint regions (the first in '"
        << firstRegionUpdate->region
        << "'): the compiled step updates each once per step, as the model "
           "without checkpoints does, where PyTorch's checkpoint updates it "
           "again when it recomputes the region";
  }
  if (failed(verify(*module)))
    return nullptr;
  return module;
}

/// The first pickle record of the archive with a length or memo index it
/// cannot have (findImpossiblePickleClaim), as "record 'NAME': ...", or
/// nothing. An archive LibTorch's reader cannot open is left to jit::load
/// to report.
std::optional<std::string> findCorruptPickleRecord(const std::string &path) {
  try {
    caffe2::serialize::PyTorchStreamReader reader(path);
    for (const std::string &name : reader.getAllRecords()) {
      if (!StringRef(name).ends_with("pkl"))
        continue;
      auto [bytes, size] = reader.getRecord(name);
      if (std::optional<std::string> problem = findImpossiblePickleClaim(
              static_cast<const uint8_t *>(bytes.get()), size))
        return "record '" + name + "': " + *problem;
    }
  } catch (const std::exception &) {
  }
  return std::nullopt;
}

} // namespace mlir::trace::ts

using namespace mlir::trace::ts;

OwningOpRef<ModuleOp>
mlir::trace::importTorchScript(MLIRContext *context, StringRef path,
                               const TorchScriptImportOptions &options) {
  context->loadDialect<TraceDialect, func::FuncDialect>();
  Location fileLoc = FileLineColLoc::get(context, path, 0, 0);
  {
    std::ifstream probe(path.str(), std::ios::binary);
    if (!probe) {
      emitError(fileLoc) << "cannot open '" << path << "': "
                         << std::strerror(errno);
      return nullptr;
    }
    char magic[4] = {0, 0, 0, 0};
    probe.read(magic, 4);
    if (!(magic[0] == 'P' && magic[1] == 'K')) {
      emitError(fileLoc) << "'" << path
                         << "' is not a TorchScript file (not a zip archive; "
                            "save the model with torch.jit.save)";
      return nullptr;
    }
  }
  // Pickle lengths before LibTorch's unpickler allocates them (PickleScan.h
  // says why).
  if (std::optional<std::string> problem = findCorruptPickleRecord(path.str())) {
    emitError(fileLoc) << "cannot load '" << path
                       << "' as TorchScript (corrupted archive): " << *problem;
    return nullptr;
  }
  // The first line that says something: some of LibTorch's messages start
  // with an empty line.
  auto reportLoadError = [&](const std::string &what) {
    StringRef first = StringRef(what).ltrim().split('\n').first;
    emitError(fileLoc) << "cannot load '" << path
                       << "' as TorchScript (truncated, or not saved with "
                          "torch.jit.save): "
                       << first;
  };
  // Some archives crash LibTorch 1.13 inside jit::load, where no check of
  // ours reaches: a class whose source fails to parse raises an error whose
  // source highlight re-reads the debug info (SIGSEGV), the class-constant
  // parser reads out of bounds on another (seen under ASan), and the
  // recursive-descent parser of the code records overflows the stack on
  // deeply nested parentheses. A forked copy of this process loads the file
  // first; only when it survives does this process load it.
  ChildOutcome probe = runInChildProcess([&](int outputFd) {
    try {
      (void)jit::load(path.str());
    } catch (const std::exception &e) {
      writeToFd(outputFd, e.what());
      return 1;
    }
    return 0;
  });
  switch (probe.kind) {
  case ChildOutcome::Kind::Exited:
    if (probe.status != 0) {
      reportLoadError(probe.output);
      return nullptr;
    }
    break;
  case ChildOutcome::Kind::Killed:
    emitError(fileLoc) << "cannot load '" << path
                       << "' as TorchScript (corrupted archive, or code "
                          "nested too deeply): LibTorch's loader crashed on "
                          "it in a child process ("
                       << probe.describeCrash() << ")";
    return nullptr;
  case ChildOutcome::Kind::NotStarted:
    emitWarning(fileLoc) << "loading '" << path
                         << "' without a crash guard: " << probe.output;
    break;
  }
  std::optional<jit::Module> root;
  try {
    root = jit::load(path.str());
  } catch (const std::exception &e) {
    reportLoadError(e.what());
    return nullptr;
  }
  try {
    Importer importer(context, options);
    return importer.run(*root, path);
  } catch (const std::exception &e) {
    // LibTorch throws c10::Error on malformed graphs or attributes.
    std::string what = e.what();
    emitError(fileLoc) << "import failed: "
                       << StringRef(what).split('\n').first;
    return nullptr;
  } catch (const ImportError &) {
    return nullptr;
  }
}
