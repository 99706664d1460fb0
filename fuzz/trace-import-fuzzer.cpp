//===- trace-import-fuzzer.cpp - libFuzzer: the TorchScript importer ------===//
//
// Each input is written to a file and imported as a TorchScript model with
// the fixtures' input shape (x=4x16xf32; other fixtures fail the shape check
// early, which is an outcome too). The seeds are small .pt files: the fuzzer
// mutates their zip structure (central directory, local headers, sizes) and
// the pickles inside (data.pkl, constants.pkl, the code). LibTorch throws on
// most corruptions; the importer must turn every throw into a diagnostic
// and never crash, abort or hang.
//
// LibTorch is not instrumented: a bug inside it shows only when it corrupts
// memory our code or the sanitizer's interceptors touch. The importer runs
// jit::load first in a forked child, as trace-import does, so a crash
// inside LibTorch's loader is a diagnostic here too (fuzz/STATUS.md, 6, 7).
//
//===----------------------------------------------------------------------===//

#include "trace/Importer/TorchScript.h"

#include "trace/Dialect/Trace/IR/TraceDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <unistd.h>

using namespace mlir;

namespace {
/// A file of this process's own, reused for every input.
const std::string &scratchPath() {
  static std::string *path = [] {
    llvm::SmallString<128> p;
    int fd;
    if (llvm::sys::fs::createTemporaryFile("trace-import-fuzzer", "pt", fd,
                                           p)) {
      llvm::errs() << "trace-import-fuzzer: cannot create a temporary file\n";
      std::abort();
    }
    ::close(fd);
    return new std::string(p.str());
  }();
  return *path;
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(scratchPath(), ec);
    if (ec)
      std::abort();
    os.write(reinterpret_cast<const char *>(data), size);
  }
  trace::TorchScriptImportOptions options;
  trace::InputSpec spec;
  std::string error;
  (void)trace::parseInputSpec("x=4x16xf32", spec, error);
  options.inputs.push_back(spec);

  MLIRContext context(MLIRContext::Threading::DISABLED);
  context.loadDialect<trace::TraceDialect, func::FuncDialect>();
  ScopedDiagnosticHandler quiet(&context, [](Diagnostic &) { return success(); });
  OwningOpRef<ModuleOp> module =
      trace::importTorchScript(&context, scratchPath(), options);
  (void)module;
  return 0;
}
