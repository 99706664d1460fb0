//===- CInterface.cpp - C functions over a lowered training step ----------===//
//
// collectCInterface reads what to export off the IR on tensors;
// addCWrappers writes the exported functions into the lowered module as
// LLVM dialect, so the library is one object from one module and nothing
// of the ABI lives in generated C text; printCHeader documents them.
//
//===----------------------------------------------------------------------===//

#include "trace/Target/CAPI/CAPI.h"

#include "trace/Dialect/Trace/IR/TraceDialect.h"
#include "trace/Dialect/Trace/IR/TraceOps.h"
#include "trace/Dialect/Trace/Transforms/Autodiff.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::trace;
using namespace mlir::trace::capi;

std::string capi::cIdentifier(StringRef name) {
  std::string out;
  for (char c : name)
    out += (llvm::isAlnum(c) || c == '_') ? c : '_';
  if (out.empty() || llvm::isDigit(out[0]))
    out = "_" + out;
  return out;
}

namespace {

/// C storage type of an element type; empty when the C API has none.
StringRef cElementType(Type type) {
  if (type.isF32())
    return "float";
  if (type.isF64())
    return "double";
  if (type.isF16() || type.isBF16())
    return "uint16_t";
  if (type.isInteger(64))
    return "int64_t";
  if (type.isInteger(32))
    return "int32_t";
  if (type.isInteger(1))
    return "uint8_t";
  return "";
}

/// Bytes of one element in a lowered buffer (i1 takes a byte).
int64_t elementBytes(Type type) {
  if (type.isInteger(1))
    return 1;
  return type.getIntOrFloatBitWidth() / 8;
}

/// "8x32xf32".
std::string shapeText(RankedTensorType type) {
  std::string s;
  llvm::raw_string_ostream os(s);
  for (int64_t d : type.getShape())
    os << d << "x";
  os << type.getElementType();
  return s;
}

/// The C view of `func`'s arguments or results; fails at `func` on a type
/// the C API cannot take.
LogicalResult collectSlots(func::FuncOp func, bool results,
                           llvm::StringSet<> &used, std::vector<Slot> &slots) {
  TypeRange types = results ? TypeRange(func.getResultTypes())
                            : TypeRange(func.getArgumentTypes());
  for (auto [i, type] : llvm::enumerate(types)) {
    auto tensor = dyn_cast<RankedTensorType>(type);
    if (!tensor || !tensor.hasStaticShape() ||
        cElementType(tensor.getElementType()).empty())
      return func.emitError()
             << (results ? "result " : "argument ") << i << " has type "
             << type
             << "; the C API takes statically shaped tensors of f32, f64, "
                "f16, bf16, i1, i32, i64";
    auto nameAttr = results ? func.getResultAttrOfType<StringAttr>(
                                  i, TraceDialect::kNameAttrName)
                            : func.getArgAttrOfType<StringAttr>(
                                  i, TraceDialect::kNameAttrName);
    Slot slot;
    slot.name = nameAttr ? nameAttr.getValue().str()
                         : (results ? "result" : "arg") + std::to_string(i);
    std::string base = (results ? "out_" : "") + cIdentifier(slot.name);
    slot.cname = base;
    for (int n = 2; !used.insert(slot.cname).second; ++n)
      slot.cname = base + "_" + std::to_string(n);
    slot.type = tensor;
    if (results)
      if (auto role = func.getResultAttrOfType<StringAttr>(
              i, TraceDialect::kRoleAttrName))
        slot.bufferUpdate = role.getValue() == TraceDialect::kBufferUpdateRole;
    slots.push_back(std::move(slot));
  }
  return success();
}

/// The values @f_fwd saves (its results after f's) are the arguments of
/// @f_bwd before the cotangents that are not f's own arguments
/// (trace.forward_argument), in the same order; with `donate` they become
/// the library's and @f_bwd's arguments that take them are donated.
LogicalResult assignOwnership(func::FuncOp primal, Function &fwd,
                              Function &bwd, bool donate) {
  size_t numResults = primal.getNumResults();
  // A cotangent per float result, but for buffer updates (autodiff's rule).
  size_t numCotangents = 0;
  for (auto [i, t] : llvm::enumerate(primal.getResultTypes())) {
    auto tensor = dyn_cast<RankedTensorType>(t);
    numCotangents += tensor && isa<FloatType>(tensor.getElementType()) &&
                     !TraceDialect::isBufferUpdate(primal, i);
  }
  if (fwd.results.size() < numResults ||
      bwd.args.size() < numCotangents)
    return primal.emitError() << "@" << fwd.symbol << " and @" << bwd.symbol
                              << " do not extend @" << primal.getSymName()
                              << "'s signature";
  auto bwdFunc = primal->getParentOfType<ModuleOp>().lookupSymbol<func::FuncOp>(
      bwd.symbol);
  size_t next = numResults;
  for (size_t i = 0, e = bwd.args.size() - numCotangents; i < e; ++i) {
    if (bwdFunc.getArgAttr(i, kForwardArgumentAttrName))
      continue;
    if (next == fwd.results.size() ||
        fwd.results[next].type != bwd.args[i].type)
      return bwdFunc.emitError()
             << "argument " << i << " of @" << bwd.symbol
             << " is neither a value @" << fwd.symbol << " saves, in order, "
             << "nor an argument of @" << primal.getSymName();
    Slot &result = fwd.results[next++];
    result.saved = bwd.args[i].saved = true;
    if (donate) {
      result.ownership = Ownership::Saved;
      bwd.args[i].ownership = Ownership::Donated;
    }
  }
  if (next != fwd.results.size())
    return bwdFunc.emitError() << "@" << bwd.symbol << " does not take every "
                               << "value @" << fwd.symbol << " saves";
  return success();
}

} // namespace

