//===- Objects.cpp - a kernel per object, compiled in parallel, cached ----===//
//
// The lowered module becomes LLVM IR once, then one LLVM module per kernel
// (trace-outline-kernels), one per host function and one for the rest of
// the host code. Each unit travels as
// bitcode to a thread with an LLVMContext of its own (LLVM's contexts are
// not shared between threads; llvm::splitCodeGen does the same), where it is
// optimized and compiled. A unit's bitcode, with the target and the
// compiler's version, keys an object cache.
//
// Why not llvm::SplitModule: it partitions by a hash of the names for
// balance, so no partition is the same from one model to the next and
// nothing could be cached; a kernel per unit makes the unit the thing that
// repeats.
//
//===----------------------------------------------------------------------===//

#include "trace/Target/CAPI/CAPI.h"

#include "trace/Codegen/CPU/Passes.h"

#include "mlir/Target/LLVMIR/Export.h"

#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/ManagedStatic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/SubtargetFeature.h"
#include "llvm/Transforms/IPO/DeadArgumentElimination.h"
#include "llvm/Transforms/Utils/Cloning.h"

using namespace mlir;
using namespace mlir::trace;

namespace {

/// Bumped when the way a unit is compiled changes, so old cache entries
/// are not read.
constexpr llvm::StringLiteral kCacheVersion = "trace-objects-2";

struct TargetDescription {
  llvm::Triple triple;
  std::string cpu, features;
};

TargetDescription describeTarget(StringRef hostCPU) {
  TargetDescription target;
  target.triple = llvm::Triple(llvm::sys::getProcessTriple());
  bool native = hostCPU == "native";
  target.cpu = native ? llvm::sys::getHostCPUName().str() : hostCPU.str();
  if (native) {
    llvm::SubtargetFeatures features;
    bool avx512 = false;
    for (auto &feature : llvm::sys::getHostCPUFeatures()) {
      features.AddFeature(feature.first(), feature.second);
      avx512 |= feature.first() == "avx512f" && feature.second;
    }
    // LLVM's Skylake-X tuning prefers 256-bit vectors (to spare the clock
    // on mixed code); the kernels here are long vector loops, which run
    // twice as wide with 512 bits.
    if (avx512)
      features.AddFeature("prefer-256-bit", false);
    target.features = features.getString();
  }
  return target;
}

std::unique_ptr<llvm::TargetMachine>
createMachine(const TargetDescription &target, std::string &error,
              llvm::CodeGenOptLevel level = llvm::CodeGenOptLevel::Aggressive) {
  std::string lookupError;
  const llvm::Target *llvmTarget =
      llvm::TargetRegistry::lookupTarget(target.triple, lookupError);
  if (!llvmTarget) {
    error = "no LLVM target for " + target.triple.str() + ": " + lookupError;
    return nullptr;
  }
  std::unique_ptr<llvm::TargetMachine> machine(
      llvmTarget->createTargetMachine(
          target.triple, target.cpu, target.features, llvm::TargetOptions(),
          llvm::Reloc::PIC_, std::nullopt, level));
  if (!machine)
    error = "cannot create a target machine for " + target.triple.str() +
            " (" + target.cpu + ")";
  return machine;
}

/// LLVM's -O2, as upstream's makeOptimizingTransformer builds it, with the
/// vectorizers as the caller says.
void optimize(llvm::Module &module, llvm::TargetMachine &machine,
              bool vectorize) {
  llvm::PipelineTuningOptions tuning;
  tuning.LoopUnrolling = true;
  tuning.LoopInterleaving = vectorize;
  tuning.LoopVectorization = vectorize;
  tuning.SLPVectorization = vectorize;
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PassBuilder builder(&machine, tuning);
  builder.registerModuleAnalyses(mam);
  builder.registerCGSCCAnalyses(cgam);
  builder.registerFunctionAnalyses(fam);
  builder.registerLoopAnalyses(lam);
  builder.crossRegisterProxies(lam, fam, cgam, mam);
  builder.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O2)
      .run(module, mam);
}

/// A unit on its way to an object.
struct Unit {
  std::string name;
  bool vectorize;
  llvm::SmallVector<char, 0> bitcode;
  std::string key; // the cache key (hex)
  std::string error;
};

