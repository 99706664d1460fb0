//===- trace-compile.cpp - the whole trace-mlir pipeline in one command ---===//
//
//   trace-compile model.pt|model.mlir --target=cpu|cuda -o OUTDIR
//       [--input-shape ...] [--input-shapes-file F] [--checkpoint-modules RE]
//       [--dropout-as-identity] [--remat=OPTS | --no-remat] [--schedule=OPTS]
//       [--fuse=OPTS] [--pipeline=OPTS] [--name NAME]
//
// Imports (TorchScript, in process) or parses the model, then runs, in one
// pass manager per stage: trace-autodiff, trace-remat, trace-schedule,
// trace-fuse, and trace-cpu-pipeline or trace-gpu-pipeline, writing the IR
// after each stage (01-import.mlir ... 06-<target>.mlir), the memory report
// (memory-report.{txt,json,svg}), for cuda the PTX of every kernel
// (kernels/<module>.ptx), and an ahead-of-time shared library lib<NAME>.so
// with a C header <NAME>.h: for each public function f of the model,
// NAME_f_fwd, NAME_f_bwd and NAME_f_grad on plain pointers (host pointers
// for cpu, device pointers for cuda).
//
// Everything is written into a fresh directory next to OUTDIR, renamed into
// place at the end; on any failure the error is printed (with its location
// where there is one), the directory is removed and the exit status is 1.
//
//===----------------------------------------------------------------------===//

#ifdef TRACE_HAVE_TORCHSCRIPT
#include "trace/Importer/TorchScript.h"
#endif

#include "trace/Conversion/Passes.h"
#include "trace/Dialect/Trace/IR/TraceDialect.h"
#include "trace/Pipelines/Pipelines.h"
#include "trace/Support/ParseGuard.h"
#include "trace/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Target/LLVMIR/Export.h"

#include "llvm/ADT/StringSet.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/SubtargetFeature.h"

#include <chrono>
#include <set>
#include <string>
#include <vector>

using namespace mlir;
namespace cl = llvm::cl;

static cl::OptionCategory category("trace-compile options");

static cl::opt<std::string> inputFile(cl::Positional, cl::Required,
                                      cl::desc("<model.pt | model.mlir>"),
                                      cl::cat(category));
static cl::opt<std::string> outputDir("o", cl::Required,
                                      cl::desc("Output directory"),
                                      cl::value_desc("dir"), cl::cat(category));
static cl::opt<std::string> target("target", cl::Required,
                                   cl::desc("cpu or cuda"), cl::cat(category));
static cl::opt<std::string>
    libName("name",
            cl::desc("Name of the library, header and C functions (default: "
                     "the input file's stem)"),
            cl::cat(category));

// The importer's options, as trace-import has them.
static cl::list<std::string> inputShapes(
    "input-shape",
    cl::desc("NAME=D0x...xDTYPE: shape and dtype of a forward input of a .pt "
             "(default: the .shapes file next to the model, if any)"),
    cl::CommaSeparated, cl::cat(category));
static cl::opt<std::string> inputShapesFile(
    "input-shapes-file",
    cl::desc("File with one NAME=D0x...xDTYPE line per forward input"),
    cl::value_desc("file"), cl::cat(category));
static cl::opt<std::string> checkpointModules(
    "checkpoint-modules",
    cl::desc("Regex: submodules imported as trace.checkpoint regions"),
    cl::cat(category));
static cl::opt<bool> dropoutAsIdentity(
    "dropout-as-identity", cl::desc("Import dropout as identity (eval mode)"),
    cl::cat(category));

// Pass options, passed through as the passes' option strings.
static cl::opt<std::string>
    rematOptions("remat", cl::desc("trace-remat options, e.g. \"budget=0.5\""),
                 cl::cat(category));
static cl::opt<bool> noRemat("no-remat",
                             cl::desc("Keep trace-autodiff's own split"),
                             cl::cat(category));
static cl::opt<std::string>
    scheduleOptions("schedule", cl::desc("trace-schedule options"),
                    cl::cat(category));
static cl::opt<bool> noSchedule("no-schedule", cl::desc("Skip trace-schedule"),
                                cl::cat(category));
static cl::opt<std::string> fuseOptions("fuse",
                                        cl::desc("trace-fuse options"),
                                        cl::cat(category));
static cl::opt<bool> noFuse("no-fuse", cl::desc("Skip trace-fuse"),
                            cl::cat(category));