void capi::markDonatedArguments(ModuleOp module, const Interface &api) {
  UnitAttr unit = UnitAttr::get(module.getContext());
  for (const Function &fn : api.functions) {
    auto func = module.lookupSymbol<func::FuncOp>(fn.symbol);
    for (auto [i, slot] : llvm::enumerate(fn.args))
      if (slot.ownership == Ownership::Donated)
        func.setArgAttr(i, TraceDialect::kDonatedAttrName, unit);
  }
}

FailureOr<Interface> capi::collectCInterface(ModuleOp module, StringRef name,
                                             Memory memory, bool donate) {
  Interface api;
  api.name = name.str();
  api.memory = memory;
  for (auto primal : module.getOps<func::FuncOp>()) {
    auto derivatives = primal->getAttrOfType<DerivativesAttr>(
        TraceDialect::kDerivativesAttrName);
    if (!derivatives)
      continue;
    struct Part {
      FlatSymbolRefAttr symbol;
      StringRef role;
    } parts[] = {
        {derivatives.getFwd(),
         "forward: results, then the values saved for backward"},
        {derivatives.getBwd(),
         "backward: saved values and result cotangents -> gradients"},
        {derivatives.getGrad(), "joint forward + backward: arguments and "
                                "result cotangents -> results and gradients"},
    };
    for (const Part &part : parts) {
      auto func = module.lookupSymbol<func::FuncOp>(part.symbol);
      if (!func || func.isExternal())
        return primal.emitError()
               << "no function " << part.symbol << " with a body, which "
               << TraceDialect::kDerivativesAttrName << " names";
      Function fn;
      fn.symbol = func.getSymName().str();
      fn.cname = cIdentifier(api.name + "_" + fn.symbol);
      fn.role = part.role.str();
      llvm::StringSet<> used;
      if (failed(collectSlots(func, /*results=*/false, used, fn.args)) ||
          failed(collectSlots(func, /*results=*/true, used, fn.results)))
        return failure();
      api.functions.push_back(std::move(fn));
    }
    if (failed(assignOwnership(primal, api.functions[api.functions.size() - 3],
                               api.functions[api.functions.size() - 2],
                               donate)))
      return failure();
  }
  for (const Function &fn : api.functions)
    for (const Slot &slot : fn.results)
      if (slot.ownership == Ownership::Saved)
        api.releaseCName = cIdentifier(api.name + "_release");
  if (memory == Memory::CUDADevice)
    api.streamCName = cIdentifier(api.name + "_set_stream");
  if (api.functions.empty())
    return module.emitError()
           << "no differentiated function to export: no function carries "
           << TraceDialect::kDerivativesAttrName << " (run trace-autodiff)";
  return api;
}