/// Drops the declarations nothing in `module` uses, so that a kernel's
/// bitcode, and its cache key, do not depend on the rest of the model.
void dropUnusedDeclarations(llvm::Module &module) {
  for (llvm::Function &fn : llvm::make_early_inc_range(module))
    if (fn.isDeclaration() && fn.use_empty())
      fn.eraseFromParent();
  for (llvm::GlobalVariable &global :
       llvm::make_early_inc_range(module.globals()))
    if (global.isDeclaration() && global.use_empty())
      global.eraseFromParent();
}

/// The functions llvm.global_ctors and llvm.global_dtors name.
llvm::SmallPtrSet<const llvm::Function *, 16>
structorsOf(const llvm::Module &module) {
  llvm::SmallPtrSet<const llvm::Function *, 16> structors;
  for (StringRef name : {"llvm.global_ctors", "llvm.global_dtors"}) {
    const llvm::GlobalVariable *list = module.getNamedGlobal(name);
    if (!list || !list->hasInitializer())
      continue;
    auto *entries = dyn_cast<llvm::ConstantArray>(list->getInitializer());
    if (!entries)
      continue;
    for (const llvm::Use &entry : entries->operands())
      if (auto *fields = dyn_cast<llvm::ConstantStruct>(entry.get()))
        if (auto *fn = dyn_cast<llvm::Function>(
                fields->getOperand(1)->stripPointerCasts()))
          structors.insert(fn);
  }
  return structors;
}

void writeBitcode(llvm::Module &module, Unit &unit) {
  llvm::raw_svector_ostream os(unit.bitcode);
  llvm::WriteBitcodeToFile(module, os);
}

std::string cacheKey(const Unit &unit, const TargetDescription &target) {
  std::string salt;
  llvm::raw_string_ostream(salt)
      << kCacheVersion << '\0' << LLVM_VERSION_STRING << '\0'
      << target.triple.str() << '\0' << target.cpu << '\0'
      << target.features << '\0' << (unit.vectorize ? "vectorize" : "scalar");
  std::vector<uint8_t> bytes(unit.bitcode.begin(), unit.bitcode.end());
  bytes.insert(bytes.end(), salt.begin(), salt.end());
  llvm::XXH128_hash_t hash = llvm::xxh3_128bits(bytes);
  std::string hex;
  llvm::raw_string_ostream(hex)
      << llvm::format_hex_no_prefix(hash.high64, 16)
      << llvm::format_hex_no_prefix(hash.low64, 16);
  return hex;
}

/// Optimizes and compiles one unit's bitcode in a context of its own.
std::unique_ptr<llvm::MemoryBuffer> compileUnit(Unit &unit,
                                                const TargetDescription &target) {
  llvm::LLVMContext context;
  llvm::Expected<std::unique_ptr<llvm::Module>> module =
      llvm::parseBitcodeFile(
          llvm::MemoryBufferRef(
              StringRef(unit.bitcode.data(), unit.bitcode.size()), unit.name),
          context);
  if (!module) {
    unit.error = "cannot read back the bitcode of " + unit.name + ": " +
                 llvm::toString(module.takeError());
    return nullptr;
  }
  // The host code of outlined kernels is one long block of calls: the
  // greedy register allocator's time grows faster than its length (the
  // fast allocator's does not), and the code only passes pointers to the
  // kernels.
  std::unique_ptr<llvm::TargetMachine> machine = createMachine(
      target, unit.error,
      unit.vectorize ? llvm::CodeGenOptLevel::Aggressive
                     : llvm::CodeGenOptLevel::None);
  if (!machine)
    return nullptr;
  optimize(**module, *machine, unit.vectorize);
  llvm::SmallVector<char, 0> object;
  llvm::raw_svector_ostream os(object);
  llvm::legacy::PassManager pm;
  if (machine->addPassesToEmitFile(pm, os, nullptr,
                                   llvm::CodeGenFileType::ObjectFile)) {
    unit.error = "the target machine cannot emit an object file";
    return nullptr;
  }
  pm.run(**module);
  return llvm::MemoryBuffer::getMemBufferCopy(
      StringRef(object.data(), object.size()), unit.name);
}

