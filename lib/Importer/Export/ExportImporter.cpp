//===- ExportImporter.cpp - torch.export archives (.pt2) to trace ---------===//
//
// Reads the archive `torch.export.save` writes with LibTorch's own code:
// caffe2's PyTorchStreamReader opens the zip, the names of its records are
// those of torch/csrc/export/pt2_archive_constants.h, and the program's
// JSON is parsed with nlohmann into LibTorch's generated
// torch::_export::ExportedProgram. Then walks the program's graph, one
// Core ATen node at a time, emitting trace ops through TensorBuilder as the
// TorchScript importer does, so both give the same function.
//
// LibTorch's C++ has no deserializer from that struct to a program it could
// run (torch.export.load is Python; nativert's loader needs the operators'
// kernels and would run them, not describe them), so the walk reads the
// struct itself: a node's target names its operator, its arguments come by
// schema name (Arguments.cpp), its outputs name the values later nodes
// read. Symbolic sizes are bound from the input shapes (Shapes.cpp); the
// operators' handlers are in Aten*.cpp, the regions in
// CheckpointRegions.cpp.
//
// LibTorch and nlohmann report errors by throwing: every call into them is
// inside importExportedProgram's try block, and no exception reaches MLIR
// code or leaves the library.
//
//===----------------------------------------------------------------------===//

#include "Importer.h"

#include "trace/Dialect/Trace/IR/TraceDialect.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"

#include <caffe2/serialize/inline_container.h>
#include <c10/util/Exception.h>
#include <nlohmann/json.hpp>
#include <torch/csrc/export/pt2_archive_constants.h>

#include <cerrno>
#include <cstring>
#include <fstream>

using namespace mlir;
using namespace mlir::trace;
using namespace mlir::trace::pt2;

namespace spec = torch::_export::archive_spec;

// The major version of torch.export's schema this LibTorch writes. LibTorch's
// C++ carries the schema's types (generated_serialization_types.h) but not
// its version, which lives in Python, torch._export.serde.schema's
// SCHEMA_VERSION (from schema.yaml, the source both are generated from): the
// build reads it from the wheel that ships this LibTorch
// (lib/Importer/Export/CMakeLists.txt). A major version changes what fields
// mean, so an archive of another major is refused rather than misread.
#ifndef TRACE_EXPORT_SCHEMA_MAJOR
#error "TRACE_EXPORT_SCHEMA_MAJOR must be defined by the build"
#endif
static constexpr int64_t kSchemaMajor = TRACE_EXPORT_SCHEMA_MAJOR;

std::string mlir::trace::pt2::stripWrapperSegments(StringRef dotted) {
  std::string out;
  for (StringRef part : llvm::split(dotted, '.')) {
    if (part == "_checkpoint_wrapped_module")
      continue;
    if (!out.empty())
      out += '.';
    out += part.str();
  }
  return out;
}

/// `models/{}.json` with `{}` replaced by `name`.
static std::string formatRecord(std::string_view format,
                                const std::string &name) {
  std::string out(format);
  size_t at = out.find("{}");
  if (at != std::string::npos)
    out.replace(at, 2, name);
  return out;
}

//===----------------------------------------------------------------------===//
// Errors
//===----------------------------------------------------------------------===//

void Importer::fail(const Twine &message) {
  InFlightDiagnostic diag = emitError(tb.getLoc()) << message;
  if (!currentPath.empty())
    diag << " [module '" << currentPath << "']";
  diag.report();
  throw ImportError();
}

//===----------------------------------------------------------------------===//
// Types, the seed, tensor constants
//===----------------------------------------------------------------------===//