//===----------------------------------------------------------------------===//
// Wrappers
//===----------------------------------------------------------------------===//

namespace {

/// Builds the wrappers of one module.
class WrapperBuilder {
public:
  WrapperBuilder(ModuleOp module, Memory memory)
      : module(module), memory(memory), b(module.getContext()),
        ptr(LLVM::LLVMPointerType::get(module.getContext())),
        i64(IntegerType::get(module.getContext(), 64)) {}

  LogicalResult wrap(const Function &fn);
  /// `void name(void *saved)`: free(), or on the device
  /// trace_rt_cuda_free.
  LogicalResult addRelease(StringRef name);
  /// `void name(void *stream)`: calls trace_rt_cuda_use_stream.
  LogicalResult addSetStream(StringRef name);

private:
  /// `name` with type `type`: the module's declaration, or a new one.
  FailureOr<LLVM::LLVMFuncOp> declare(StringRef name,
                                      LLVM::LLVMFunctionType type) {
    if (auto existing = module.lookupSymbol<LLVM::LLVMFuncOp>(name)) {
      if (existing.getFunctionType() != type)
        return existing.emitError()
               << "@" << name << " has type " << existing.getFunctionType()
               << "; the C wrappers call it as " << type;
      return existing;
    }
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToEnd(module.getBody());
    return LLVM::LLVMFuncOp::create(b, module.getLoc(), name, type);
  }

  /// An i64 constant of the wrapper being built, made once in its entry
  /// block.
  Value constant(Location loc, int64_t value) {
    Value &c = constants[value];
    if (!c) {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(entryBlock);
      c = LLVM::ConstantOp::create(b, loc, i64, b.getI64IntegerAttr(value));
    }
    return c;
  }

  ModuleOp module;
  Memory memory;
  OpBuilder b;
  Type ptr, i64;
  Block *entryBlock = nullptr;
  llvm::DenseMap<int64_t, Value> constants;
};

LogicalResult WrapperBuilder::wrap(const Function &fn) {
  MLIRContext *ctx = module.getContext();
  auto callee = module.lookupSymbol<LLVM::LLVMFuncOp>(fn.symbol);
  if (!callee || callee.isExternal())
    return module.emitError() << "no lowered function @" << fn.symbol
                              << " to wrap as " << fn.cname;
  Location loc = callee.getLoc();

  // The lowered signature the tensors give: each memref argument expanded
  // into (allocated, aligned, offset, sizes..., strides...), then each
  // result as one more such memref the call writes in place (both
  // pipelines lower results to out-parameters).
  auto expand = [&](ArrayRef<Slot> slots, SmallVectorImpl<Type> &params) {
    for (const Slot &slot : slots) {
      params.append({ptr, ptr, i64});
      params.append(2 * slot.type.getRank(), i64);
    }
  };
  SmallVector<Type> params;
  expand(fn.args, params);
  expand(fn.results, params);
  auto writingInPlace =
      LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(ctx), params);
  if (callee.getFunctionType() != writingInPlace)
    return callee.emitError()
           << "lowered to " << callee.getFunctionType()
           << ", not the memref calling convention of its tensors with "
              "out-params ("
           << writingInPlace << ")";

  auto voidType = LLVM::LLVMVoidType::get(ctx);
  bool anySaved = llvm::any_of(fn.results, [](const Slot &slot) {
    return slot.ownership == Ownership::Saved;
  });
  // Saved values are the library's: host memory from malloc, device memory
  // from the CUDA runtime's stream-ordered pool (on the caller's stream).
  FailureOr<LLVM::LLVMFuncOp> allocate = LLVM::LLVMFuncOp();
  if (anySaved)
    allocate = declare(
        memory == Memory::CUDADevice ? "trace_rt_cuda_alloc" : "malloc",
        LLVM::LLVMFunctionType::get(ptr, {i64}));
  if (failed(allocate))
    return failure();