/// Writes `object` to `path` through a unique temporary and a rename, so
/// that a reader (another trace-compile) never sees half an object.
LogicalResult storeAtomically(StringRef path, const llvm::MemoryBuffer &object,
                              std::string &error) {
  SmallString<256> temporary;
  int fd;
  if (std::error_code ec = llvm::sys::fs::createUniqueFile(
          path + ".tmp-%%%%%%", fd, temporary)) {
    error = ("cannot write to the cache: " + path + ": " + ec.message()).str();
    return failure();
  }
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os << object.getBuffer();
    os.close();
    if (os.has_error()) {
      error = ("cannot write '" + temporary + "': " + os.error().message())
                  .str();
      os.clear_error();
      llvm::sys::fs::remove(temporary);
      return failure();
    }
  }
  if (std::error_code ec = llvm::sys::fs::rename(temporary, path)) {
    error = ("cannot write to the cache: " + path + ": " + ec.message()).str();
    llvm::sys::fs::remove(temporary);
    return failure();
  }
  return success();
}

} // namespace

// Why the arguments go: the host functions take memrefs as expanded
// descriptors, and most of the fields are sizes and strides that static
// shapes make constants: a deep model's backward takes thousands of
// scalars and reads about a third of them. X86's FastISel lowers no more
// arguments than fit in registers, so SelectionDAG lowers them all, in
// time that grows faster than their number; without the unread ones the
// function's code generation takes a fraction of that.
void capi::dropDeadArguments(llvm::Module &module,
                             ArrayRef<std::string> entryPoints) {
  llvm::StringSet<> keep;
  for (const std::string &name : entryPoints)
    keep.insert(name);
  for (llvm::Function &fn : module) {
    if (fn.isDeclaration() || keep.contains(fn.getName()))
      continue;
    fn.setVisibility(llvm::GlobalValue::DefaultVisibility);
    fn.setLinkage(llvm::GlobalValue::InternalLinkage);
  }
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PassBuilder builder;
  builder.registerModuleAnalyses(mam);
  builder.registerCGSCCAnalyses(cgam);
  builder.registerFunctionAnalyses(fam);
  builder.registerLoopAnalyses(lam);
  builder.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::ModulePassManager pm;
  pm.addPass(llvm::DeadArgumentEliminationPass());
  pm.run(module, mam);
}

