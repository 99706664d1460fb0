//===- GraphWalk.cpp - the graph walk and node dispatch -------------------===//
//
// Imports a method's graph node by node. The prim nodes (constants,
// attributes, lists and tuples, sizes, dtypes) are handled here, most as
// values known at compile time; prim::CallMethod follows the module call
// (CheckpointRegions.cpp); every other aten node is folded with LibTorch's
// own operator when its inputs are constants, else dispatched by name to
// its handler (Aten*.cpp) through the table the families' tables make.
//
//===----------------------------------------------------------------------===//

#include "Importer.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/ErrorHandling.h"

#include <torch/csrc/jit/ir/constants.h>

using namespace mlir;
using namespace mlir::trace;

namespace mlir::trace::ts {

//===----------------------------------------------------------------------===//
// Graph walk
//===----------------------------------------------------------------------===//

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

} // namespace mlir::trace::ts
