//===- trace-opt.cpp - the trace-mlir optimizer driver --------------------===//
//
// mlir-opt with the trace dialect, its passes and its pipelines added.
// Verification after every pass is on (the
// MlirOptMain default): Debian's MLIR is built without assertions, so the
// verifier is what catches a broken rewrite.
//
//===----------------------------------------------------------------------===//

#include "trace/Conversion/Passes.h"
#include "trace/Dialect/Trace/IR/TraceDialect.h"
#include "trace/Pipelines/Pipelines.h"
#include "trace/Transforms/Passes.h"

#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  registry.insert<mlir::trace::TraceDialect>();
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
  mlir::trace::registerTracePasses();
  mlir::trace::registerTraceConversionPasses();
  mlir::trace::registerTracePipelines();
  mlir::trace::registerTraceGPUPipeline();

  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "trace-mlir optimizer driver\n", registry));
}