LogicalResult capi::compileObjects(ModuleOp module,
                                   const ObjectOptions &options,
                                   std::vector<ObjectFile> &objects,
                                   std::string &error) {
  TargetDescription target = describeTarget(options.hostCPU);
  std::unique_ptr<llvm::TargetMachine> machine = createMachine(target, error);
  if (!machine)
    return failure();

  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> whole =
      translateModuleToLLVMIR(module, llvmContext);
  if (!whole) {
    error = "translation to LLVM IR failed";
    return failure();
  }
  whole->setDataLayout(machine->createDataLayout());
  whole->setTargetTriple(target.triple);
  if (options.prepare)
    options.prepare(*whole);
  if (!options.entryPoints.empty())
    dropDeadArguments(*whole, options.entryPoints);
  // Symbols that were internal are shared between the objects now: hidden,
  // so the library's version script still keeps them to itself.
  for (llvm::GlobalValue &value : whole->global_values()) {
    if (value.isDeclaration())
      continue;
    if (value.hasLocalLinkage()) {
      if (!value.hasName())
        value.setName("trace_anonymous");
      value.setLinkage(llvm::GlobalValue::ExternalLinkage);
      value.setVisibility(llvm::GlobalValue::HiddenVisibility);
    }
  }

  std::vector<Unit> units;
  SmallVector<llvm::Function *> kernels, hostFunctions;
  for (llvm::Function &fn : *whole)
    if (!fn.isDeclaration() && trace::isKernelName(fn.getName()))
      kernels.push_back(&fn);
  // Host code of outlined kernels, or of kernels on the device, is calls:
  // each function (a step's, a layer's, a C wrapper) is a unit of its own
  // too, named "host.<name>", so that the code generator works on them in
  // parallel, and a layer's object is cached like a kernel's. The globals
  // (the GPU binaries), the constructors and destructors (that load and
  // unload them, one pair per binary) and functions of one parameter and a
  // few instructions (NAME_release, NAME_set_stream: an object costs more
  // than their code) stay in "host".
  constexpr unsigned kSmallFunction = 16;
  if (!kernels.empty() || options.deviceKernels) {
    llvm::SmallPtrSet<const llvm::Function *, 16> structors =
        structorsOf(*whole);
    for (llvm::Function &fn : *whole)
      if (!fn.isDeclaration() && !trace::isKernelName(fn.getName()) &&
          !structors.contains(&fn) &&
          !(fn.arg_size() <= 1 &&
            fn.getInstructionCount() < kSmallFunction))
        hostFunctions.push_back(&fn);
  }
  for (llvm::Function *kernel : kernels)
    kernel->setVisibility(llvm::GlobalValue::HiddenVisibility);
  for (llvm::Function *fn : llvm::concat<llvm::Function *>(kernels,
                                                            hostFunctions)) {
    llvm::ValueToValueMapTy mapping;
    std::unique_ptr<llvm::Module> part = llvm::CloneModule(
        *whole, mapping,
        [&](const llvm::GlobalValue *value) { return value == fn; });
    dropUnusedDeclarations(*part);
    part->setModuleIdentifier(fn->getName());
    part->setSourceFileName(fn->getName());
    Unit &unit = units.emplace_back();
    bool kernel = trace::isKernelName(fn->getName());
    unit.name = ((kernel ? "" : "host.") + fn->getName()).str();
    unit.vectorize = kernel;
    writeBitcode(*part, unit);
  }
  for (llvm::Function *fn : llvm::concat<llvm::Function *>(kernels,
                                                            hostFunctions))
    fn->deleteBody();
  {
    Unit &unit = units.emplace_back();
    unit.name = "host";
    // Without kernels (a module lowered without trace-outline-kernels) the
    // loops are in the host code.
    unit.vectorize = kernels.empty() && !options.deviceKernels;
    writeBitcode(*whole, unit);
  }
  whole.reset();

  bool cache = !options.cacheDir.empty();
  if (cache) {
    if (std::error_code ec =
            llvm::sys::fs::create_directories(options.cacheDir)) {
      error = "cannot create the cache directory '" + options.cacheDir +
              "': " + ec.message();
      return failure();
    }
  }
  auto cachePath = [&](const Unit &unit) {
    SmallString<256> path(options.cacheDir);
    llvm::sys::path::append(path, unit.key + ".o");
    return std::string(path);
  };

  objects.clear();
  objects.resize(units.size());
  for (auto [unit, object] : llvm::zip_equal(units, objects)) {
    object.name = unit.name;
    if (!cache)
      continue;
    unit.key = cacheKey(unit, target);
    if (auto hit = llvm::MemoryBuffer::getFile(cachePath(unit))) {
      object.object = std::move(*hit);
      object.cached = true;
    }
  }
  {
    llvm::DefaultThreadPool pool(llvm::hardware_concurrency(options.jobs));
    for (auto [unit, object] : llvm::zip_equal(units, objects))
      if (!object.cached)
        pool.async([&unit = unit, &object = object, &target] {
          object.object = compileUnit(unit, target);
        });
    pool.wait();
  }
  for (auto [unit, object] : llvm::zip_equal(units, objects)) {
    if (!object.object) {
      error = unit.error;
      return failure();
    }
    // A cache that cannot take the object (full, read-only) costs the
    // next run time, not this one its result.
    std::string warning;
    if (cache && !object.cached &&
        failed(storeAtomically(cachePath(unit), *object.object, warning)))
      llvm::errs() << "warning: " << warning << "\n";
  }
  return success();
}

namespace {
struct ObjectCLOptions {
  llvm::cl::opt<unsigned> jobs{
      "j",
      llvm::cl::desc("Threads that compile the kernels and the host code "
                     "(default: one per core)"),
      llvm::cl::init(0)};
  llvm::cl::opt<std::string> cacheDir{
      "cache-dir",
      llvm::cl::desc("Directory of compiled objects, keyed by a hash of "
                     "each kernel's LLVM IR, the target and the compiler: "
                     "a kernel compiled before, by any model, is read back"),
      llvm::cl::value_desc("dir")};
};
llvm::ManagedStatic<ObjectCLOptions> objectCLOptions;
} // namespace

void capi::registerObjectCLOptions(llvm::cl::OptionCategory &category) {
  objectCLOptions->jobs.addCategory(category);
  objectCLOptions->cacheDir.addCategory(category);
}

void capi::applyObjectCLOptions(unsigned &jobs, std::string &cacheDir) {
  if (!objectCLOptions.isConstructed())
    return;
  jobs = objectCLOptions->jobs;
  cacheDir = objectCLOptions->cacheDir;
}
