//===- CheckpointRegions.cpp - module calls and checkpoint regions --------===//
//
// A module call (prim::CallMethod) is followed into the callee's graph
// rather than inlined up front, so every op knows the module it came from.
// A call of a `CheckpointWrapper` (or of a module matching
// --checkpoint-modules by path or class name) is imported into a block of
// its own and wrapped in a `trace.checkpoint` region named by its module
// path; any other module's single tensor result is named after the module.
// The `torch.utils.checkpoint` calls a node ran under are read from its
// recorded Python stack (CheckpointCalls.h), and their regions formed after
// the walk.
//
//===----------------------------------------------------------------------===//

#include "Importer.h"

#include "trace/Dialect/Trace/IR/TraceDialect.h"

#include "llvm/ADT/StringExtras.h"

#include <functional>

using namespace mlir;
using namespace mlir::trace;

namespace mlir::trace::ts {

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

} // namespace mlir::trace::ts
