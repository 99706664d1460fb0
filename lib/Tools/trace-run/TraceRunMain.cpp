//===- TraceRunMain.cpp - execute a trace function on the CPU -------------===//
//
//   trace-run model.mlir [--entry=forward] [--arg NAME=FILE.npy]...
//             [--random-inputs=SEED] [--out-dir=DIR]
//             [--expect NAME=FILE.npy --rtol=R --atol=A] [--repeat=N]
//
// With --training-step, first runs the training-step pipeline trace-compile
// runs (trace-training-step: autodiff, remat, schedule, fuse), so
// @forward_grad, @forward_fwd and @forward_bwd are those trace-compile
// compiles. Lowers the module with the CPU pipeline (trace-cpu-pipeline),
// compiles it as trace-compile does (a kernel per object, in parallel,
// optionally cached), links the objects in ORC's LLJIT and calls the entry
// function on inputs read from .npy files or generated from a seed. Results
// are printed, written as .npy, and/or compared against expected .npy files; the first mismatch
// exits with 1 and names the worst element.
//
// Arguments and results are named by their `trace.name` attribute (the
// importer puts module paths there), else `arg<i>` / `result<i>`.
//
//===----------------------------------------------------------------------===//

#include "trace/Tools/trace-run/TraceRunMain.h"

#include "trace/InitAll.h"
#include "trace/Runtime/CPURuntime.h"
#include "trace/Support/HostTensor.h"
#include "trace/Support/ParseGuard.h"
#include "trace/Target/CAPI/CAPI.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/ExecutionEngine/CRunnerUtils.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ExecutionEngine/Orc/ExecutionUtils.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <malloc.h>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <random>
#include <unistd.h>

using namespace mlir;
using namespace mlir::trace;