  // void NAME_f(const T *arg..., T *result...)
  SmallVector<Type> cParams(fn.args.size() + fn.results.size(), ptr);
  b.setInsertionPointToEnd(module.getBody());
  auto wrapper = LLVM::LLVMFuncOp::create(
      b, loc, fn.cname, LLVM::LLVMFunctionType::get(voidType, cParams));
  Block *entry = wrapper.addEntryBlock(b);
  b.setInsertionPointToStart(entry);
  entryBlock = entry;
  constants.clear();
  ValueRange inputs = entry->getArguments().take_front(fn.args.size());
  ValueRange outputs = entry->getArguments().drop_front(fn.args.size());

  // The call, on dense row-major descriptors of the caller's buffers.
  Value zero = constant(loc, 0);
  SmallVector<Value> operands;
  auto pass = [&](Value pointer, const Slot &slot) {
    ArrayRef<int64_t> shape = slot.type.getShape();
    operands.append({pointer, pointer, zero});
    for (int64_t size : shape)
      operands.push_back(constant(loc, size));
    int64_t stride = 1;
    SmallVector<Value> strides(shape.size());
    for (int64_t d = int64_t(shape.size()) - 1; d >= 0; --d) {
      strides[d] = constant(loc, stride);
      stride *= shape[d];
    }
    llvm::append_range(operands, strides);
  };
  for (auto [input, arg] : llvm::zip_equal(inputs, fn.args))
    pass(input, arg);
  // A saved value goes into a buffer of the library's own, whose pointer
  // the caller's `T **` receives.
  auto newBuffer = [&](Value slot, const Slot &result) -> Value {
    Value bytes = constant(
        loc, std::max<int64_t>(result.type.getNumElements() *
                                   elementBytes(result.type.getElementType()),
                               1));
    Value buffer =
        LLVM::CallOp::create(b, loc, *allocate, ValueRange{bytes}).getResult();
    LLVM::StoreOp::create(b, loc, buffer, slot);
    return buffer;
  };
  // The call writes every result into the caller's buffer (or a saved
  // value into the library's): nothing to copy, nothing to free.
  for (auto [output, result] : llvm::zip_equal(outputs, fn.results))
    pass(result.ownership == Ownership::Saved ? newBuffer(output, result)
                                              : output,
         result);
  LLVM::CallOp::create(b, loc, callee, operands);
  LLVM::ReturnOp::create(b, loc, ValueRange{});
  return success();
}

LogicalResult WrapperBuilder::addSetStream(StringRef name) {
  Location loc = module.getLoc();
  auto type =
      LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(module.getContext()),
                                  {ptr});
  FailureOr<LLVM::LLVMFuncOp> use = declare("trace_rt_cuda_use_stream", type);
  if (failed(use))
    return failure();
  b.setInsertionPointToEnd(module.getBody());
  auto setStream = LLVM::LLVMFuncOp::create(b, loc, name, type);
  Block *entry = setStream.addEntryBlock(b);
  b.setInsertionPointToStart(entry);
  LLVM::CallOp::create(b, loc, *use, entry->getArguments());
  LLVM::ReturnOp::create(b, loc, ValueRange{});
  return success();
}

LogicalResult WrapperBuilder::addRelease(StringRef name) {
  Location loc = module.getLoc();
  auto type =
      LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(module.getContext()),
                                  {ptr});
  FailureOr<LLVM::LLVMFuncOp> free = declare(
      memory == Memory::CUDADevice ? "trace_rt_cuda_free" : "free", type);
  if (failed(free))
    return failure();
  b.setInsertionPointToEnd(module.getBody());
  auto release = LLVM::LLVMFuncOp::create(b, loc, name, type);
  Block *entry = release.addEntryBlock(b);
  b.setInsertionPointToStart(entry);
  LLVM::CallOp::create(b, loc, *free, entry->getArguments());
  LLVM::ReturnOp::create(b, loc, ValueRange{});
  return success();
}

} // namespace