static cl::opt<std::string> pipelineOptions(
    "pipeline",
    cl::desc("Options of trace-cpu-pipeline or trace-gpu-pipeline, e.g. "
             "\"chip=sm_80\" (cuda)"),
    cl::cat(category));
static cl::opt<std::string>
    hostCPU("host-cpu",
            cl::desc("CPU the host code is compiled for: generic (default, "
                     "any x86-64) or native"),
            cl::init("generic"), cl::cat(category));
static cl::opt<std::string> compilerDriver(
    "cc",
    cl::desc("Compiler driver that links the shared library (default: "
             "clang++ of LLVM 22, else c++)"),
    cl::cat(category));
static cl::opt<bool> verbose("v", cl::desc("Print each stage and its time"),
                             cl::cat(category));

namespace {

double seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since)
      .count();
}

/// Where the error goes when no location is known.
void error(const llvm::Twine &message) {
  llvm::errs() << "trace-compile: error: " << message << "\n";
}

/// A tensor argument or result of an exported function, as the C API sees
/// it.
struct Slot {
  std::string name;  ///< trace.name, else argN / resultN
  std::string cname; ///< a C identifier
  RankedTensorType type;
};

struct Entry {
  std::string mlirName; ///< forward_grad
  std::string cname;    ///< gpt_forward_grad
  std::string role;     ///< what it computes, for the header
  std::vector<Slot> args, results;
};

std::string cIdentifier(StringRef name) {
  std::string out;
  for (char c : name)
    out += (llvm::isAlnum(c) || c == '_') ? c : '_';
  if (out.empty() || llvm::isDigit(out[0]))
    out = "_" + out;
  return out;
}

/// C storage type of an element type; empty when unsupported.
std::string cElementType(Type type) {
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

int64_t elementBytes(Type type) {
  if (type.isInteger(1))
    return 1;
  return type.getIntOrFloatBitWidth() / 8;
}

std::string typeText(Type type) {
  std::string s;
  llvm::raw_string_ostream os(s);
  type.print(os);
  return s;
}

/// Writes `module` to `path`; false after printing an error.
bool writeModule(ModuleOp module, StringRef path) {
  std::string errorMessage;
  auto file = openOutputFile(path, &errorMessage);
  if (!file) {
    error("cannot write '" + path + "': " + errorMessage);
    return false;
  }
  module.print(file->os());
  file->os() << "\n";
  file->keep();
  return true;
}

bool writeText(StringRef path, StringRef text) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  if (ec) {
    error("cannot write '" + path + "': " + ec.message());
    return false;
  }
  os << text;
  return true;
}

/// Runs a textual pipeline (nested in the module's pass manager, so without
/// the `builtin.module(...)` around it) on the module; false after the pass or the
/// parser reported the error.
bool runStage(ModuleOp module, StringRef stage, StringRef pipeline) {
  auto start = std::chrono::steady_clock::now();
  PassManager pm(module->getContext());
  std::string parseErrors;
  llvm::raw_string_ostream parseOs(parseErrors);
  if (failed(parsePassPipeline(pipeline, pm, parseOs))) {
    error("stage '" + stage + "': bad pipeline '" + pipeline +
          "': " + StringRef(parseErrors).trim());
    return false;
  }
  if (failed(pm.run(module))) {
    error("stage '" + stage + "' failed (" + pipeline + ")");
    return false;
  }
  if (verbose)
    llvm::errs() << "trace-compile: " << stage << ": "
                 << llvm::format("%.2f s\n", seconds(start));
  return true;
}

/// Parses a stage's pipeline without running it, so a bad pass option is
/// reported before any work; false after printing the error.
bool checkPipeline(MLIRContext *context, StringRef stage, StringRef pipeline) {
  OpPassManager pm("builtin.module");
  std::string parseErrors;
  llvm::raw_string_ostream parseOs(parseErrors);
  if (succeeded(parsePassPipeline(pipeline, pm, parseOs)))
    return true;
  error("stage '" + stage + "': bad pipeline '" + pipeline +
        "': " + StringRef(parseErrors).trim());
  return false;
}

std::string withOptions(StringRef pass, StringRef options) {
  return options.empty() ? pass.str() : (pass + "{" + options + "}").str();
}

