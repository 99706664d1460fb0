//===- SharedLibrary.cpp - object emission and the library's link ---------===//
//
// The lowered module (with its C wrappers) becomes one host object through
// LLVM's own translation, optimizer and code generator; the system's
// compiler driver links it into a shared library whose version script
// exports the C functions and nothing else.
//
//===----------------------------------------------------------------------===//

#include "trace/Target/CAPI/CAPI.h"

#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/Target/LLVMIR/Export.h"

#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/SubtargetFeature.h"

using namespace mlir;
using namespace mlir::trace;

LogicalResult capi::emitObjectFile(ModuleOp module, StringRef path,
                                   StringRef hostCPU, std::string &error) {
  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(module, llvmContext);
  if (!llvmModule) {
    error = "translation to LLVM IR failed";
    return failure();
  }
  llvm::Triple triple(llvm::sys::getProcessTriple());
  std::string targetError;
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(triple, targetError);
  if (!target) {
    error = "no LLVM target for " + triple.str() + ": " + targetError;
    return failure();
  }
  bool native = hostCPU == "native";
  std::string cpu = native ? llvm::sys::getHostCPUName().str() : hostCPU.str();
  std::string features;
  if (native) {
    llvm::SubtargetFeatures f;
    for (auto &feature : llvm::sys::getHostCPUFeatures())
      f.AddFeature(feature.first(), feature.second);
    features = f.getString();
  }
  llvm::TargetOptions options;
  std::unique_ptr<llvm::TargetMachine> machine(target->createTargetMachine(
      triple, cpu, features, options, llvm::Reloc::PIC_, std::nullopt,
      llvm::CodeGenOptLevel::Aggressive));
  if (!machine) {
    error = "cannot create a target machine for " + triple.str() + " (" +
            cpu + ")";
    return failure();
  }
  llvmModule->setDataLayout(machine->createDataLayout());
  llvmModule->setTargetTriple(triple);
  if (llvm::Error err =
          makeOptimizingTransformer(2, 0, machine.get())(llvmModule.get())) {
    error = "LLVM optimization failed: " + llvm::toString(std::move(err));
    return failure();
  }
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::OF_None);
  if (ec) {
    error = ("cannot write '" + path + "': " + ec.message()).str();
    return failure();
  }
  llvm::legacy::PassManager pm;
  if (machine->addPassesToEmitFile(pm, os, nullptr,
                                   llvm::CodeGenFileType::ObjectFile)) {
    error = "the target machine cannot emit an object file";
    return failure();
  }
  pm.run(*llvmModule);
  os.flush();
  if (os.has_error()) {
    error = ("cannot write '" + path + "': " + os.error().message()).str();
    os.clear_error();
    return failure();
  }
  return success();
}

LogicalResult capi::linkSharedLibrary(const Interface &api, StringRef object,
                                      StringRef output,
                                      const LinkOptions &options,
                                      std::string &error) {
  SmallString<256> script(object);
  llvm::sys::path::replace_extension(script, "map");
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(script, ec);
    if (ec) {
      error = ("cannot write '" + script + "': " + ec.message()).str();
      return failure();
    }
    os << "{\n  global:\n";
    for (const Function &fn : api.functions)
      os << "    " << fn.cname << ";\n";
    os << "  local: *;\n};\n";
    os.close();
    if (os.has_error()) {
      error = ("cannot write '" + script + "': " + os.error().message()).str();
      os.clear_error();
      return failure();
    }
  }
  std::vector<std::string> args = {
      options.compilerDriver, "-shared", "-fPIC", object.str(), "-o",
      output.str(), ("-Wl,--version-script=" + script).str(),
      "-Wl,--no-undefined", "-Wl,--as-needed"};
  llvm::append_range(args, options.libraries);
  SmallVector<StringRef> argv(args.begin(), args.end());
  std::optional<StringRef> redirects[] = {std::nullopt, options.logPath,
                                          options.logPath};
  std::string message;
  int rc = llvm::sys::ExecuteAndWait(options.compilerDriver, argv,
                                     std::nullopt, redirects, 0, 0, &message);
  if (rc == 0)
    return success();
  error = "'" + llvm::join(args, " ") + "' failed";
  if (!message.empty())
    error += ": " + message;
  if (auto log = llvm::MemoryBuffer::getFile(options.logPath))
    error += "\n" + (*log)->getBuffer().rtrim().str();
  return failure();
}