LogicalResult capi::addCWrappers(ModuleOp module, const Interface &api) {
  WrapperBuilder builder(module, api.memory);
  for (const Function &fn : api.functions) {
    if (module.lookupSymbol(fn.cname))
      return module.emitError() << "cannot add the C function " << fn.cname
                                << ": a symbol of that name exists";
    if (failed(builder.wrap(fn)))
      return failure();
  }
  for (const std::string &name : {api.releaseCName, api.streamCName}) {
    if (name.empty())
      continue;
    if (module.lookupSymbol(name))
      return module.emitError() << "cannot add the C function " << name
                                << ": a symbol of that name exists";
    if (failed(name == api.releaseCName ? builder.addRelease(name)
                                        : builder.addSetStream(name)))
      return failure();
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Header
//===----------------------------------------------------------------------===//

namespace {

/// The C declaration of `fn`, without the semicolon.
void printDeclaration(raw_ostream &os, const Function &fn) {
  os << "void " << fn.cname << "(";
  bool first = true;
  auto separator = [&] {
    if (!first)
      os << ", ";
    first = false;
  };
  for (const Slot &arg : fn.args) {
    separator();
    os << (arg.ownership == Ownership::Donated ? "" : "const ")
       << cElementType(arg.type.getElementType()) << " *" << arg.cname;
  }
  for (const Slot &result : fn.results) {
    separator();
    os << cElementType(result.type.getElementType())
       << (result.ownership == Ownership::Saved ? " **" : " *")
       << result.cname;
  }
  if (first)
    os << "void";
  os << ")";
}

} // namespace

void capi::printCHeader(raw_ostream &os, const Interface &api,
                        StringRef source) {
  bool cuda = api.memory == Memory::CUDADevice;
  std::string guard =
      "TRACE_COMPILED_" + StringRef(cIdentifier(api.name)).upper();
  os << "/* " << api.name << ".h: generated by trace-compile from " << source
     << " (--target=" << (cuda ? "cuda" : "cpu") << ").\n"
     << " *\n"
     << " * Each function takes one pointer per argument, then one per "
        "result,\n"
     << " * each to a dense row-major array of the documented shape and "
        "type.\n";
  if (cuda)
    os << " * All pointers are CUDA device pointers (cudaMalloc, or the "
          "primary\n"
       << " * context's cuMemAlloc) of device 0. A call returns when the "
          "results\n"
       << " * are written (it synchronizes). Its kernels run after work "
          "already\n"
       << " * queued on the legacy default stream (PyTorch's default "
          "stream), so\n"
       << " * inputs computed there need no synchronization first; "
       << api.streamCName << "\n"
       << " * puts them on another stream instead. Needs the CUDA\n"
       << " * driver (libcuda.so.1)\n"
       << " * and, for matmuls, cuBLAS (libcublas.so.13 or .12, loaded at "
          "the first\n"
       << " * matmul; the environment variable TRACE_CUBLAS names another "
          "file).\n"
       << " * The library's temporaries come from device 0's stream-ordered "
          "memory\n"
       << " * pool, which keeps what a call frees for the next one "
          "(cuMemPoolTrimTo\n"
       << " * gives it back).\n";
  else
    os << " * All pointers are host pointers.\n";
  // Both pipelines write each result into its buffer as kernels produce it
  // (buffer-results-to-out-params), on the GPU as on the CPU.
  os << " * Inputs are only read. Results are written during the call, not "
        "at its\n"
     << " * end: a result's buffer must not overlap an input's.\n";
  os << " * f16 and bf16 elements are their 16-bit patterns (uint16_t); i1 "
        "is one\n"
     << " * byte (0 or 1) per element. Results are written in place; the "
        "library\n"
     << " * allocates and frees its own temporaries.\n */\n"
     << "#ifndef " << guard << "\n#define " << guard << "\n\n"
     << "#include <stdint.h>\n\n#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n";
  if (!api.releaseCName.empty())
    os << "/* Ownership. " << api.name << "_*_fwd allocates each value it "
       << "saves for\n"
       << " * backward (\"saved\" below) and writes its pointer into the "
          "caller's\n"
       << " * T **: the caller owns it. Passing it to the matching _bwd (a "
          "\"donated\"\n"
       << " * argument) gives it back: _bwd frees it after its last read, "
          "so the\n"
       << " * caller must not read, write or free it after the call. A "
          "saved value\n"
       << " * that never reaches _bwd is freed with " << api.releaseCName
       << ".";
  if (!api.releaseCName.empty() && cuda)
    os << "\n * Saved values are device memory from the CUDA driver's "
          "stream-ordered\n"
       << " * pool (cuMemAllocAsync), allocated on the stream that\n"
       << " * " << api.streamCName << " names; _bwd frees each on its "
          "stream after its\n"
       << " * last read (cuMemFreeAsync), and " << api.releaseCName
       << " on the legacy\n"
       << " * default stream.";
  if (!api.releaseCName.empty())
    os << " */\n"
       << "void " << api.releaseCName << "(void *saved);\n\n";
  if (!api.streamCName.empty())
    os << "/* The stream (a CUstream of device 0's primary context, such "
          "as\n"
       << " * torch.cuda.current_stream().cuda_stream) that this thread's "
          "later\n"
       << " * calls queue their kernels, copies and allocations on, in "
          "order with\n"
       << " * the caller's work there. NULL, the default: a stream of the "
          "library's\n"
       << " * own per call, after the legacy default stream's work. */\n"
       << "void " << api.streamCName << "(void *stream);\n\n";
  for (const Function &fn : api.functions) {
    os << "/* @" << fn.symbol << ": " << fn.role << ".\n";
    for (const Slot &arg : fn.args)
      os << " *   "
         << (arg.ownership == Ownership::Donated ? "donated " : "in      ")
         << arg.cname << ": " << shapeText(arg.type) << "  (" << arg.name
         << ")\n";
    for (const Slot &result : fn.results)
      os << " *   "
         << (result.ownership == Ownership::Saved ? "saved   " : "out     ")
         << result.cname << ": " << shapeText(result.type) << "  ("
         << result.name
         << (result.bufferUpdate ? "; the buffer's new value" : "")
         << ")\n";
    os << " */\n";
    printDeclaration(os, fn);
    os << ";\n\n";
  }
  os << "#ifdef __cplusplus\n}\n#endif\n\n#endif /* " << guard << " */\n";
}

void capi::printJSONInterface(raw_ostream &os, const Interface &api) {
  llvm::json::OStream json(os, /*IndentSize=*/1);
  auto slot = [&](StringRef direction, const Slot &s) {
    json.object([&] {
      json.attribute("direction", direction);
      json.attribute("name", s.name);
      json.attributeArray("shape", [&] {
        for (int64_t d : s.type.getShape())
          json.value(d);
      });
      std::string element;
      llvm::raw_string_ostream(element) << s.type.getElementType();
      json.attribute("dtype", element);
      if (s.saved)
        json.attribute("saved", true);
      if (s.bufferUpdate)
        json.attribute("buffer_update", true);
    });
  };
  json.object([&] {
    json.attribute("name", api.name);
    json.attribute("memory",
                   api.memory == Memory::CUDADevice ? "cuda" : "host");
    if (!api.releaseCName.empty())
      json.attribute("release", api.releaseCName);
    if (!api.streamCName.empty())
      json.attribute("set_stream", api.streamCName);
    json.attributeArray("functions", [&] {
      for (const Function &fn : api.functions)
        json.object([&] {
          json.attribute("function", fn.symbol);
          json.attribute("symbol", fn.cname);
          json.attribute("role", fn.role);
          json.attributeArray("slots", [&] {
            for (const Slot &arg : fn.args)
              slot(arg.ownership == Ownership::Donated ? "donated" : "in",
                   arg);
            for (const Slot &result : fn.results)
              slot(result.ownership == Ownership::Saved ? "saved" : "out",
                   result);
          });
        });
    });
  });
  os << "\n";
}