namespace {

/// One argument or result of the entry function.
struct Slot {
  std::string name;
  RankedTensorType type;
  DType dtype;
};

std::string packedName(StringRef function) {
  return ("_trace_packed_" + function).str();
}

/// `void _trace_packed_F(void **args)`: calls F with the value args[i]
/// points to as its i-th argument, as MLIR's ExecutionEngine packs a
/// function (its helper is not exported; trace-run links objects itself).
/// F returns nothing: the CPU pipeline writes results into out-params.
void addPackedEntry(llvm::Module &module, StringRef function) {
  llvm::Function *callee = module.getFunction(function);
  if (!callee)
    return; // reported as a failed lookup of the packed name
  llvm::LLVMContext &context = module.getContext();
  llvm::IRBuilder<> builder(context);
  auto *type = llvm::FunctionType::get(builder.getVoidTy(),
                                       {builder.getPtrTy()}, false);
  auto *packed = llvm::Function::Create(
      type, llvm::GlobalValue::ExternalLinkage, packedName(function), module);
  builder.SetInsertPoint(llvm::BasicBlock::Create(context, "entry", packed));
  llvm::Value *list = packed->getArg(0);
  auto slot = [&](uint64_t index) {
    llvm::Value *at =
        builder.CreateGEP(builder.getPtrTy(), list, builder.getInt64(index));
    return builder.CreateLoad(builder.getPtrTy(), at);
  };
  SmallVector<llvm::Value *> args;
  for (llvm::Argument &arg : callee->args())
    args.push_back(builder.CreateLoad(arg.getType(), slot(arg.getArgNo())));
  builder.CreateCall(callee, args);
  builder.CreateRetVoid();
}

int fail(const llvm::Twine &message) {
  llvm::errs() << "trace-run: error: " << message << "\n";
  return 1;
}

std::string typeString(RankedTensorType type) {
  std::string out;
  llvm::raw_string_ostream os(out);
  for (int64_t d : type.getShape())
    os << d << "x";
  os << type.getElementType();
  return out;
}

/// Names and types of the function's arguments (or results); fails on any
/// that is not a statically shaped tensor of a trace element type.
LogicalResult collectSlots(func::FuncOp func, bool results,
                           SmallVectorImpl<Slot> &slots) {
  unsigned count = results ? func.getNumResults() : func.getNumArguments();
  for (unsigned i = 0; i < count; ++i) {
    Type type = results ? func.getResultTypes()[i] : func.getArgumentTypes()[i];
    auto tensor = dyn_cast<RankedTensorType>(type);
    std::optional<DType> dtype =
        tensor ? dtypeFromType(tensor.getElementType()) : std::nullopt;
    if (!tensor || !tensor.hasStaticShape() || !dtype)
      return func.emitError() << (results ? "result " : "argument ") << i
                              << " has type " << type
                              << "; trace-run handles statically shaped "
                                 "tensors of f32, f64, f16, bf16, i1, i32, i64";
    auto nameAttr = results ? func.getResultAttrOfType<StringAttr>(
                                  i, TraceDialect::kNameAttrName)
                            : func.getArgAttrOfType<StringAttr>(
                                  i, TraceDialect::kNameAttrName);
    std::string name = nameAttr ? nameAttr.getValue().str()
                                : (results ? "result" : "arg") + std::to_string(i);
    if (name.find('/') != std::string::npos)
      return func.emitError() << "name '" << name
                              << "' contains '/', which can't be a file name";
    if (llvm::any_of(slots, [&](const Slot &s) { return s.name == name; }))
      return func.emitError()
             << (results ? "results " : "arguments ") << "share the name '"
             << name << "'; --arg, --expect and --out-dir need distinct names";
    slots.push_back({name, tensor, *dtype});
  }
  return success();
}

/// Fails unless the host buffers of `slots` (every argument and result the
/// call needs at once) fit in this machine's memory: a type such as
/// tensor<100000000000x100000000000xf32> is valid IR, but allocating it
/// would overflow or abort.
LogicalResult checkHostMemory(func::FuncOp func, ArrayRef<Slot> slots) {
  uint64_t physical = static_cast<uint64_t>(sysconf(_SC_PHYS_PAGES)) *
                      static_cast<uint64_t>(sysconf(_SC_PAGE_SIZE));
  uint64_t total = 0;
  for (const Slot &slot : slots) {
    uint64_t bytes = dtypeSize(slot.dtype);
    bool overflow = false;
    for (int64_t d : slot.type.getShape())
      overflow |= __builtin_mul_overflow(bytes, static_cast<uint64_t>(d), &bytes);
    overflow |= __builtin_add_overflow(total, bytes, &total);
    if (overflow)
      return func.emitError()
             << "'" << slot.name << "' has type " << slot.type
             << ", whose size in bytes does not fit in 64 bits";
    if (total > physical)
      return func.emitError()
             << "the arguments and results need " << total
             << " bytes of host memory ('" << slot.name << "' has type "
             << slot.type << "); this machine has " << physical;
  }
  return success();
}

/// Parses NAME=PATH pairs, checking that NAME is one of `slots`.
LogicalResult parseNamedFiles(ArrayRef<std::string> specs,
                              ArrayRef<Slot> slots, StringRef flag,
                              llvm::StringMap<std::string> &files) {
  for (const std::string &spec : specs) {
    auto [name, path] = StringRef(spec).split('=');
    if (path.empty()) {
      fail("--" + flag + " " + spec + ": expected NAME=FILE.npy");
      return failure();
    }
    if (llvm::none_of(slots, [&](const Slot &s) { return s.name == name; })) {
      std::string known;
      for (const Slot &s : slots)
        known += (known.empty() ? "" : ", ") + s.name;
      fail("--" + flag + " " + spec + ": no " +
           (flag == "arg" ? "argument" : "result") + " named '" + name +
           "' (known: " + known + ")");
      return failure();
    }
    if (!files.try_emplace(name, path.str()).second) {
      fail("--" + flag + " " + spec + ": '" + name + "' is given twice");
      return failure();
    }
  }
  return success();
}

HostTensor randomTensor(const Slot &slot, uint64_t seed, unsigned index) {
  HostTensor tensor(slot.dtype, slot.type.getShape());
  // One stream per argument, so adding an argument leaves the others as
  // they were.
  std::mt19937_64 rng(seed * 1000003u + index);
  if (slot.dtype == DType::I64 && slot.type.getRank() == 0) {
    tensor.setFromDouble(0, static_cast<double>(seed));
    return tensor;
  }
  std::uniform_real_distribution<double> real(-1.0, 1.0);
  std::uniform_int_distribution<int> small(0, 15);
  std::bernoulli_distribution coin(0.5);
  for (int64_t i = 0, e = tensor.numel(); i < e; ++i) {
    switch (slot.dtype) {
    case DType::I1: tensor.setFromDouble(i, coin(rng)); break;
    case DType::I32:
    case DType::I64: tensor.setFromDouble(i, small(rng)); break;
    default: tensor.setFromDouble(i, real(rng)); break;
    }
  }
  return tensor;
}

/// A memref descriptor as the lowered function takes and returns it:
/// allocated pointer, aligned pointer, offset, sizes, strides, all 8 bytes.
int64_t descriptorWords(int64_t rank) { return 3 + 2 * rank; }

void fillDescriptor(HostTensor &tensor, int64_t *words) {
  auto ptr = reinterpret_cast<int64_t>(tensor.data.data());
  int64_t rank = tensor.shape.size();
  words[0] = ptr;
  words[1] = ptr;
  words[2] = 0;
  int64_t stride = 1;
  for (int64_t d = rank - 1; d >= 0; --d) {
    words[3 + d] = tensor.shape[d];
    words[3 + rank + d] = stride;
    stride *= tensor.shape[d];
  }
}

std::string indexString(ArrayRef<int64_t> shape, int64_t linear) {
  std::vector<int64_t> index(shape.size());
  for (int64_t d = shape.size() - 1; d >= 0; --d) {
    index[d] = shape[d] ? linear % shape[d] : 0;
    linear = shape[d] ? linear / shape[d] : 0;
  }
  std::string out = "[";
  for (size_t d = 0; d < index.size(); ++d)
    out += (d ? ", " : "") + std::to_string(index[d]);
  return out + "]";
}

/// Compares like numpy.allclose (|got - want| <= atol + rtol |want|), with
/// NaN equal to NaN and infinities equal only to themselves. Prints the
/// worst element on mismatch.
bool compare(StringRef name, const HostTensor &got, const HostTensor &want,
             double relTol, double absTol) {
  if (got.shape != want.shape) {
    fail("--expect " + name + ": result is " + got.typeString() +
         ", expected file holds " + want.typeString());
    return false;
  }
  int64_t bad = 0, worst = -1;
  double worstExcess = 0;
  for (int64_t i = 0, e = got.numel(); i < e; ++i) {
    double g = got.getAsDouble(i), w = want.getAsDouble(i);
    if (std::isnan(g) && std::isnan(w))
      continue;
    double diff = std::fabs(g - w);
    double allowed = absTol + relTol * std::fabs(w);
    bool ok = std::isinf(w) || std::isinf(g) ? g == w : diff <= allowed;
    if (ok)
      continue;
    ++bad;
    double excess = std::isnan(diff) || std::isinf(diff)
                        ? INFINITY
                        : diff - allowed;
    if (worst < 0 || excess > worstExcess) {
      worst = i;
      worstExcess = excess;
    }
  }
  if (bad == 0)
    return true;
  double g = got.getAsDouble(worst), w = want.getAsDouble(worst);
  llvm::errs() << "trace-run: mismatch in " << name << ": " << bad << " of "
               << got.numel() << " elements differ (rtol " << relTol
               << ", atol " << absTol << "); worst at "
               << indexString(got.shape, worst) << ": got "
               << llvm::format("%.9g", g) << ", expected "
               << llvm::format("%.9g", w) << ", |diff| "
               << llvm::format("%.3g", std::fabs(g - w)) << "\n";
  return false;
}

void printSummary(StringRef name, const HostTensor &tensor) {
  // NaN and infinities pass through trace-run as through PyTorch; the
  // summary counts them, and min/max/mean are over the finite elements.
  double lo = INFINITY, hi = -INFINITY, sum = 0;
  int64_t n = tensor.numel(), nans = 0, infs = 0;
  for (int64_t i = 0; i < n; ++i) {
    double v = tensor.getAsDouble(i);
    if (std::isnan(v) || std::isinf(v)) {
      ++(std::isnan(v) ? nans : infs);
      continue;
    }
    lo = std::min(lo, v);
    hi = std::max(hi, v);
    sum += v;
  }
  llvm::outs() << llvm::format("%-24s %-16s", name.str().c_str(),
                               tensor.typeString().c_str());
  if (n > nans + infs)
    llvm::outs() << llvm::format(" min %-12.6g max %-12.6g mean %-12.6g", lo,
                                 hi, sum / (n - nans - infs));
  if (nans + infs)
    llvm::outs() << " non-finite: " << nans << " NaN, " << infs << " inf";
  llvm::outs() << "\n";
}

/// Writes results to --out-dir/NAME.npy and inputs to --out-dir/inputs/: all
/// of them or, on a failure, none (each file goes through a temporary file;
/// files and directories this call made are removed again).
LogicalResult writeOutDir(StringRef outDir, ArrayRef<Slot> args,
                          ArrayRef<HostTensor> inputs, ArrayRef<Slot> results,
                          ArrayRef<HostTensor> outputs) {
  llvm::SmallString<256> inputsDir(outDir);
  llvm::sys::path::append(inputsDir, "inputs");
  SmallVector<std::string> madeDirs, written;
  for (StringRef dir : {StringRef(outDir), StringRef(inputsDir)})
    if (!llvm::sys::fs::exists(dir))
      madeDirs.push_back(dir.str());
  auto undo = [&](const llvm::Twine &message) {
    for (const std::string &path : written)
      llvm::sys::fs::remove(path);
    for (const std::string &dir : llvm::reverse(madeDirs))
      llvm::sys::fs::remove(dir); // only if empty
    fail(message);
    return failure();
  };
  if (std::error_code ec = llvm::sys::fs::create_directories(inputsDir))
    return undo("--out-dir " + outDir + ": " + ec.message());
  auto write = [&](StringRef dir, const Slot &slot, const HostTensor &tensor) {
    llvm::SmallString<256> path(dir);
    llvm::sys::path::append(path, slot.name + ".npy");
    if (llvm::Error error = writeNpy(path, tensor))
      return undo(toString(std::move(error)));
    written.push_back(path.str().str());
    return success();
  };
  for (auto [slot, tensor] : llvm::zip_equal(args, inputs))
    if (failed(write(inputsDir, slot, tensor)))
      return failure();
  for (auto [slot, tensor] : llvm::zip_equal(results, outputs))
    if (failed(write(outDir, slot, tensor)))
      return failure();
  return success();
}

} // namespace