/// Collects the C view of every exported function; false after an error at
/// the function.
bool collectEntries(ModuleOp module, ArrayRef<std::string> publicNames,
                    StringRef prefix, std::vector<Entry> &entries) {
  for (const std::string &f : publicNames) {
    for (auto [suffix, role] :
         {std::pair<StringRef, StringRef>{"_fwd",
                                          "forward: results, then the values "
                                          "saved for backward"},
          {"_bwd", "backward: saved values and result cotangents -> "
                   "gradients"},
          {"_grad", "joint forward + backward: arguments and result "
                    "cotangents -> results and gradients"}}) {
      std::string name = f + suffix.str();
      auto func = module.lookupSymbol<func::FuncOp>(name);
      if (!func) {
        error("no function @" + name + " after trace-autodiff");
        return false;
      }
      Entry entry;
      entry.mlirName = name;
      entry.cname = cIdentifier(prefix.str() + "_" + name);
      entry.role = role.str();
      llvm::StringSet<> used;
      auto addSlots = [&](TypeRange types, bool results,
                          std::vector<Slot> &slots) -> bool {
        for (auto [i, type] : llvm::enumerate(types)) {
          auto tensor = dyn_cast<RankedTensorType>(type);
          if (!tensor || !tensor.hasStaticShape() ||
              cElementType(tensor.getElementType()).empty()) {
            func.emitError() << (results ? "result " : "argument ") << i
                             << " has type " << type
                             << "; the C API takes statically shaped tensors "
                                "of f32, f64, f16, bf16, i1, i32, i64";
            return false;
          }
          auto nameAttr =
              results ? func.getResultAttrOfType<StringAttr>(
                            i, trace::TraceDialect::kNameAttrName)
                      : func.getArgAttrOfType<StringAttr>(
                            i, trace::TraceDialect::kNameAttrName);
          Slot slot;
          slot.name = nameAttr ? nameAttr.getValue().str()
                               : (results ? "result" : "arg") +
                                     std::to_string(i);
          std::string base = (results ? "out_" : "") + cIdentifier(slot.name);
          slot.cname = base;
          for (int n = 2; !used.insert(slot.cname).second; ++n)
            slot.cname = base + "_" + std::to_string(n);
          slot.type = tensor;
          slots.push_back(slot);
        }
        return true;
      };
      if (!addSlots(func.getArgumentTypes(), false, entry.args) ||
          !addSlots(func.getResultTypes(), true, entry.results))
        return false;
      entries.push_back(std::move(entry));
    }
  }
  return true;
}

std::string descriptorType(int64_t rank) {
  return "trace_memref" + std::to_string(rank);
}

std::string shapeText(RankedTensorType type) {
  std::string s;
  for (int64_t d : type.getShape())
    s += std::to_string(d) + "x";
  return s + typeText(type.getElementType());
}

/// The C declaration of an entry's function.
std::string declaration(const Entry &e) {
  std::string s = "void " + e.cname + "(";
  bool first = true;
  for (const Slot &a : e.args) {
    s += (first ? "" : ", ") + std::string("const ") +
         cElementType(a.type.getElementType()) + " *" + a.cname;
    first = false;
  }
  for (const Slot &r : e.results) {
    s += (first ? "" : ", ") + cElementType(r.type.getElementType()) + " *" +
         r.cname;
    first = false;
  }
  if (first)
    s += "void";
  return s + ")";
}

std::string makeHeader(StringRef name, ArrayRef<Entry> entries, bool cuda,
                       StringRef input) {
  std::string guard = "TRACE_COMPILED_" + llvm::StringRef(cIdentifier(name)).upper();
  std::string s;
  llvm::raw_string_ostream os(s);
  os << "/* " << name << ".h: generated by trace-compile from " << input
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
       << " * inputs computed there need no synchronization first. Needs "
          "the CUDA\n"
       << " * driver (libcuda.so.1)\n"
       << " * and, for matmuls, cuBLAS (libcublas.so.13 or .12, loaded at "
          "the first\n"
       << " * matmul; the environment variable TRACE_CUBLAS names another "
          "file).\n";
  else
    os << " * All pointers are host pointers. Inputs are only read.\n";
  os << " * f16 and bf16 elements are their 16-bit patterns (uint16_t); i1 "
        "is one\n"
     << " * byte (0 or 1) per element. Results are written in place; the "
        "library\n"
     << " * allocates and frees its own temporaries.\n */\n"
     << "#ifndef " << guard << "\n#define " << guard << "\n\n"
     << "#include <stdint.h>\n\n#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n";
  for (const Entry &e : entries) {
    os << "/* @" << e.mlirName << ": " << e.role << ".\n";
    for (const Slot &a : e.args)
      os << " *   in  " << a.cname << ": " << shapeText(a.type) << "  ("
         << a.name << ")\n";
    for (const Slot &r : e.results)
      os << " *   out " << r.cname << ": " << shapeText(r.type) << "  ("
         << r.name << ")\n";
    os << " */\n" << declaration(e) << ";\n\n";
  }
  os << "#ifdef __cplusplus\n}\n#endif\n\n#endif /* " << guard << " */\n";
  return s;
}

