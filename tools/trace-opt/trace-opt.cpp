//===- trace-opt.cpp - the trace-mlir optimizer driver --------------------===//
//
// mlir-opt with the trace dialect, its passes and its pipelines added.
// Verification after every pass is on (the
// MlirOptMain default): Debian's MLIR is built without assertions, so the
// verifier is what catches a broken rewrite.
//
// The input is parsed once in a forked child before MlirOptMain parses it
// (ParseGuard.h): some upstream op parsers crash on malformed text, and
// trace-opt reports that instead of dying with them. Otherwise this is
// MlirOptMain's own driver (open, process, keep the output on success).
//
//===----------------------------------------------------------------------===//

#include "trace/InitAll.h"
#include "trace/Support/ParseGuard.h"

#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/ToolOutputFile.h"

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  mlir::DialectRegistry registry;
  mlir::trace::registerAllTraceDialects(registry);
  // Every upstream dialect, with the external models MLIR 22 registers with
  // them (bufferization of linalg/tensor/arith, ...): the trace pipeline
  // lowers through func, arith, math, tensor, linalg, bufferization, memref,
  // scf, cf, vector, gpu, nvvm and llvm, and users' own pipelines may need
  // more.
  mlir::registerAllDialects(registry);

  // Dialect extensions (convert-to-LLVM interfaces, the NVVM target, ...)
  // and LLVM IR translation for gpu-module-to-binary. They attach only to
  // dialects that are loaded.
  mlir::registerAllExtensions(registry);
  mlir::registerAllToLLVMIRTranslations(registry);

  // Every upstream pass and pipeline (canonicalize, one-shot-bufferize,
  // convert-*-to-llvm, gpu-lower-to-nvvm-pipeline, ...) and ours. From
  // libMLIR.so, so this costs no link time.
  mlir::registerAllPasses();
  mlir::trace::registerAllTracePasses();

  auto [inputFilename, outputFilename] = mlir::registerAndParseCLIOptions(
      argc, argv, "trace-mlir optimizer driver\n", registry);
  mlir::MlirOptMainConfig config = mlir::MlirOptMainConfig::createFromCLOptions();

  if (inputFilename == "-" &&
      llvm::sys::Process::FileDescriptorIsDisplayed(fileno(stdin)))
    llvm::errs() << "(processing input from stdin now, hit ctrl-c/ctrl-d to "
                    "interrupt)\n";
  std::string errorMessage;
  std::unique_ptr<llvm::MemoryBuffer> input =
      mlir::openInputFile(inputFilename, &errorMessage);
  if (!input) {
    llvm::errs() << errorMessage << "\n";
    return 1;
  }
  mlir::trace::ParseGuardOptions guard;
  guard.allowUnregisteredDialects = config.shouldAllowUnregisteredDialects();
  guard.splitMarker = config.inputSplitMarker();
  if (mlir::failed(mlir::trace::checkParserSurvives(*input, registry, guard,
                                                    llvm::errs())))
    return 1;

  std::unique_ptr<llvm::ToolOutputFile> output =
      mlir::openOutputFile(outputFilename, &errorMessage);
  if (!output) {
    llvm::errs() << errorMessage << "\n";
    return 1;
  }
  if (mlir::failed(
          mlir::MlirOptMain(output->os(), std::move(input), registry, config)))
    return 1;
  // Only a successful run leaves its output file.
  output->keep();
  return 0;
}
