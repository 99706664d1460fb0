//===- TraceCompileMain.cpp - the trace-compile driver --------------------===//
//
// Writes into a fresh directory next to OUTDIR, renamed into place at the
// end: the IR after each stage (01-import.mlir ... 06-<target>.mlir), the
// memory report of the schedule compiled (memory-report.{txt,json,svg}),
// for cuda the PTX of every kernel (kernels/<module>.ptx), the C header
// <NAME>.h and lib<NAME>.so. On any failure the directory is removed.
//
//===----------------------------------------------------------------------===//

#include "trace/Tools/trace-compile/TraceCompileMain.h"

#ifdef TRACE_HAVE_TORCHSCRIPT
#include "trace/Importer/Export.h"
#include "trace/Importer/TorchScript.h"
#endif
#include "trace/Codegen/CPU/Passes.h"
#include "trace/Dialect/Trace/IR/TraceDialect.h"
#include "trace/Dialect/Trace/Transforms/CheckpointPolicy.h"
#include "trace/Dialect/Trace/Transforms/Passes.h"
#include "trace/InitAll.h"
#include "trace/Support/ParseGuard.h"
#include "trace/Target/CAPI/CAPI.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/Timing.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Transforms/Passes.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>

using namespace mlir;
using namespace mlir::trace;