int mlir::trace::runTraceFunction(const TraceRunOptions &options) {
  const std::string &inputFile = options.inputFile;
  if (options.gpuMaxBlocks < 1 || options.gpuMaxBlocks > (int64_t{1} << 31) - 1)
    return fail("--gpu-max-blocks must be in [1, 2^31 - 1], got " +
                llvm::Twine(options.gpuMaxBlocks));
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  // The compiled code mallocs its activations on every call. glibc would
  // serve large blocks with fresh mmaps and return them on free, so every
  // call would page-fault and zero its memory again (a third of a GPT
  // block's time). Keeping freed blocks in the heap is what a caching
  // allocator (PyTorch's, or the GPU runtime's) does.
  mallopt(M_MMAP_THRESHOLD, 1 << 30);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
  // Keep the runtime libraries (BLAS entry points, MLIR's memrefCopy)
  // linked in: the JIT finds their symbols in this process.
  (void)traceRuntimeAbiVersion();
  volatile auto keepMemrefCopy = &memrefCopy;
  (void)keepMemrefCopy;

  DialectRegistry registry;
  trace::registerAllTraceDialects(registry);
  // Upstream dialects with their external models (bufferization of linalg,
  // tensor, arith; convert-to-LLVM interfaces), as mlir-opt has them.
  registerAllDialects(registry);
  registerAllExtensions(registry);
  registerAllToLLVMIRTranslations(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();

  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler diagHandler(sourceMgr, &context);
  std::string errorMessage;
  auto file = openInputFile(inputFile, &errorMessage);
  if (!file)
    return fail(errorMessage);
  // Some upstream op parsers crash on malformed text (ParseGuard.h).
  if (failed(checkParserSurvives(*file, registry, {}, llvm::errs())))
    return 1;
  sourceMgr.AddNewSourceBuffer(std::move(file), SMLoc());
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  if (!module)
    return 1;

  // The training step first (its stages' options are checked before it
  // runs).
  if (options.trainingStep) {
    auto stepOptions =
        TrainingStepPipelineOptions::createFromString(*options.trainingStep);
    if (!stepOptions)
      return fail("--training-step: bad options '" + *options.trainingStep +
                  "'");
    PassManager stepPM(&context);
    if (failed(applyPassManagerCLOptions(stepPM)) ||
        failed(buildTrainingStepPipeline(
            stepPM, stepOptions->get(), [](const llvm::Twine &message) {
              fail("--training-step: " + message);
              return failure();
            })) ||
        failed(stepPM.run(*module)))
      return 1;
  }

  // The entry function.
  func::FuncOp entry;
  if (!options.entry.empty()) {
    entry = module->lookupSymbol<func::FuncOp>(options.entry);
    if (!entry || entry.isExternal())
      return fail("no function @" + options.entry + " with a body in " +
                  inputFile);
  } else {
    SmallVector<func::FuncOp> candidates;
    for (auto func : module->getOps<func::FuncOp>())
      if (func.isPublic() && !func.isExternal())
        candidates.push_back(func);
    if (candidates.size() == 1)
      entry = candidates.front();
    else
      entry = module->lookupSymbol<func::FuncOp>("forward");
    if (!entry)
      return fail(llvm::Twine(candidates.size()) +
                  " public functions in " + inputFile +
                  " and none is @forward: pick one with --entry");
  }
  std::string entrySymbol = entry.getSymName().str();

  SmallVector<Slot> args, results;
  if (failed(collectSlots(entry, /*results=*/false, args)) ||
      failed(collectSlots(entry, /*results=*/true, results)))
    return 1;
  SmallVector<Slot> allSlots(args);
  allSlots.append(results.begin(), results.end());
  if (failed(checkHostMemory(entry, allSlots)))
    return 1;
  llvm::StringMap<std::string> argPaths, expectPaths;
  if (failed(parseNamedFiles(options.args, args, "arg", argPaths)) ||
      failed(parseNamedFiles(options.expects, results, "expect", expectPaths)))
    return 1;

  // Inputs, checked against the signature before any compilation.
  std::vector<HostTensor> inputs;
  for (auto [index, slot] : llvm::enumerate(args)) {
    auto it = argPaths.find(slot.name);
    if (it == argPaths.end()) {
      if (!options.randomSeed)
        return fail("no input for argument '" + slot.name + "' (" +
                    typeString(slot.type) + "): pass --arg " + slot.name +
                    "=FILE.npy or --random-inputs=SEED");
      inputs.push_back(randomTensor(slot, *options.randomSeed, index));
      continue;
    }
    auto tensor = readNpy(it->second, slot.dtype == DType::BF16);
    if (!tensor)
      return fail("--arg " + slot.name + ": " + toString(tensor.takeError()));
    if (tensor->dtype != slot.dtype ||
        tensor->shape != std::vector<int64_t>(slot.type.getShape().begin(),
                                              slot.type.getShape().end()))
      return fail("--arg " + slot.name + ": argument '" + slot.name +
                  "' of @" + entrySymbol + " is " + typeString(slot.type) +
                  " but " + it->second + " holds " + tensor->typeString());
    inputs.push_back(std::move(*tensor));
  }
  std::vector<HostTensor> expected(results.size());
  for (auto [index, slot] : llvm::enumerate(results)) {
    auto it = expectPaths.find(slot.name);
    if (it == expectPaths.end())
      continue;
    auto tensor = readNpy(it->second);
    if (!tensor)
      return fail("--expect " + slot.name + ": " +
                  toString(tensor.takeError()));
    // Shapes are static: a file that can't match fails before compiling
    // (and before --out-dir is written).
    if (tensor->shape != std::vector<int64_t>(slot.type.getShape().begin(),
                                              slot.type.getShape().end()))
      return fail("--expect " + slot.name + ": result is " +
                  typeString(slot.type) + ", expected file holds " +
                  tensor->typeString());
    expected[index] = std::move(*tensor);
  }

  // Compile.
  PassManager pm(&context);
  if (failed(applyPassManagerCLOptions(pm)))
    return fail("invalid pass manager options");
  CPUPipelineOptions pipelineOptions;
  pipelineOptions.blas = options.blas;
  pipelineOptions.approximateMath = options.approximateMath;
  pipelineOptions.vectorizeReductions = options.vectorizeReductions;
  pipelineOptions.gpuKernels = options.gpuKernels;
  pipelineOptions.gpuMaxBlocks = options.gpuMaxBlocks;
  pipelineOptions.convolutions = options.convolutions;
  buildCPUPipeline(pm, pipelineOptions);
  if (failed(pm.run(*module)))
    return fail("lowering " + inputFile + " for the CPU failed");

  // The CPU pipeline (gpu-kernels too) writes results into buffers the
  // caller passes after the arguments (out-params): the lowered function
  // takes one scalar per descriptor word of each and returns nothing.
  if (auto lowered = module->lookupSymbol<LLVM::LLVMFuncOp>(entrySymbol)) {
    int64_t words = 0;
    for (const Slot &slot : llvm::concat<const Slot>(args, results))
      words += descriptorWords(slot.type.getRank());
    LLVM::LLVMFunctionType type = lowered.getFunctionType();
    if (!isa<LLVM::LLVMVoidType>(type.getReturnType()) ||
        int64_t(type.getNumParams()) != words) {
      std::string lowered;
      llvm::raw_string_ostream(lowered) << type;
      return fail("@" + entrySymbol + " lowered to " + lowered + ", not " +
                  std::to_string(words) +
                  " descriptor words of its arguments and out-params and no "
                  "result");
    }
  }

  // Compile as trace-compile does (a kernel per object, in parallel,
  // optionally cached), for this machine, and link the objects in ORC's
  // JIT. The runtimes (OpenBLAS gemms, memrefCopy, libm) are this
  // process's.
  capi::ObjectOptions objectOptions;
  objectOptions.hostCPU = "native";
  objectOptions.jobs = options.jobs;
  objectOptions.cacheDir = options.cacheDir;
  objectOptions.prepare = [&](llvm::Module &llvmModule) {
    addPackedEntry(llvmModule, entrySymbol);
  };
  objectOptions.entryPoints = {packedName(entrySymbol)};
  std::vector<capi::ObjectFile> objects;
  std::string message;
  if (failed(capi::compileObjects(*module, objectOptions, objects, message)))
    return fail(message);
  auto jit = llvm::orc::LLJITBuilder().create();
  if (!jit)
    return fail("cannot create the JIT: " + toString(jit.takeError()));
  auto process = llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
      (*jit)->getDataLayout().getGlobalPrefix());
  if (!process)
    return fail("cannot search this process's symbols: " +
                toString(process.takeError()));
  (*jit)->getMainJITDylib().addGenerator(std::move(*process));
  for (capi::ObjectFile &object : objects)
    if (llvm::Error error = (*jit)->addObjectFile(std::move(object.object)))
      return fail("cannot load the object of " + object.name + ": " +
                  toString(std::move(error)));
  if (llvm::Error error = (*jit)->initialize((*jit)->getMainJITDylib()))
    return fail("cannot initialize the JIT's code: " +
                toString(std::move(error)));
  auto entryAddress = (*jit)->lookup(packedName(entrySymbol));
  if (!entryAddress)
    return fail("JIT compilation failed: " +
                toString(entryAddress.takeError()));
  auto *packedEntry = entryAddress->toPtr<void (*)(void **)>();

  // Packed call: one pointer per scalar of every argument descriptor, then
  // of every result's.
  std::vector<std::vector<int64_t>> argWords;
  for (HostTensor &input : inputs) {
    argWords.emplace_back(descriptorWords(input.shape.size()));
    fillDescriptor(input, argWords.back().data());
  }
  // Out-params: the results' buffers are this program's, reused by every
  // call.
  std::vector<HostTensor> resultBuffers;
  resultBuffers.reserve(results.size()); // descriptors point into them
  for (const Slot &slot : results) {
    HostTensor &buffer =
        resultBuffers.emplace_back(slot.dtype, slot.type.getShape());
    std::vector<int64_t> &words =
        argWords.emplace_back(descriptorWords(slot.type.getRank()));
    fillDescriptor(buffer, words.data());
  }
  SmallVector<void *> packed;
  for (auto &words : argWords)
    for (int64_t &word : words)
      packed.push_back(&word);

  auto call = [&] { packedEntry(packed.data()); };
  call();
  // The first call's results (further calls write the same buffers).
  std::vector<HostTensor> outputs = resultBuffers;

  if (options.repeat > 0) {
    std::vector<double> millis;
    for (unsigned i = 0; i < options.repeat; ++i) {
      auto start = std::chrono::steady_clock::now();
      call();
      auto stop = std::chrono::steady_clock::now();
      millis.push_back(
          std::chrono::duration<double, std::milli>(stop - start).count());
    }
    std::sort(millis.begin(), millis.end());
    llvm::outs() << llvm::format("@%s: median %.4f ms over %u runs (min %.4f)\n",
                                 entrySymbol.c_str(), millis[millis.size() / 2],
                                 options.repeat, millis.front());
  }

  if (!options.quiet)
    for (auto [slot, tensor] : llvm::zip_equal(results, outputs))
      printSummary(slot.name, tensor);

  if (!options.outDir.empty() &&
      failed(writeOutDir(options.outDir, args, inputs, results, outputs)))
    return 1;

  bool allMatch = true;
  for (auto [index, slot] : llvm::enumerate(results))
    if (expectPaths.count(slot.name))
      allMatch &= compare(slot.name, outputs[index], expected[index],
                          options.relTol, options.absTol);
  return allMatch ? 0 : 1;
}