/// The C wrappers: memref descriptors around the caller's pointers, the
/// lowered function's C interface, results copied out and freed.
std::string makeWrappers(StringRef name, ArrayRef<Entry> entries, bool cuda) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << "/* Generated by trace-compile: the C API of lib" << name
     << ".so over the\n * _mlir_ciface_ functions of the lowered module. */\n"
     << "#include <stdint.h>\n#include <stdlib.h>\n#include <string.h>\n"
     << "#include \"" << name << ".h\"\n\n";
  std::set<int64_t> ranks;
  for (const Entry &e : entries) {
    for (const Slot &a : e.args)
      ranks.insert(a.type.getRank());
    for (const Slot &r : e.results)
      ranks.insert(r.type.getRank());
  }
  for (int64_t rank : ranks) {
    os << "typedef struct { void *allocated; void *aligned; int64_t offset;";
    if (rank)
      os << " int64_t sizes[" << rank << "]; int64_t strides[" << rank
         << "];";
    os << " } " << descriptorType(rank) << ";\n";
  }
  if (cuda)
    os << "\n/* The project's CUDA runtime (linked in statically). */\n"
       << "void mgpuMemcpy(void *dst, void *src, uint64_t bytes, void "
          "*stream);\n"
       << "void mgpuMemFree(void *pointer, void *stream);\n"
       << "void mgpuStreamSynchronize(void *stream);\n";
  os << "\n";
  for (const Entry &e : entries) {
    std::string resultType;
    if (e.results.size() == 1)
      resultType = descriptorType(e.results[0].type.getRank());
    else if (e.results.size() > 1) {
      resultType = "struct " + e.cname + "_results";
      os << resultType << " {";
      for (auto [i, r] : llvm::enumerate(e.results))
        os << " " << descriptorType(r.type.getRank()) << " r" << i << ";";
      os << " };\n";
    }
    os << "void _mlir_ciface_" << e.mlirName << "(";
    bool first = true;
    if (!resultType.empty()) {
      os << resultType << " *";
      first = false;
    }
    for (const Slot &a : e.args) {
      os << (first ? "" : ", ") << descriptorType(a.type.getRank()) << " *";
      first = false;
    }
    if (first)
      os << "void";
    os << ");\n\n" << declaration(e) << " {\n";
    for (auto [i, a] : llvm::enumerate(e.args)) {
      ArrayRef<int64_t> shape = a.type.getShape();
      os << "  " << descriptorType(shape.size()) << " a" << i << " = {(void *)"
         << a.cname << ", (void *)" << a.cname << ", 0";
      if (!shape.empty()) {
        os << ", {";
        llvm::interleaveComma(shape, os);
        os << "}, {";
        SmallVector<int64_t> strides(shape.size(), 1);
        for (int64_t d = int64_t(shape.size()) - 2; d >= 0; --d)
          strides[d] = strides[d + 1] * shape[d + 1];
        llvm::interleaveComma(strides, os);
        os << "}";
      }
      os << "};\n";
    }
    if (!resultType.empty())
      os << "  " << resultType << " r;\n";
    os << "  _mlir_ciface_" << e.mlirName << "(";
    first = true;
    if (!resultType.empty()) {
      os << "&r";
      first = false;
    }
    for (size_t i = 0; i < e.args.size(); ++i) {
      os << (first ? "" : ", ") << "&a" << i;
      first = false;
    }
    os << ");\n";
    // Copy each result out; free each buffer the call allocated once (two
    // results may share one), never a caller's input.
    os << "  void *freed[" << std::max<size_t>(e.results.size(), 1)
       << "]; int nfreed = 0; int i;\n";
    for (auto [i, r] : llvm::enumerate(e.results)) {
      std::string d = e.results.size() == 1 ? "r" : "r.r" + std::to_string(i);
      int64_t bytes =
          r.type.getNumElements() * elementBytes(r.type.getElementType());
      std::string src = "(char *)" + d + ".aligned + " + d + ".offset * " +
                        std::to_string(elementBytes(r.type.getElementType()));
      if (cuda)
        os << "  mgpuMemcpy(" << r.cname << ", " << src << ", " << bytes
           << ", 0);\n";
      else
        os << "  memcpy(" << r.cname << ", " << src << ", " << bytes << ");\n";
      os << "  for (i = 0; i < nfreed && freed[i] != " << d
         << ".allocated; ++i) {}\n"
         << "  if (i == nfreed";
      for (const Slot &a : e.args)
        os << " && " << d << ".allocated != (const void *)" << a.cname;
      os << ") freed[nfreed++] = " << d << ".allocated;\n";
    }
    if (cuda)
      os << "  mgpuStreamSynchronize(0);\n"
         << "  for (i = 0; i < nfreed; ++i) mgpuMemFree(freed[i], 0);\n";
    else
      os << "  for (i = 0; i < nfreed; ++i) free(freed[i]);\n";
    os << "  (void)freed; (void)nfreed; (void)i;\n}\n\n";
  }
  return s;
}