Type Importer::elementTypeOf(ex::ScalarType type) {
  switch (type) {
  case ex::ScalarType::FLOAT:
    return builder.getF32Type();
  case ex::ScalarType::DOUBLE:
    return builder.getF64Type();
  case ex::ScalarType::HALF:
    return builder.getF16Type();
  case ex::ScalarType::BFLOAT16:
    return builder.getBF16Type();
  case ex::ScalarType::LONG:
    return builder.getI64Type();
  case ex::ScalarType::INT:
    return builder.getI32Type();
  case ex::ScalarType::SHORT:
    return builder.getI16Type();
  case ex::ScalarType::CHAR:
  case ex::ScalarType::BYTE:
    return builder.getI8Type();
  case ex::ScalarType::BOOL:
    return builder.getI1Type();
  default:
    fail("unsupported dtype " + Twine(std::string(ex::printEnum(type))));
  }
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

Value Importer::tensorConstant(const std::string &name,
                               const std::string &target) {
  // The constants' config (PayloadConfig: where each is stored, its
  // metadata), then the record with its bytes.
  std::string configName =
      formatRecord(spec::CONSTANTS_CONFIG_FILENAME_FORMAT, modelName);
  if (!archive.hasRecord(configName))
    fail("the archive has no record '" + configName + "' for tensor constant '" +
         target + "'");
  auto [configData, configSize] = archive.getRecord(configName);
  ex::PayloadConfig config =
      nlohmann::json::parse(static_cast<const char *>(configData.get()),
                            static_cast<const char *>(configData.get()) +
                                configSize)
          .get<ex::PayloadConfig>();
  auto it = config.get_config().find(target);
  if (it == config.get_config().end() || !it->second.get_tensor_meta())
    fail("tensor constant '" + target + "' is not in '" + configName + "'");
  const ex::PayloadMeta &meta = it->second;
  if (meta.get_use_pickle())
    fail("tensor constant '" + target +
         "' is pickled (a tensor subclass): unsupported");
  const ex::TensorMeta &tensor = *meta.get_tensor_meta();
  Type element = elementTypeOf(tensor.get_dtype());
  SmallVector<int64_t> shape = shapeOf(name, tensor);
  // Only a dense row-major constant is read as is.
  int64_t expected = 1;
  const std::vector<ex::SymInt> &strides = tensor.get_strides();
  for (int64_t d = int64_t(shape.size()) - 1; d >= 0; --d) {
    if (size_t(d) < strides.size() && shape[d] != 1 &&
        (strides[d].tag() != ex::SymInt::Tag::AS_INT ||
         strides[d].get_as_int() != expected))
      fail("tensor constant '" + target + "' is not contiguous: unsupported");
    expected *= shape[d];
  }
  if (tensor.get_storage_offset().tag() != ex::SymInt::Tag::AS_INT ||
      tensor.get_storage_offset().get_as_int() != 0)
    fail("tensor constant '" + target + "' has a storage offset: unsupported");
  std::string record = std::string(spec::CONSTANTS_DIR) + meta.get_path_name();
  if (!archive.hasRecord(record))
    fail("the archive has no record '" + record + "' for tensor constant '" +
         target + "'");
  auto [data, size] = archive.getRecord(record);
  int64_t width = element.isInteger(1)
                      ? 1
                      : std::max<int64_t>(1, element.getIntOrFloatBitWidth() / 8);
  if (int64_t(size) < expected * width)
    fail("record '" + record + "' holds " + Twine(size) + " bytes, tensor "
         "constant '" + target + "' needs " + Twine(expected * width));
  auto type = RankedTensorType::get(shape, element);
  const char *bytes = static_cast<const char *>(data.get());
  DenseElementsAttr attr;
  if (element.isInteger(1)) {
    SmallVector<bool> flags;
    for (int64_t i = 0; i < expected; ++i)
      flags.push_back(bytes[i] != 0);
    attr = DenseElementsAttr::get(type, flags);
  } else {
    attr = DenseElementsAttr::getFromRawBuffer(
        type, ArrayRef<char>(bytes, expected * width));
  }
  // A splat reads as trace.full, as in the TorchScript importer.
  if (attr.isSplat() && expected > 0) {
    Scalar s = Scalar::ofInt(0);
    if (isa<FloatType>(element))
      s = Scalar::ofFloat(
          attr.getSplatValue<APFloat>().convertToDouble());
    else if (element.isInteger(1))
      s = Scalar::ofBool(attr.getSplatValue<bool>());
    else
      s = Scalar::ofInt(attr.getSplatValue<APInt>().getSExtValue());
    if (!element.isBF16() && !element.isF16())
      return check(tb.full(shape, element, s));
  }
  return ConstantOp::create(builder, tb.getLoc(), cast<ElementsAttr>(attr));
}

//===----------------------------------------------------------------------===//
// Node metadata: module stack, checkpoint markers, location
//===----------------------------------------------------------------------===//

/// A frame of the file of torch itself (`.../site-packages/torch/...`), not
/// the user's.
static bool isTorchFrame(StringRef file) {
  return file.contains("-packages/torch/") || file.starts_with("torch/");
}

void Importer::readMetadata(const ex::Node &node, NodeInfo &info) {
  const auto &metadata = node.get_metadata();
  // nn_module_stack: `key,path,class;key,path,class`, outermost first; the
  // path sits between the first and the last comma.
  if (auto it = metadata.find("nn_module_stack"); it != metadata.end()) {
    info.hasModuleStack = true;
    SmallVector<StringRef> entries;
    StringRef(it->second).split(entries, ';', -1, /*KeepEmpty=*/false);
    for (StringRef entry : entries) {
      size_t first = entry.find(','), last = entry.rfind(',');
      if (first == StringRef::npos || first == last)
        continue;
      ModuleFrame frame;
      frame.key = entry.take_front(first).str();
      frame.path = stripWrapperSegments(
          entry.slice(first + 1, last));
      frame.className = entry.drop_front(last + 1).str();
      if (frame.key == "L__self__" || entry.slice(first + 1, last).empty())
        continue; // the root module
      info.modules.push_back(std::move(frame));
    }
  }
  // custom: a JSON dict; trace_mlir's export writes its checkpoint calls
  // under `trace_mlir.checkpoint`, outermost first.
  if (auto it = metadata.find("custom");
      it != metadata.end() && options.checkpointCalls) {
    nlohmann::json custom =
        nlohmann::json::parse(it->second, nullptr, /*allow_exceptions=*/false);
    if (custom.is_discarded())
      fail("node '" + node.get_name().value_or("?") +
           "': its custom metadata is not JSON");
    if (custom.is_object() && custom.contains("trace_mlir.checkpoint")) {
      const nlohmann::json &calls = custom.at("trace_mlir.checkpoint");
      if (!calls.is_array())
        fail("node '" + node.get_name().value_or("?") +
             "': 'trace_mlir.checkpoint' in its custom metadata is not a "
             "list");
      for (const nlohmann::json &call : calls) {
        if (!call.is_object() || !call.contains("id") ||
            !call.at("id").is_number_integer() || !call.contains("name") ||
            !call.at("name").is_string())
          fail("node '" + node.get_name().value_or("?") +
               "': a 'trace_mlir.checkpoint' entry is not {\"id\": INT, "
               "\"name\": STR}: " + call.dump());
        info.calls.emplace_back(call.at("id").get<int64_t>(),
                                call.at("name").get<std::string>());
      }
    }
  }
  currentPath = info.modules.empty() ? "" : info.modules.back().path;
  info.loc = locationOf(node, currentPath);
}

Location Importer::locationOf(const ex::Node &node,
                              const std::string &modulePath) {
  // stack_trace is Python's traceback text, innermost frame last:
  //   File "m.py", line 12, in forward\n    code\n  File ...
  // The location is the innermost frame of the user's code (a frame of
  // torch's own files says less), wrapped in the module path as the
  // TorchScript importer does.
  Location loc = UnknownLoc::get(ctx);
  const auto &metadata = node.get_metadata();
  if (auto it = metadata.find("stack_trace"); it != metadata.end()) {
    std::optional<std::pair<std::string, int64_t>> innermost, user;
    SmallVector<StringRef> lines;
    StringRef(it->second).split(lines, '\n');
    for (StringRef line : lines) {
      StringRef rest = line.trim();
      if (!rest.consume_front("File \""))
        continue;
      size_t quote = rest.find("\", line ");
      if (quote == StringRef::npos)
        continue;
      StringRef file = rest.take_front(quote);
      StringRef number =
          rest.drop_front(quote + strlen("\", line ")).split(',').first;
      int64_t lineNo;
      if (number.trim().getAsInteger(10, lineNo))
        continue;
      innermost = {file.str(), lineNo};
      if (!isTorchFrame(file))
        user = innermost;
    }
    if (auto frame = user ? user : innermost)
      loc = FileLineColLoc::get(ctx, frame->first, frame->second, 1);
    // Code PyTorch generated (`<eval_with_key>.3`): the node came out of a
    // graph export inlined, with that graph's metadata, not its own.
    if (innermost && StringRef(innermost->first).starts_with("<eval_with_key>"))
      ++generatedNodes;
  }
  return NameLoc::get(
      StringAttr::get(ctx, modulePath.empty() ? "<model>" : modulePath), loc);
}

//===----------------------------------------------------------------------===//
// Graph walk
//===----------------------------------------------------------------------===//

void Importer::importNode(const ex::Node &node) {
  static const llvm::StringMap<Handler> table = opTable();
  const std::string &target = node.get_target();
  tb.setLoc(nodes[currentNode].loc);
  tb.setErrorSuffix(currentPath.empty()
                        ? ""
                        : " [module '" + currentPath + "']");
  if (importSymbolic(node, target))
    return;
  // An element of a multi-output node's list (the serializer folds most of
  // these into the node's outputs, but not every list).
  if (target == "_operator.getitem") {
    const std::vector<ex::NamedArgument> &inputs = node.get_inputs();
    if (inputs.size() != 2 ||
        inputs[0].get_arg().tag() != ex::Argument::Tag::AS_TENSORS)
      fail(target + ": expected a list of tensors and an index");
    const auto &list = inputs[0].get_arg().get_as_tensors();
    int64_t index = intArg(node, inputs[1].get_name());
    if (index < 0)
      index += list.size();
    if (index < 0 || index >= int64_t(list.size()))
      fail(target + ": index " + Twine(index) + " out of range for " +
           Twine(list.size()) + " tensors");
    return setResult(node, valueNamed(list[index].get_name()));
  }
  // Run-time checks of sizes and metadata PyTorch inserts: every size is
  // static here once the input shapes are bound (and checked against the
  // program's ranges), so they have nothing left to check. _assert_async
  // checks data (one_hot's indices in range): the compiled step has no
  // host round trip to raise from, and an index out of range reads a
  // clamped element, as every gather here does.
  if (target == "torch.ops.aten._assert_scalar.default" ||
      target == "torch.ops.aten._assert_tensor_metadata.default" ||
      target == "torch.ops.aten._assert_async.msg" ||
      target == "torch.ops.aten.sym_constrain_range_for_size.default")
    return;
  auto it = table.find(target);
  if (it == table.end()) {
    // Ops whose output shape (or a Python number) comes from the data: a
    // compiled step has static shapes and no host round trip.
    static const llvm::StringSet<> dataDependent = {
        "torch.ops.aten.nonzero.default",
        "torch.ops.aten._local_scalar_dense.default",
        "torch.ops.aten.masked_select.default",
        "torch.ops.aten.unique.default",
        "torch.ops.aten._unique2.default",
        "torch.ops.aten.unique_dim.default",
        "torch.ops.aten.unique_consecutive.default",
        "torch.ops.aten.nonzero_static.default"};
    if (dataDependent.contains(target))
      fail("op '" + target + "' has an output shape or value known only "
           "from the data; a compiled step has static shapes (compute a "
           "mask with torch.where instead)");
    fail("unsupported op '" + target + "'");
  }
  // torch.ops.aten.add.Tensor -> add
  StringRef op = StringRef(target);
  op.consume_front("torch.ops.aten.");
  op = op.rsplit('.').first;
  (this->*(it->second))(node, op);
}

llvm::StringMap<Importer::Handler> Importer::opTable() {
  llvm::StringMap<Handler> table;
  for (ArrayRef<Entry> family : {elementwiseOps(), nnOps(), shapeOps(),
                                 reductionOps(), creationOps(), convOps()})
    for (const Entry &entry : family)
      if (!table.try_emplace(entry.target, entry.handler).second)
        llvm::report_fatal_error(llvm::Twine(entry.target) +
                                 " has two handlers");
  return table;
}

/// The tensor names an argument reads.
static void collectTensorNames(const ex::Argument &a,
                               SmallVectorImpl<std::string> &names) {
  using T = ex::Argument::Tag;
  switch (a.tag()) {
  case T::AS_TENSOR:
    names.push_back(a.get_as_tensor().get_name());
    break;
  case T::AS_TENSORS:
    for (const ex::TensorArgument &t : a.get_as_tensors())
      names.push_back(t.get_name());
    break;
  case T::AS_OPTIONAL_TENSOR:
    if (a.get_as_optional_tensor().tag() ==
        ex::OptionalTensorArgument::Tag::AS_TENSOR)
      names.push_back(a.get_as_optional_tensor().get_as_tensor().get_name());
    break;
  case T::AS_OPTIONAL_TENSORS:
    for (const ex::OptionalTensorArgument &t : a.get_as_optional_tensors())
      if (t.tag() == ex::OptionalTensorArgument::Tag::AS_TENSOR)
        names.push_back(t.get_as_tensor().get_name());
    break;
  default:
    break;
  }
}

OwningOpRef<ModuleOp> Importer::run(const ex::ExportedProgram &exported) {
  program = &exported;
  const ex::GraphModule &graphModule = exported.get_graph_module();
  graph = &graphModule.get_graph();
  const ex::GraphSignature &signature = graphModule.get_signature();
  Location fileLoc = FileLineColLoc::get(ctx, path, 0, 0);
  tb.setLoc(fileLoc);

  if (!options.checkpointModules.empty()) {
    checkpointRegex.emplace("^(" + options.checkpointModules + ")$");
    std::string err;
    if (!checkpointRegex->isValid(err)) {
      emitError(fileLoc) << "invalid --checkpoint-modules regex '"
                         << options.checkpointModules << "': " << err;
      return nullptr;
    }
  }

  const std::vector<ex::Node> &graphNodes = graph->get_nodes();
  nodes.assign(graphNodes.size(), NodeInfo{{}, {}, fileLoc, false});
  nodeResults.assign(graphNodes.size(), {});
  for (auto [i, node] : llvm::enumerate(graphNodes))
    for (const ex::NamedArgument &a : node.get_inputs()) {
      SmallVector<std::string> names;
      collectTensorNames(a.get_arg(), names);
      for (const std::string &name : names)
        usersOf[name].push_back(i);
    }

  // The signature: what each placeholder of the graph is.
  std::vector<std::string> userInputs;
  std::vector<std::pair<std::string, std::string>> parameters, buffers,
      constants; // (placeholder, target)
  for (auto [i, input] : llvm::enumerate(signature.get_input_specs())) {
    using T = ex::InputSpec::Tag;
    switch (input.tag()) {
    case T::USER_INPUT: {
      const ex::Argument &a = input.get_user_input().get_arg();
      if (a.tag() != ex::Argument::Tag::AS_TENSOR) {
        emitError(fileLoc) << "user input " << userInputs.size()
                           << " of the program is "
                           << ex::printEnum(a.tag())
                           << ", not a tensor: only tensor inputs are "
                              "supported";
        return nullptr;
      }
      userInputs.push_back(a.get_as_tensor().get_name());
      break;
    }
    case T::PARAMETER:
      parameters.emplace_back(input.get_parameter().get_arg().get_name(),
                              input.get_parameter().get_parameter_name());
      break;
    case T::BUFFER:
      buffers.emplace_back(input.get_buffer().get_arg().get_name(),
                           input.get_buffer().get_buffer_name());
      break;
    case T::TENSOR_CONSTANT:
      constants.emplace_back(
          input.get_tensor_constant().get_arg().get_name(),
          input.get_tensor_constant().get_tensor_constant_name());
      break;
    default:
      emitError(fileLoc) << "input " << i << " of the program is a "
                         << ex::printEnum(input.tag())
                         << " input: unsupported (only user inputs, "
                            "parameters, buffers and tensor constants)";
      return nullptr;
    }
  }
  for (const std::string &name : userInputs)
    if (!graph->get_tensor_values().count(name)) {
      emitError(fileLoc) << "the program has no tensor metadata for input '"
                         << name << "'";
      return nullptr;
    }
  if (failed(bindSymbols(*graph, userInputs)))
    return nullptr;

  OwningOpRef<ModuleOp> module = ModuleOp::create(fileLoc);
  auto body = std::make_unique<Block>();
  entry = body.get();
  builder.setInsertionPointToEnd(entry);
  auto attrs = [&](StringRef name, StringRef role) {
    SmallVector<NamedAttribute> list = {builder.getNamedAttr(
        TraceDialect::kNameAttrName, builder.getStringAttr(name))};
    if (!role.empty())
      list.push_back(builder.getNamedAttr(TraceDialect::kRoleAttrName,
                                          builder.getStringAttr(role)));
    return builder.getDictionaryAttr(list);
  };

  SmallVector<std::pair<std::string, Value>> returned; // (buffer name, value)
  SmallVector<Value> results;
  try {
    auto addArg = [&](const std::string &name) {
      auto it = graph->get_tensor_values().find(name);
      if (it == graph->get_tensor_values().end())
        fail("the program has no tensor metadata for '" + name + "'");
      auto type = RankedTensorType::get(shapeOf(name, it->second),
                                        elementTypeOf(it->second.get_dtype()));
      Value v = entry->addArgument(type, fileLoc);
      values[name] = v;
      return v;
    };
    // The user inputs, then parameters, then buffers: the TorchScript
    // importer's order, where the signature puts the user inputs last.
    for (const std::string &name : userInputs) {
      addArg(name);
      argAttrs.push_back(attrs(name, ""));
    }
    for (const auto &[name, target] : parameters) {
      addArg(name);
      argAttrs.push_back(attrs(stripWrapperSegments(target), "parameter"));
    }
    for (const auto &[name, target] : buffers) {
      addArg(name);
      argAttrs.push_back(attrs(stripWrapperSegments(target), "buffer"));
    }
    for (const auto &[name, target] : constants)
      values[name] = tensorConstant(name, target);

    // The graph's outputs, by kind.
    const std::vector<ex::OutputSpec> &outputSpecs = signature.get_output_specs();
    SmallVector<std::pair<std::string, std::string>> userOutputs,
        bufferOutputs; // (value name, buffer name)
    for (auto [i, output] : llvm::enumerate(outputSpecs)) {
      using T = ex::OutputSpec::Tag;
      switch (output.tag()) {
      case T::USER_OUTPUT: {
        const ex::Argument &a = output.get_user_output().get_arg();
        if (a.tag() != ex::Argument::Tag::AS_TENSOR)
          fail("output " + Twine(i) + " of the program is " +
               std::string(ex::printEnum(a.tag())) +
               ", not a tensor: only tensor outputs are supported");
        userOutputs.emplace_back(a.get_as_tensor().get_name(), "");
        break;
      }
      case T::LOSS_OUTPUT:
        userOutputs.emplace_back(output.get_loss_output().get_arg().get_name(),
                                 "");
        break;
      case T::BUFFER_MUTATION:
        bufferOutputs.emplace_back(
            output.get_buffer_mutation().get_arg().get_name(),
            stripWrapperSegments(output.get_buffer_mutation().get_buffer_name()));
        break;
      default:
        fail("output " + Twine(i) + " of the program is a " +
             std::string(ex::printEnum(output.tag())) +
             " output: unsupported (the program writes a parameter or a "
             "user input, or is a joint graph)");
      }
    }
    for (const auto &[name, buffer] : userOutputs)
      usersOf[name].push_back(kProgramOutput);
    for (const auto &[name, buffer] : bufferOutputs)
      usersOf[name].push_back(kBufferOutput);

    for (auto [i, node] : llvm::enumerate(graphNodes)) {
      currentNode = i;
      currentPath.clear();
      tb.setLoc(fileLoc);
      readMetadata(node, nodes[i]);
      importNode(node);
    }
    currentNode = ~0u;
    currentPath.clear();
    tb.setLoc(fileLoc);
    tb.setErrorSuffix("");
    for (const auto &[name, buffer] : userOutputs)
      results.push_back(valueNamed(name));
    for (const auto &[name, buffer] : bufferOutputs)
      returned.emplace_back(buffer, valueNamed(name));
  } catch (const ImportError &) {
    return nullptr;
  }

  size_t numResults = results.size();
  for (const auto &[buffer, value] : returned)
    results.push_back(value);
  func::ReturnOp::create(builder, fileLoc, results);
  SmallVector<Type> argTypes(entry->getArgumentTypes());
  auto fnType =
      builder.getFunctionType(argTypes, ValueRange(results).getTypes());
  builder.setInsertionPointToEnd(module->getBody());
  auto func = func::FuncOp::create(builder, fileLoc, "forward", fnType);
  func.getBody().push_back(body.release());
  func.setAllArgAttrs(argAttrs);
  for (auto [i, update] : llvm::enumerate(returned))
    func.setResultAttrs(
        numResults + i,
        attrs(update.first, TraceDialect::kBufferUpdateRole));

  // PyTorch's export wraps the stretches of a training graph between two
  // grad-mode switches in set_grad_enabled regions, and run_decompositions
  // inlines them with the region's module stack for every node: a
  // non-reentrant checkpoint (CheckpointWrapper's) switches grad mode in
  // its saved-tensor hook, so an `add` after a checkpointed block reads as
  // inside it. Such nodes have generated code on their stack.
  if (generatedNodes > 0)
    emitWarning(fileLoc)
        << generatedNodes << " of the program's nodes were recorded in code "
           "PyTorch generated (<eval_with_key>): their module paths (op "
           "names, CheckpointWrapper and --checkpoint-modules regions) may be "
           "wrong: PyTorch's export gives every node between two grad-mode "
           "switches (a checkpointed module switches under grad) one module "
           "stack; export under torch.no_grad()";
  nameModuleOutputs(*graph);
  if (failed(formRegions(func)))
    return nullptr;

  // A buffer updated inside a region: as in the TorchScript importer, the
  // compiled step updates it once per step (PyTorch's recomputation would
  // update it again); said once.
  auto ret = cast<func::ReturnOp>(func.getBody().front().getTerminator());
  SmallVector<std::pair<std::string, CheckpointOp>> inRegions;
  for (auto [i, update] : llvm::enumerate(returned))
    if (auto region =
            ret.getOperand(numResults + i).getDefiningOp<CheckpointOp>())
      inRegions.emplace_back(update.first, region);
  if (!inRegions.empty()) {
    auto [buffer, region] = inRegions.front();
    size_t others = inRegions.size() - 1;
    emitWarning(region.getLoc())
        << "buffer '" << buffer << "'"
        << (others ? " and " + std::to_string(others) + " more" : "")
        << " updated inside checkpoint regions (the first in '"
        << region.getName().value_or("") << "'): the compiled step updates "
        << "each once per step, as the model without checkpoints does, where "
           "PyTorch's checkpoint updates it again when it recomputes the "
           "region";
  }
  if (failed(verify(*module)))
    return nullptr;
  return module;
}

//===----------------------------------------------------------------------===//
// Entry
//===----------------------------------------------------------------------===//

/// The first sentence of an exception's message (c10::Error's without its
/// backtrace): LibTorch's zip errors go on with advice about checkpoints.
static std::string firstSentence(const std::exception &e) {
  const char *what = e.what();
  if (const auto *c10 = dynamic_cast<const c10::Error *>(&e))
    what = c10->what_without_backtrace();
  StringRef line = StringRef(what).ltrim().split('\n').first;
  return line.split(". ").first.str();
}

OwningOpRef<ModuleOp>
mlir::trace::importExportedProgram(MLIRContext *context, StringRef path,
                                   const TorchScriptImportOptions &options) {
  context->loadDialect<TraceDialect, func::FuncDialect>();
  Location fileLoc = FileLineColLoc::get(context, path, 0, 0);
  {
    std::ifstream probe(path.str(), std::ios::binary);
    if (!probe) {
      emitError(fileLoc) << "cannot open '" << path
                         << "': " << std::strerror(errno);
      return nullptr;
    }
  }
  // Which step failed, for the message.
  std::string stage = "reading its zip directory";
  try {
    caffe2::serialize::PyTorchStreamReader archive(path.str());
    auto readRecord = [&](const std::string &name) -> std::optional<std::string> {
      if (!archive.hasRecord(name))
        return std::nullopt;
      auto [data, size] = archive.getRecord(name);
      return std::string(static_cast<const char *>(data.get()), size);
    };
    stage = "reading its record '" + std::string(spec::ARCHIVE_FORMAT_PATH) +
            "'";
    std::optional<std::string> format =
        readRecord(std::string(spec::ARCHIVE_FORMAT_PATH));
    if (!format || StringRef(*format).trim() != StringRef(spec::ARCHIVE_FORMAT_VALUE)) {
      emitError(fileLoc)
          << "'" << path << "' is not a torch.export archive (its record '"
          << spec::ARCHIVE_FORMAT_PATH << "' "
          << (format ? "is '" + StringRef(*format).trim().str() + "'"
                     : std::string("is missing"))
          << ", expected '" << spec::ARCHIVE_FORMAT_VALUE
          << "'); save the program with torch.export.save";
      return nullptr;
    }
    // The layout of the archive's records: a later layout may move them.
    std::optional<std::string> version =
        readRecord(std::string(spec::ARCHIVE_VERSION_PATH));
    if (version &&
        StringRef(*version).trim() != StringRef(spec::ARCHIVE_VERSION_VALUE)) {
      emitError(fileLoc) << "'" << path << "' is a version "
                         << StringRef(*version).trim()
                         << " torch.export archive; this importer reads "
                            "version "
                         << spec::ARCHIVE_VERSION_VALUE
                         << " (the LibTorch it is built with)";
      return nullptr;
    }
    // torch.export.save writes one program, named `model`; an archive of
    // several (torch._inductor's package) is read only when it has one.
    std::string modelName = "model";
    if (!archive.hasRecord(formatRecord(spec::MODELS_FILENAME_FORMAT,
                                        modelName))) {
      std::vector<std::string> models;
      for (const std::string &record : archive.getAllRecords())
        if (StringRef(record).starts_with(spec::MODELS_DIR) &&
            StringRef(record).ends_with(".json"))
          models.push_back(StringRef(record)
                               .drop_front(spec::MODELS_DIR.size())
                               .drop_back(strlen(".json"))
                               .str());
      if (models.size() != 1) {
        emitError(fileLoc) << "'" << path << "' holds "
                           << (models.empty() ? std::string("no program")
                                              : std::to_string(models.size()) +
                                                    " programs")
                           << " under '" << spec::MODELS_DIR
                           << "'; expected one";
        return nullptr;
      }
      modelName = models.front();
    }
    std::string record = formatRecord(spec::MODELS_FILENAME_FORMAT, modelName);
    stage = "reading its record '" + record + "'";
    std::optional<std::string> text = readRecord(record);
    stage = "parsing its record '" + record + "'";
    nlohmann::json json = nlohmann::json::parse(*text);
    // The version first: a program of another major may not parse.
    if (!json.is_object() || !json.contains("schema_version") ||
        !json.at("schema_version").is_object() ||
        !json.at("schema_version").contains("major") ||
        !json.at("schema_version").at("major").is_number_integer()) {
      emitError(fileLoc) << "'" << path << "': record '" << record
                         << "' has no schema_version";
      return nullptr;
    }
    int64_t major = json.at("schema_version").at("major").get<int64_t>();
    if (major != kSchemaMajor) {
      emitError(fileLoc)
          << "'" << path << "' was written with torch.export schema version "
          << major << "."
          << json.at("schema_version").value("minor", int64_t(0))
          << ", this importer reads version " << kSchemaMajor
          << ".x (the LibTorch it is built with); export it again with that "
             "PyTorch";
      return nullptr;
    }
    ex::ExportedProgram program = json.get<ex::ExportedProgram>();
    stage = "importing its program";
    Importer importer(context, options, path, archive, modelName);
    return importer.run(program);
  } catch (const ImportError &) {
    return nullptr;
  } catch (const std::exception &e) {
    // c10::Error from the zip reader (a truncated or corrupt archive),
    // nlohmann's exceptions from a record that is not the schema's JSON,
    // std::bad_variant_access from a union the schema leaves unset.
    emitError(fileLoc) << "'" << path
                       << "' is not a readable torch.export archive "
                          "(truncated, corrupt, or not written by "
                          "torch.export.save); "
                       << stage << ": " << firstSentence(e);
    return nullptr;
  } catch (...) {
    emitError(fileLoc) << "'" << path
                       << "' is not a readable torch.export archive; "
                       << stage << ": an unknown exception";
    return nullptr;
  }
}
