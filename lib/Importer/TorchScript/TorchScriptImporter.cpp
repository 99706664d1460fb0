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
// aten::size, their arithmetic, lists of them) are evaluated with LibTorch's
// own operator implementations, as TorchScript's constant propagation does;
// everything else becomes trace ops.
//
// This file holds the entry points: importTorchScript checks and loads the
// archive, and Importer::run makes `forward`'s function (its inputs from
// --input-shape, InputSpecs.cpp; its parameters and buffers, named by module
// path) and reports what the walk could not recognise. The walk itself is
// in GraphWalk.cpp, module calls and checkpoint regions in
// CheckpointRegions.cpp, a node's arguments in Arguments.cpp, values and
// buffer updates in Values.cpp, locations in Locations.cpp, and the aten
// operators' handlers in Aten*.cpp.
//
// LibTorch reports errors by throwing: every call into it is inside the
// try block of importTorchScript, and no exception reaches MLIR code.
//
//===----------------------------------------------------------------------===//

#include "Importer.h"
#include "PickleScan.h"

#include "trace/Dialect/Trace/IR/TraceDialect.h"
#include "trace/Support/ChildProcess.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"

#include <caffe2/serialize/inline_container.h>
#include <torch/csrc/jit/serialization/import.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <functional>

using namespace mlir;
using namespace mlir::trace;

namespace mlir::trace::ts {

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