/// Translates the lowered module to LLVM IR and emits a host object file.
bool emitObject(ModuleOp module, StringRef path) {
  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(module, llvmContext);
  if (!llvmModule) {
    error("translation to LLVM IR failed");
    return false;
  }
  llvm::Triple triple(llvm::sys::getProcessTriple());
  std::string targetError;
  const llvm::Target *llvmTarget =
      llvm::TargetRegistry::lookupTarget(triple, targetError);
  if (!llvmTarget) {
    error("no LLVM target for " + triple.str() + ": " + targetError);
    return false;
  }
  std::string cpu = hostCPU == "native" ? llvm::sys::getHostCPUName().str()
                                        : std::string(hostCPU);
  std::string features;
  if (hostCPU == "native") {
    llvm::SubtargetFeatures f;
    for (auto &feature : llvm::sys::getHostCPUFeatures())
      f.AddFeature(feature.first(), feature.second);
    features = f.getString();
  }
  llvm::TargetOptions options;
  std::unique_ptr<llvm::TargetMachine> machine(llvmTarget->createTargetMachine(
      triple, cpu, features, options, llvm::Reloc::PIC_, std::nullopt,
      llvm::CodeGenOptLevel::Aggressive));
  if (!machine) {
    error("cannot create a target machine for " + triple.str() + " (" + cpu +
          ")");
    return false;
  }
  llvmModule->setDataLayout(machine->createDataLayout());
  llvmModule->setTargetTriple(triple);
  if (llvm::Error err =
          makeOptimizingTransformer(2, 0, machine.get())(llvmModule.get())) {
    error("LLVM optimization failed: " + llvm::toString(std::move(err)));
    return false;
  }
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::OF_None);
  if (ec) {
    error("cannot write '" + path + "': " + ec.message());
    return false;
  }
  llvm::legacy::PassManager pm;
  if (machine->addPassesToEmitFile(pm, os, nullptr,
                                   llvm::CodeGenFileType::ObjectFile)) {
    error("the target machine cannot emit an object file");
    return false;
  }
  pm.run(*llvmModule);
  os.flush();
  return true;
}

/// Runs a program, its output into `logPath`; false after printing the
/// command and its output.
bool runProgram(StringRef program, ArrayRef<std::string> args,
                StringRef logPath) {
  SmallVector<StringRef> argv{program};
  for (const std::string &a : args)
    argv.push_back(a);
  std::optional<StringRef> redirects[] = {std::nullopt, logPath, logPath};
  std::string message;
  int rc = llvm::sys::ExecuteAndWait(program, argv, std::nullopt, redirects, 0,
                                     0, &message);
  if (rc != 0) {
    std::string command;
    for (StringRef a : argv)
      command += a.str() + " ";
    error("'" + StringRef(command).trim() + "' failed" +
          (message.empty() ? "" : ": " + message));
    if (auto log = llvm::MemoryBuffer::getFile(logPath))
      llvm::errs() << (*log)->getBuffer();
    return false;
  }
  return true;
}

/// Writes the PTX of every gpu.binary into `dir`; false after an error.
bool writeKernels(ModuleOp module, StringRef dir, unsigned &count) {
  count = 0;
  if (std::error_code ec = llvm::sys::fs::create_directory(dir)) {
    error("cannot create '" + dir + "': " + ec.message());
    return false;
  }
  bool ok = true;
  module.walk([&](gpu::BinaryOp binary) {
    for (Attribute attr : binary.getObjects()) {
      auto object = dyn_cast<gpu::ObjectAttr>(attr);
      if (!object)
        continue;
      if (object.getFormat() != gpu::CompilationTarget::Assembly) {
        binary.emitError() << "kernels/*.ptx need PTX: run trace-gpu-pipeline "
                              "with format=isa (the default)";
        ok = false;
        return WalkResult::interrupt();
      }
      SmallString<128> path(dir);
      llvm::sys::path::append(path, binary.getSymName() + ".ptx");
      if (!writeText(path, object.getObject().getValue())) {
        ok = false;
        return WalkResult::interrupt();
      }
      ++count;
    }
    return WalkResult::advance();
  });
  if (ok && count == 0) {
    error("the GPU pipeline made no kernel");
    return false;
  }
  return ok;
}