namespace {

using Clock = std::chrono::steady_clock;

double seconds(Clock::time_point since) {
  return std::chrono::duration<double>(Clock::now() - since).count();
}

/// Where an error goes when it has no location.
void error(const Twine &message) {
  llvm::errs() << "trace-compile: error: " << message << "\n";
}

/// The output directory under construction; removed unless committed.
struct StagingDir {
  std::string path;
  bool committed = false;
  ~StagingDir() {
    if (!path.empty() && !committed)
      llvm::sys::fs::remove_directories(path);
  }
  std::string file(StringRef leaf) const {
    SmallString<256> p(path);
    llvm::sys::path::append(p, leaf);
    return std::string(p);
  }
};

/// Makes a fresh directory next to `out`, so the final rename stays on one
/// file system.
LogicalResult makeStaging(StringRef out, StagingDir &staging) {
  SmallString<256> model(out);
  model += ".tmp-%%%%%%";
  SmallString<256> candidate;
  std::error_code ec;
  for (int attempt = 0; attempt < 16; ++attempt) {
    llvm::sys::fs::createUniquePath(model, candidate, /*MakeAbsolute=*/false);
    ec = llvm::sys::fs::create_directory(candidate, /*IgnoreExisting=*/false);
    if (ec != std::errc::file_exists)
      break;
  }
  if (ec) {
    error("cannot create the output directory next to '" + out +
          "': " + ec.message());
    return failure();
  }
  staging.path = std::string(candidate);
  return success();
}

/// Moves the staging directory to `out`, replacing what was there only now.
LogicalResult commit(StagingDir &staging, StringRef out) {
  std::string old;
  if (llvm::sys::fs::exists(out)) {
    if (!llvm::sys::fs::is_directory(out)) {
      error("'" + out + "' exists and is not a directory");
      return failure();
    }
    old = staging.path + ".old";
    if (std::error_code ec = llvm::sys::fs::rename(out, old)) {
      error("cannot replace '" + out + "': " + ec.message());
      return failure();
    }
  }
  if (std::error_code ec = llvm::sys::fs::rename(staging.path, out)) {
    if (!old.empty())
      (void)llvm::sys::fs::rename(old, out);
    error("cannot rename the output into '" + out + "': " + ec.message());
    return failure();
  }
  staging.committed = true;
  if (!old.empty())
    llvm::sys::fs::remove_directories(old);
  return success();
}

LogicalResult writeModule(ModuleOp module, StringRef path) {
  std::string message;
  auto file = openOutputFile(path, &message);
  if (!file) {
    error("cannot write '" + path + "': " + message);
    return failure();
  }
  module.print(file->os());
  file->os() << "\n";
  file->keep();
  return success();
}

/// Runs `pm` on `module`, timed under `stage`.
LogicalResult runStage(ModuleOp module, StringRef stage, PassManager &pm,
                       bool verbose) {
  Clock::time_point start = Clock::now();
  // MLIR's pass manager flags (--mlir-print-ir-after-all, ...) and
  // --mlir-timing (a report of the stage's passes when it ends), when the
  // tool registered them.
  if (failed(applyPassManagerCLOptions(pm))) {
    error("stage '" + stage + "': bad pass manager options");
    return failure();
  }
  DefaultTimingManager timing;
  applyDefaultTimingManagerCLOptions(timing);
  TimingScope root = timing.getRootScope();
  if (timing.isEnabled()) {
    pm.enableTiming(root);
    llvm::errs() << "trace-compile: --mlir-timing of stage '" << stage
                 << "' (printed when it ends):\n";
  }
  if (failed(pm.run(module))) {
    error("stage '" + stage + "' failed");
    return failure();
  }
  if (verbose)
    llvm::errs() << "trace-compile: " << stage << ": "
                 << llvm::format("%.2f s\n", seconds(start));
  return success();
}

#ifdef TRACE_HAVE_TORCHSCRIPT
OwningOpRef<ModuleOp> importPyTorchModel(MLIRContext *context,
                                         const TraceCompileOptions &options) {
  TorchScriptImportOptions importOptions;
  std::vector<std::string> specs = options.inputShapes;
  std::string shapesFile = options.inputShapesFile;
  if (specs.empty() && shapesFile.empty()) {
    SmallString<256> sidecar(options.inputFile);
    llvm::sys::path::replace_extension(sidecar, "shapes");
    if (llvm::sys::fs::exists(sidecar))
      shapesFile = std::string(sidecar);
  }
  std::string message;
  if (!shapesFile.empty() && !readInputSpecsFile(shapesFile, specs, message)) {
    error(message);
    return nullptr;
  }
  for (const std::string &text : specs) {
    InputSpec spec;
    if (!parseInputSpec(text, spec, message)) {
      error("--input-shape: " + message);
      return nullptr;
    }
    importOptions.inputs.push_back(spec);
  }
  importOptions.checkpointModules = options.checkpointModules;
  importOptions.dropoutAsIdentity = options.dropoutAsIdentity;
  importOptions.checkpointCalls = options.checkpointCalls;
  importOptions.reportCheckpointCalls = options.reportCheckpointCalls;
  // A torch.export archive (.pt2) or a TorchScript file (.pt).
  if (StringRef(options.inputFile).ends_with(".pt2"))
    return importExportedProgram(context, options.inputFile, importOptions);
  return importTorchScript(context, options.inputFile, importOptions);
}
#endif

/// The launches one call of every exported function of the lowered module
/// makes: of GPU kernels (gpu.launch_func) or of the CPU's kernel
/// functions (trace-outline-kernels). A launch in a layer's function
/// (trace-outline-repeats) counts once per call of that function.
unsigned countLaunches(ModuleOp module) {
  SymbolTable symbols(module);
  llvm::DenseMap<Operation *, unsigned> perCall;
  std::function<unsigned(LLVM::LLVMFuncOp)> count = [&](LLVM::LLVMFuncOp fn) {
    if (auto known = perCall.find(fn); known != perCall.end())
      return known->second;
    perCall[fn] = 0; // a call cycle, never generated, counts nothing
    unsigned n = 0;
    fn.walk([&](Operation *op) {
      if (isa<gpu::LaunchFuncOp>(op)) {
        ++n;
        return;
      }
      auto call = dyn_cast<LLVM::CallOp>(op);
      std::optional<StringRef> callee =
          call ? call.getCallee() : std::nullopt;
      if (!callee)
        return;
      if (isKernelName(*callee)) {
        ++n;
        return;
      }
      auto target = symbols.lookup<LLVM::LLVMFuncOp>(*callee);
      if (target && !target.isExternal())
        n += count(target);
    });
    return perCall[fn] = n;
  };
  llvm::DenseSet<Operation *> called;
  module.walk([&](LLVM::CallOp call) {
    if (std::optional<StringRef> callee = call.getCallee())
      if (Operation *target = symbols.lookup(*callee))
        called.insert(target);
  });
  unsigned launches = 0;
  for (auto fn : module.getOps<LLVM::LLVMFuncOp>())
    if (!fn.isExternal() && !isKernelName(fn.getSymName()) &&
        !called.contains(fn))
      launches += count(fn);
  return launches;
}

/// The distinct kernels (trace-outline-kernels) of the lowered CPU module.
unsigned countCPUKernels(ModuleOp module) {
  return llvm::count_if(module.getOps<LLVM::LLVMFuncOp>(),
                        [](LLVM::LLVMFuncOp fn) {
                          return !fn.isExternal() &&
                                 isKernelName(fn.getSymName());
                        });
}

/// Writes the PTX of every gpu.binary into `dir`.
LogicalResult writeKernels(ModuleOp module, StringRef dir, unsigned &count) {
  count = 0;
  if (std::error_code ec = llvm::sys::fs::create_directory(dir)) {
    error("cannot create '" + dir + "': " + ec.message());
    return failure();
  }
  WalkResult walk = module.walk([&](gpu::BinaryOp binary) {
    for (Attribute attr : binary.getObjects()) {
      auto object = dyn_cast<gpu::ObjectAttr>(attr);
      if (!object)
        continue;
      if (object.getFormat() != gpu::CompilationTarget::Assembly) {
        binary.emitError() << "kernels/*.ptx need PTX: run trace-gpu-pipeline "
                              "with format=isa (the default)";
        return WalkResult::interrupt();
      }
      SmallString<128> path(dir);
      llvm::sys::path::append(path, binary.getSymName() + ".ptx");
      if (llvm::Error err = llvm::writeToOutput(
              path, [&](raw_ostream &os) -> llvm::Error {
                os << object.getObject().getValue();
                return llvm::Error::success();
              })) {
        error("cannot write '" + path + "': " + toString(std::move(err)));
        return WalkResult::interrupt();
      }
      ++count;
    }
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();
  if (count == 0) {
    error("the GPU pipeline made no kernel");
    return failure();
  }
  return success();
}

/// Adds the target pipeline `build` with the options of `options`; fails if
/// they do not parse (the parser prints why).
template <typename PipelineOptions, typename Build, typename Adjust>
LogicalResult buildLowering(PassManager &pm, const TraceCompileOptions &options,
                            Build build, Adjust adjust) {
  auto pipeline = PipelineOptions::createFromString(options.pipelineOptions);
  if (!pipeline)
    return failure();
  adjust(*pipeline);
  build(pm, *pipeline);
  return success();
}

/// Adds the compiled step's prediction (trace-resident-report's
/// `resident`, JSON) to the memory report (`report`.json and .txt): per
/// fwd/bwd pair of `api`, the step's peak above the weights and inputs,
/// the larger of @f_fwd's peak and what @f_fwd holds plus @f_bwd's peak.
LogicalResult addCompiledPrediction(StringRef resident, StringRef reportJson,
                                    StringRef reportText,
                                    const capi::Interface &api) {
  auto read = [](StringRef path) -> std::optional<llvm::json::Value> {
    auto buffer = llvm::MemoryBuffer::getFile(path);
    if (!buffer) {
      error("cannot read '" + path + "': " + buffer.getError().message());
      return std::nullopt;
    }
    llvm::Expected<llvm::json::Value> value =
        llvm::json::parse((*buffer)->getBuffer());
    if (!value) {
      error("'" + path + "' is not JSON: " + toString(value.takeError()));
      return std::nullopt;
    }
    return std::move(*value);
  };
  std::optional<llvm::json::Value> simulated = read(resident);
  std::optional<llvm::json::Value> report = read(reportJson);
  if (!simulated || !report)
    return failure();
  if (!simulated->getAsObject() || !report->getAsObject()) {
    error("'" + (simulated->getAsObject() ? reportJson : resident) +
          "' is not a JSON object");
    return failure();
  }
  llvm::StringMap<const llvm::json::Object *> byName;
  if (const llvm::json::Array *functions =
          simulated->getAsObject()->getArray("functions"))
    for (const llvm::json::Value &f : *functions)
      if (const llvm::json::Object *o = f.getAsObject())
        if (std::optional<StringRef> name = o->getString("name"))
          byName[*name] = o;
  auto bytes = [](const llvm::json::Object *o, StringRef key) {
    return o->getInteger(key).value_or(0);
  };
  llvm::json::Array steps;
  std::string text;
  llvm::raw_string_ostream os(text);
  auto mb = [](int64_t b) { return llvm::format("%.2f MB", b / 1048576.0); };
  os << "\nThe compiled step (trace-resident-report, on the planned buffers "
        "of the code that runs; glibc with 64 KiB blocks and up mapped):\n";
  // collectCInterface lists each differentiated function's fwd, bwd, grad.
  for (size_t i = 0; i + 1 < api.functions.size(); i += 3) {
    const llvm::json::Object *fwd = byName.lookup(api.functions[i].symbol);
    const llvm::json::Object *bwd = byName.lookup(api.functions[i + 1].symbol);
    if (!fwd || !bwd)
      continue;
    int64_t fwdPeak = bytes(fwd, "peak_bytes"),
            held = bytes(fwd, "held_bytes"), bwdPeak = bytes(bwd, "peak_bytes");
    int64_t peak = std::max(fwdPeak, held + bwdPeak);
    // What the buffers hold live, in the same order: no placement with
    // their page footprints peaks lower, not even one arena across fwd
    // and bwd.
    int64_t fwdLive = bytes(fwd, "live_peak_bytes"),
            bwdLive = bytes(bwd, "live_peak_bytes");
    int64_t live = std::max(fwdLive, held + bwdLive);
    int64_t freed = bytes(bwd, "freed_donated_bytes"),
            freedBeforePeak = bytes(bwd, "freed_donated_before_peak_bytes");
    bool modelled = fwd->getBoolean("modelled").value_or(false) &&
                    bwd->getBoolean("modelled").value_or(false);
    // Why the simulation could not follow the step, from the function
    // that says so.
    std::string why;
    for (const llvm::json::Object *f : {fwd, bwd})
      if (!f->getBoolean("modelled").value_or(false) && why.empty())
        why = ("@" + f->getString("name").value_or("") + ": " +
               f->getString("why").value_or(""))
                  .str();
    steps.push_back(llvm::json::Object{
        {"fwd", api.functions[i].symbol},
        {"bwd", api.functions[i + 1].symbol},
        {"modelled", modelled},
        {"why", why},
        {"fwd_peak_bytes", fwdPeak},
        {"fwd_held_bytes", held},
        {"bwd_peak_bytes", bwdPeak},
        {"bwd_freed_donated_bytes", freed},
        {"bwd_freed_donated_before_peak_bytes", freedBeforePeak},
        {"peak_bytes", peak},
        {"live_peak_bytes", live}});
    os << "  @" << api.functions[i].symbol << " peaks at "
       << mb(fwdPeak) << " and holds " << mb(held) << " at its return; @"
       << api.functions[i + 1].symbol << " peaks " << mb(bwdPeak)
       << " above its entry (" << mb(freed)
       << " of saved values freed as it goes; " << mb(freedBeforePeak)
       << " of them before its peak)\n"
       << "  predicted step peak above the weights and inputs: " << mb(peak)
       << (modelled ? "" : " (not modelled: " + why + ")") << "\n";
    if (modelled)
      os << "  its buffers' live bytes peak at " << mb(live)
         << " (pages counted whole): what holding each page only while a "
            "buffer on it is live would reach, one arena shared by the "
            "saved values and the backward's temporaries included\n";
  }
  report->getAsObject()->insert(
      {"compiled", llvm::json::Object{{"source", "trace-resident-report"},
                                      {"steps", std::move(steps)},
                                      {"functions", std::move(*simulated)}}});
  auto write = [](StringRef path, auto print, bool append) -> LogicalResult {
    std::error_code ec;
    llvm::raw_fd_ostream file(path, ec,
                              append ? llvm::sys::fs::OF_Append
                                     : llvm::sys::fs::OF_None);
    if (!ec) {
      print(file);
      file.close();
      ec = file.error();
      file.clear_error(); // reported below, not by the destructor's abort
    }
    if (ec)
      error("cannot write '" + path + "': " + ec.message());
    return failure(bool(ec));
  };
  return success(
      succeeded(write(
          reportJson,
          [&](raw_ostream &out) { out << llvm::formatv("{0:2}\n", *report); },
          false)) &&
      succeeded(write(
          reportText, [&](raw_ostream &out) { out << text; }, true)));
}

std::string findCompiler(StringRef requested) {
  if (!requested.empty())
    return requested.str();
  if (llvm::sys::fs::can_execute(TRACE_CLANGXX))
    return TRACE_CLANGXX;
  if (auto cxx = llvm::sys::findProgramByName("c++"))
    return *cxx;
  return "";
}

/// A runtime library of this project: `name` in the lib directory beside
/// the directory holding this executable. The build tree (build/bin,
/// build/lib) and an install prefix (bin, lib) have that layout, so an
/// installed trace-compile never reads the build tree and a prefix can
/// move.
std::string runtimeLibrary(StringRef name) {
  std::string self = llvm::sys::fs::getMainExecutable(nullptr, nullptr);
  llvm::SmallString<256> path(
      llvm::sys::path::parent_path(llvm::sys::path::parent_path(self)));
  llvm::sys::path::append(path, TRACE_LIBDIR, name);
  return std::string(path);
}

DialectRegistry makeRegistry() {
  DialectRegistry registry;
  registerAllTraceDialects(registry);
  registerAllDialects(registry);
  registerAllExtensions(registry);
  registerAllToLLVMIRTranslations(registry);
  return registry;
}

/// One compile, phase by phase. Each phase prints its own error (with the
/// op's location where there is one) and returns failure; the staging
/// directory is removed unless the last phase commits it.
class TrainingStepCompiler {
public:
  explicit TrainingStepCompiler(const TraceCompileOptions &options)
      : options(options), registry(makeRegistry()), context(registry),
        handler(sourceMgr, &context) {
    // Errors point at the model's source; the whole op printed after them
    // (MLIR's default) buries them.
    context.printOpOnDiagnostic(false);
    context.loadDialect<TraceDialect, func::FuncDialect>();
  }

  /// The target, the input, the library's name, the compiler driver and
  /// the output directory, before anything is read or written.
  LogicalResult checkOptions();
  /// Every stage's pass manager, and so every pass option, before any work;
  /// then the staging directory.
  LogicalResult buildPassManagers();
  /// 1. The model imported (.pt2, .pt) or parsed (.mlir), with the
  /// checkpoint policies applied.
  LogicalResult importModel();
  /// 2-5. The training-step stages, then the memory report of the step
  /// that is compiled.
  LogicalResult runStages();
  /// 6. The C interface read off the step's functions, everything else
  /// private and dropped, the target's lowering and the C wrappers.
  LogicalResult lower();
  /// 7. The header, the JSON interface, the objects and the shared library.
  LogicalResult buildLibrary();
  /// 8. Into place: an existing output directory is replaced only now.
  LogicalResult commitOutput();

private:
  std::string file(StringRef leaf) const { return staging.file(leaf); }
  LogicalResult writeText(StringRef path,
                          function_ref<void(raw_ostream &)> print);

  const TraceCompileOptions &options;
  DialectRegistry registry;
  MLIRContext context;
  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler handler;

  bool cuda = false;
  std::string name, cxx;
  SmallString<256> out;
  SmallVector<TrainingStepStage> stages;
  SmallVector<std::unique_ptr<PassManager>> stagePMs;
  std::unique_ptr<PassManager> lowerPM;
  StringRef lowerStage;
  StagingDir staging;
  /// On the CPU, the planned step's resident bytes (trace-resident-report),
  /// which the memory report then gives as the compiled step's prediction.
  std::string residentPath;
  OwningOpRef<ModuleOp> module;
  std::optional<capi::Interface> api;
  unsigned kernels = 0, launches = 0;
};

LogicalResult TrainingStepCompiler::checkOptions() {
  cuda = options.target == "cuda";
  if (!cuda && options.target != "cpu") {
    error("unknown --target '" + options.target + "' (expected cpu or cuda)");
    return failure();
  }
#ifndef TRACE_CUDA_RUNTIME_STATIC
  if (cuda) {
    error("--target=cuda: trace-compile was built without the CUDA runtime "
          "(no CUDA toolkit at configure time)");
    return failure();
  }
#endif
  if (!llvm::sys::fs::exists(options.inputFile)) {
    error("cannot read '" + options.inputFile + "': no such file");
    return failure();
  }
  name = options.name.empty()
             ? capi::cIdentifier(llvm::sys::path::stem(options.inputFile))
             : options.name;
  if (name != capi::cIdentifier(name)) {
    error("--name '" + name + "' is not a C identifier");
    return failure();
  }
  cxx = findCompiler(options.compilerDriver);
  if (cxx.empty()) {
    error("no C/C++ compiler driver found (--cc)");
    return failure();
  }
  out = options.outputDir;
  llvm::sys::path::remove_dots(out, /*remove_dot_dot=*/true);
  if (out.empty() || llvm::sys::path::filename(out).empty()) {
    error("bad output directory '" + options.outputDir + "'");
    return failure();
  }
  return success();
}

LogicalResult TrainingStepCompiler::buildPassManagers() {
  stages = getTrainingStepStages(options.step);
  for (TrainingStepStage stage : stages) {
    auto pm = std::make_unique<PassManager>(&context);
    if (failed(buildTrainingStepStage(
            *pm, stage, options.step, [&](const Twine &message) {
              error("stage '" + stringifyTrainingStepStage(stage) +
                    "': " + message);
              return failure();
            })))
      return failure();
    stagePMs.push_back(std::move(pm));
  }
  if (failed(makeStaging(out, staging)))
    return failure();
  lowerStage = cuda ? "gpu-pipeline" : "cpu-pipeline";
  lowerPM = std::make_unique<PassManager>(&context);
  residentPath = cuda ? "" : file("resident.json");
  if (failed(cuda ? buildLowering<GPUPipelineOptions>(
                        *lowerPM, options, buildGPUPipeline,
                        [](GPUPipelineOptions &) {})
                  : buildLowering<CPUPipelineOptions>(
                        *lowerPM, options, buildCPUPipeline,
                        [&](CPUPipelineOptions &cpu) {
                          cpu.residentReport = residentPath;
                        }))) {
    error("stage '" + lowerStage + "': bad options '" +
          options.pipelineOptions + "'");
    return failure();
  }
  return success();
}

LogicalResult TrainingStepCompiler::importModel() {
  Clock::time_point start = Clock::now();
  StringRef input = options.inputFile;
  if (input.ends_with(".pt") || input.ends_with(".pt2")) {
#ifdef TRACE_HAVE_TORCHSCRIPT
    module = importPyTorchModel(&context, options);
#else
    error("'" + input +
          "': this trace-compile was built without the TorchScript importer "
          "(LibTorch, which the .pt2 importer needs too); import with "
          "trace-import elsewhere and pass the .mlir");
    return failure();
#endif
  } else {
    std::string message;
    auto buffer = openInputFile(input, &message);
    if (!buffer) {
      error(message);
      return failure();
    }
    // Some upstream op parsers crash on malformed text (ParseGuard.h).
    if (failed(checkParserSurvives(*buffer, registry, {}, llvm::errs())))
      return failure();
    sourceMgr.AddNewSourceBuffer(std::move(buffer), SMLoc());
    module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  }
  if (!module ||
      failed(applyCheckpointPolicies(*module, options.checkpointPolicies)))
    return failure();
  if (options.verbose)
    llvm::errs() << "trace-compile: import: "
                 << llvm::format("%.2f s\n", seconds(start));
  if (failed(writeModule(*module, file("01-import.mlir"))))
    return failure();
  if (llvm::none_of(module->getOps<func::FuncOp>(), [](func::FuncOp f) {
        return f.isPublic() && !f.isExternal();
      })) {
    error("'" + input + "' has no public function to compile");
    return failure();
  }
  return success();
}

LogicalResult TrainingStepCompiler::runStages() {
  static constexpr StringLiteral stageFiles[] = {
      "02-autodiff.mlir", "03-remat.mlir", "04-schedule.mlir",
      "05-fuse.mlir"};
  for (auto [stage, pm] : llvm::zip_equal(stages, stagePMs))
    if (failed(runStage(*module, stringifyTrainingStepStage(stage), *pm,
                        options.verbose)) ||
        failed(writeModule(*module, file(stageFiles[unsigned(stage)]))))
      return failure();
  // The memory report describes the step that is compiled: it runs on the
  // fused functions, whose fusions hold their intermediates (what the
  // kernels allocate).
  PassManager pm(&context);
  TraceMemoryReportPassOptions table, json;
  table.output = file("memory-report.txt");
  json.json = true;
  json.output = file("memory-report.json");
  json.svg = file("memory-report.svg");
  pm.addPass(createTraceMemoryReportPass(table));
  pm.addPass(createTraceMemoryReportPass(json));
  return runStage(*module, "memory-report", pm, options.verbose);
}

LogicalResult TrainingStepCompiler::lower() {
  FailureOr<capi::Interface> collected = capi::collectCInterface(
      *module, name, cuda ? capi::Memory::CUDADevice : capi::Memory::Host,
      options.donateSaved);
  if (failed(collected))
    return failure();
  api = std::move(*collected);
  std::vector<std::string> exported;
  for (const capi::Function &fn : api->functions)
    exported.push_back(fn.symbol);
  // The saved values @f_bwd takes are donated: it frees each after its
  // last read (on the device, on its stream; see capi::Ownership).
  capi::markDonatedArguments(*module, *api);

  PassManager privatizePM(&context);
  privatizePM.addPass(createSymbolPrivatizePass(exported));
  privatizePM.addPass(createSymbolDCEPass());
  if (failed(runStage(*module, "privatize", privatizePM, options.verbose)) ||
      failed(runStage(*module, lowerStage, *lowerPM, options.verbose)) ||
      failed(capi::addCWrappers(*module, *api)) || failed(verify(*module)) ||
      failed(writeModule(*module,
                         file(cuda ? "06-cuda.mlir" : "06-cpu.mlir"))))
    return failure();
  if (!residentPath.empty() &&
      failed(addCompiledPrediction(residentPath, file("memory-report.json"),
                                   file("memory-report.txt"), *api)))
    return failure();
  launches = countLaunches(*module);
  if (cuda)
    return writeKernels(*module, file("kernels"), kernels);
  kernels = countCPUKernels(*module);
  return success();
}

LogicalResult
TrainingStepCompiler::writeText(StringRef path,
                                function_ref<void(raw_ostream &)> print) {
  if (llvm::Error err =
          llvm::writeToOutput(path, [&](raw_ostream &os) -> llvm::Error {
            print(os);
            return llvm::Error::success();
          })) {
    error("cannot write '" + path + "': " + toString(std::move(err)));
    return failure();
  }
  return success();
}

LogicalResult TrainingStepCompiler::buildLibrary() {
  Clock::time_point start = Clock::now();
  std::string buildDir = file("build");
  if (std::error_code ec = llvm::sys::fs::create_directory(buildDir)) {
    error("cannot create '" + buildDir + "': " + ec.message());
    return failure();
  }
  auto buildFile = [&](StringRef leaf) {
    SmallString<256> p(buildDir);
    llvm::sys::path::append(p, leaf);
    return std::string(p);
  };
  if (failed(writeText(file(name + ".h"),
                       [&](raw_ostream &os) {
                         capi::printCHeader(os, *api, options.inputFile);
                       })) ||
      failed(writeText(file(name + ".json"), [&](raw_ostream &os) {
        capi::printJSONInterface(os, *api);
      })))
    return failure();

  capi::ObjectOptions objectOptions;
  objectOptions.hostCPU = options.hostCPU;
  objectOptions.jobs = options.jobs;
  objectOptions.cacheDir = options.cacheDir;
  objectOptions.deviceKernels = cuda;
  objectOptions.entryPoints = api->exportedNames();
  std::vector<capi::ObjectFile> compiled;
  std::string message;
  if (failed(capi::compileObjects(*module, objectOptions, compiled,
                                  message))) {
    error(message);
    return failure();
  }
  std::vector<std::string> objects;
  unsigned cached = 0;
  for (const capi::ObjectFile &object : compiled) {
    objects.push_back(buildFile(object.name + ".o"));
    cached += object.cached;
    if (failed(writeText(objects.back(), [&](raw_ostream &os) {
          os << object.object->getBuffer();
        })))
      return failure();
  }
  if (options.verbose)
    llvm::errs() << "trace-compile: objects: " << compiled.size() << " ("
                 << cached << " from the cache): "
                 << llvm::format("%.2f s\n", seconds(start));

  capi::LinkOptions link;
  link.compilerDriver = cxx;
  link.logPath = buildFile("link.log");
  if (cuda) {
#ifdef TRACE_CUDA_RUNTIME_STATIC
    std::string runtime = runtimeLibrary(TRACE_CUDA_RUNTIME_STATIC);
    if (!llvm::sys::fs::exists(runtime)) {
      error("cannot find the CUDA runtime '" + runtime + "' (trace-compile "
            "looks in the lib directory beside its own)");
      return failure();
    }
    link.libraries = {runtime,
                      "-L" TRACE_CUDA_ROOT "/lib64/stubs", "-lcuda"};
#endif
  } else {
    // The CPU runtime (matmuls on OpenBLAS) goes next to the library, found
    // through $ORIGIN; memrefCopy comes from MLIR's C runner utilities, the
    // kernels' thread teams from LLVM's OpenMP runtime beside them.
    std::string runtime = runtimeLibrary(TRACE_CPU_RUNTIME);
    std::string copy = file(llvm::sys::path::filename(runtime));
    if (std::error_code ec = llvm::sys::fs::copy_file(runtime, copy)) {
      error("cannot copy the CPU runtime '" + runtime + "' (trace-compile "
            "looks in the lib directory beside its own): " + ec.message());
      return failure();
    }
    link.libraries = {copy, "-Wl,-rpath,$ORIGIN",
                      "-L" TRACE_LLVM_LIBRARY_DIR, "-lmlir_c_runner_utils",
                      "-lomp", "-Wl,-rpath," TRACE_LLVM_LIBRARY_DIR};
  }
  link.libraries.push_back("-lm");
  link.libraries.push_back("-lstdc++");
  if (failed(capi::linkSharedLibrary(*api, objects, file("lib" + name + ".so"),
                                     link, message))) {
    error(message);
    return failure();
  }
  if (options.verbose)
    llvm::errs() << "trace-compile: object and link: "
                 << llvm::format("%.2f s\n", seconds(start));
  return success();
}

LogicalResult TrainingStepCompiler::commitOutput() {
  if (failed(commit(staging, out)))
    return failure();
  llvm::outs() << "trace-compile: wrote " << out << ": "
               << api->functions.size() << " functions in lib" << name
               << ".so, " << kernels << " kernels for " << launches
               << " launches\n";
  return success();
}

} // namespace

int mlir::trace::compileTrainingStep(const TraceCompileOptions &options) {
  // The host object is emitted for this machine's target.
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  TrainingStepCompiler compiler(options);
  return failed(compiler.checkOptions()) ||
                 failed(compiler.buildPassManagers()) ||
                 failed(compiler.importModel()) ||
                 failed(compiler.runStages()) || failed(compiler.lower()) ||
                 failed(compiler.buildLibrary()) ||
                 failed(compiler.commitOutput())
             ? 1
             : 0;
}