/// The output directory under construction; removed unless committed.
struct StagingDir {
  std::string path;
  bool committed = false;
  ~StagingDir() {
    if (!path.empty() && !committed)
      llvm::sys::fs::remove_directories(path);
  }
};

std::string findCompiler() {
  if (!compilerDriver.empty())
    return compilerDriver;
  if (llvm::sys::fs::can_execute(TRACE_CLANGXX))
    return TRACE_CLANGXX;
  if (auto cxx = llvm::sys::findProgramByName("c++"))
    return *cxx;
  return "";
}

int compile() {
  bool cuda;
  if (target == "cpu")
    cuda = false;
  else if (target == "cuda")
    cuda = true;
  else {
    error("unknown --target '" + target + "' (expected cpu or cuda)");
    return 1;
  }
  if (noRemat && !rematOptions.empty()) {
    error("--remat and --no-remat exclude each other");
    return 1;
  }
#ifndef TRACE_CUDA_RUNTIME_STATIC
  if (cuda) {
    error("--target=cuda: trace-compile was built without the CUDA runtime "
          "(no CUDA toolkit at configure time)");
    return 1;
  }
#endif
  if (!llvm::sys::fs::exists(inputFile)) {
    error("cannot read '" + inputFile + "': no such file");
    return 1;
  }
  std::string name = libName.empty()
                         ? cIdentifier(llvm::sys::path::stem(inputFile))
                         : std::string(libName);
  if (name != cIdentifier(name)) {
    error("--name '" + name + "' is not a C identifier");
    return 1;
  }
  std::string cxx = findCompiler();
  if (cxx.empty()) {
    error("no C/C++ compiler driver found (--cc)");
    return 1;
  }

  // The staging directory, next to OUTDIR so the final rename stays on one
  // file system.
  SmallString<256> out(outputDir);
  llvm::sys::path::remove_dots(out, /*remove_dot_dot=*/true);
  if (out.empty() || llvm::sys::path::filename(out).empty()) {
    error("bad output directory '" + outputDir + "'");
    return 1;
  }
  StagingDir staging;
  {
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
      error("cannot create the output directory next to '" + outputDir +
            "': " + ec.message());
      return 1;
    }
    staging.path = std::string(candidate);
  }
  auto file = [&](StringRef leaf) {
    SmallString<256> p(staging.path);
    llvm::sys::path::append(p, leaf);
    return std::string(p);
  };

  DialectRegistry registry;
  trace::registerTraceDialects(registry);
  registerAllDialects(registry);
  registerAllExtensions(registry);
  registerAllToLLVMIRTranslations(registry);
  MLIRContext context(registry);
  // Errors point at the model's source; the whole op printed after them
  // (MLIR's default) buries them.
  context.printOpOnDiagnostic(false);
  context.loadDialect<trace::TraceDialect, func::FuncDialect>();
  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler handler(sourceMgr, &context);

  // Every pass option is checked before any work.
  std::string targetPipeline = withOptions(
      cuda ? "trace-gpu-pipeline" : "trace-cpu-pipeline", pipelineOptions);
  if (!checkPipeline(&context, "remat",
                     withOptions("trace-remat", rematOptions)) ||
      !checkPipeline(&context, "schedule",
                     "func.func(" +
                         withOptions("trace-schedule", scheduleOptions) +
                         ")") ||
      !checkPipeline(&context, "fuse",
                     "func.func(" + withOptions("trace-fuse", fuseOptions) +
                         ")") ||
      !checkPipeline(&context, cuda ? "gpu-pipeline" : "cpu-pipeline",
                     targetPipeline))
    return 1;

  // 1. Import or parse.
  auto start = std::chrono::steady_clock::now();
  OwningOpRef<ModuleOp> module;
  if (StringRef(inputFile).ends_with(".pt")) {
#ifdef TRACE_HAVE_TORCHSCRIPT
    trace::TorchScriptImportOptions options;
    std::vector<std::string> specs(inputShapes.begin(), inputShapes.end());
    std::string shapesFile = inputShapesFile;
    if (specs.empty() && shapesFile.empty()) {
      SmallString<256> sidecar(inputFile);
      llvm::sys::path::replace_extension(sidecar, "shapes");
      if (llvm::sys::fs::exists(sidecar))
        shapesFile = std::string(sidecar);
    }
    if (!shapesFile.empty()) {
      std::string message;
      if (!trace::readInputSpecsFile(shapesFile, specs, message)) {
        error(message);
        return 1;
      }
    }
    for (const std::string &text : specs) {
      trace::InputSpec spec;
      std::string message;
      if (!trace::parseInputSpec(text, spec, message)) {
        error("--input-shape: " + message);
        return 1;
      }
      options.inputs.push_back(spec);
    }
    options.checkpointModules = checkpointModules;
    options.dropoutAsIdentity = dropoutAsIdentity;
    module = trace::importTorchScript(&context, inputFile, options);
#else
    error("'" + inputFile +
          "': this trace-compile was built without the TorchScript importer "
          "(LibTorch); import with trace-import elsewhere and pass the .mlir");
    return 1;
#endif
  } else {
    std::string message;
    auto buffer = openInputFile(inputFile, &message);
    if (!buffer) {
      error(message);
      return 1;
    }
    // Some upstream op parsers crash on malformed text (ParseGuard.h).
    if (failed(
            trace::checkParserSurvives(*buffer, registry, {}, llvm::errs())))
      return 1;
    sourceMgr.AddNewSourceBuffer(std::move(buffer), SMLoc());
    module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  }
  if (!module)
    return 1;
  if (verbose)
    llvm::errs() << "trace-compile: import: "
                 << llvm::format("%.2f s\n", seconds(start));
  if (!writeModule(*module, file("01-import.mlir")))
    return 1;

  // The model's public functions, before trace-autodiff adds its own.
  std::vector<std::string> publicNames;
  for (auto func : module->getOps<func::FuncOp>())
    if (func.isPublic() && !func.isExternal())
      publicNames.push_back(func.getSymName().str());
  if (publicNames.empty()) {
    error("'" + inputFile + "' has no public function to compile");
    return 1;
  }

  // 2-5. The trace stages.
  if (!runStage(*module, "autodiff", "trace-autodiff") ||
      !writeModule(*module, file("02-autodiff.mlir")))
    return 1;
  if (!noRemat &&
      (!runStage(*module, "remat",
                 withOptions("trace-remat", rematOptions)) ||
       !writeModule(*module, file("03-remat.mlir"))))
    return 1;
  if (!noSchedule &&
      (!runStage(*module, "schedule",
                 "func.func(" +
                     withOptions("trace-schedule", scheduleOptions) + ")") ||
       !writeModule(*module, file("04-schedule.mlir"))))
    return 1;
  // The memory report of the schedule that is compiled.
  if (!runStage(*module, "memory-report",
                "trace-memory-report{output=" +
                    file("memory-report.txt") +
                    "},trace-memory-report{json=true output=" +
                    file("memory-report.json") +
                    " svg=" + file("memory-report.svg") + "}"))
    return 1;
  if (!noFuse &&
      (!runStage(*module, "fuse",
                 "func.func(" + withOptions("trace-fuse", fuseOptions) +
                     ")") ||
       !writeModule(*module, file("05-fuse.mlir"))))
    return 1;

  // The C API: for each public f, f_fwd, f_bwd and f_grad. Everything else
  // becomes private and is dropped before lowering.
  std::vector<Entry> entries;
  if (!collectEntries(*module, publicNames, name, entries))
    return 1;
  std::string exclude;
  for (const Entry &e : entries)
    exclude += (exclude.empty() ? "" : ",") + e.mlirName;

  // 6. Lowering.
  std::string lowering =
      "symbol-privatize{exclude=" + exclude +
      "},symbol-dce,func.func(llvm-request-c-wrappers)," + targetPipeline;
  std::string lowered = cuda ? "06-cuda.mlir" : "06-cpu.mlir";
  if (!runStage(*module, cuda ? "gpu-pipeline" : "cpu-pipeline", lowering) ||
      !writeModule(*module, file(lowered)))
    return 1;
  unsigned kernels = 0;
  if (cuda && !writeKernels(*module, file("kernels"), kernels))
    return 1;

  // 7. Host object, C wrappers and header, the shared library.
  start = std::chrono::steady_clock::now();
  SmallString<256> buildDir(file("build"));
  if (std::error_code ec = llvm::sys::fs::create_directory(buildDir)) {
    error("cannot create '" + buildDir + "': " + ec.message());
    return 1;
  }
  auto buildFile = [&](StringRef leaf) {
    SmallString<256> p(buildDir);
    llvm::sys::path::append(p, leaf);
    return std::string(p);
  };
  if (!emitObject(*module, buildFile(name + ".host.o")))
    return 1;
  if (!writeText(file(name + ".h"),
                 makeHeader(name, entries, cuda, inputFile)) ||
      !writeText(buildFile(name + "_api.c"),
                 makeWrappers(name, entries, cuda)))
    return 1;
  std::string script = "{\n  global:\n";
  for (const Entry &e : entries)
    script += "    " + e.cname + ";\n";
  script += "  local: *;\n};\n";
  if (!writeText(buildFile(name + ".map"), script))
    return 1;

  std::vector<std::string> args = {
      "-shared", "-fPIC", "-O2", "-x", "c", "-I" + staging.path,
      buildFile(name + "_api.c"), "-x", "none", buildFile(name + ".host.o"),
      "-o", file("lib" + name + ".so"),
      "-Wl,--version-script=" + buildFile(name + ".map"),
      "-Wl,--no-undefined", "-Wl,--as-needed"};
  if (cuda) {
#ifdef TRACE_CUDA_RUNTIME_STATIC
    args.push_back(TRACE_CUDA_RUNTIME_STATIC);
    args.push_back("-L" TRACE_CUDA_ROOT "/lib64/stubs");
    args.push_back("-lcuda");
#endif
  } else {
    // The CPU runtime (matmuls on OpenBLAS) goes next to the library, found
    // through $ORIGIN; memrefCopy comes from MLIR's C runner utilities.
    std::string runtime = TRACE_CPU_RUNTIME;
    if (std::error_code ec = llvm::sys::fs::copy_file(
            runtime, file(llvm::sys::path::filename(runtime)))) {
      error("cannot copy the CPU runtime '" + runtime + "': " + ec.message());
      return 1;
    }
    args.push_back(file(llvm::sys::path::filename(runtime)));
    args.push_back("-Wl,-rpath,$ORIGIN");
    args.push_back("-L" TRACE_LLVM_LIBRARY_DIR);
    args.push_back("-lmlir_c_runner_utils");
    args.push_back("-Wl,-rpath," TRACE_LLVM_LIBRARY_DIR);
  }
  args.push_back("-lm");
  args.push_back("-lstdc++");
  if (!runProgram(cxx, args, buildFile("link.log")))
    return 1;
  if (verbose)
    llvm::errs() << "trace-compile: object and link: "
                 << llvm::format("%.2f s\n", seconds(start));

  // 8. Into place: an existing OUTDIR is replaced only now.
  std::string old;
  if (llvm::sys::fs::exists(out)) {
    if (!llvm::sys::fs::is_directory(out)) {
      error("'" + outputDir + "' exists and is not a directory");
      return 1;
    }
    old = staging.path + ".old";
    if (std::error_code ec = llvm::sys::fs::rename(out, old)) {
      error("cannot replace '" + outputDir + "': " + ec.message());
      return 1;
    }
  }
  if (std::error_code ec = llvm::sys::fs::rename(staging.path, out)) {
    if (!old.empty())
      (void)llvm::sys::fs::rename(old, out);
    error("cannot rename the output into '" + outputDir + "': " + ec.message());
    return 1;
  }
  staging.committed = true;
  if (!old.empty())
    llvm::sys::fs::remove_directories(old);
  llvm::outs() << "trace-compile: wrote " << out << ": " << entries.size()
               << " functions in lib" << name << ".so";
  if (cuda)
    llvm::outs() << ", " << kernels << " kernels";
  llvm::outs() << "\n";
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  registerAsmPrinterCLOptions();
  registerMLIRContextCLOptions();
  registerPassManagerCLOptions();
  registerAllPasses();
  trace::registerTracePasses();
  trace::registerTraceConversionPasses();
  trace::registerTracePipelines();
  trace::registerTraceGPUPipeline();
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(
      argc, argv,
      "trace-compile: a model to an ahead-of-time training-step library\n\n"
      "  Writes into OUTDIR the IR after each stage (01-import.mlir ...\n"
      "  06-<target>.mlir), memory-report.{txt,json,svg}, for cuda\n"
      "  kernels/<module>.ptx, and lib<NAME>.so with its C header <NAME>.h.\n");
  return compile();
}
