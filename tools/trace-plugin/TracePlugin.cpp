//===- TracePlugin.cpp - the trace dialects and passes for stock tools ----===//
//
// A plugin for MLIR's own tools (mlir-opt-22 of Debian's LLVM 22):
//
//   mlir-opt-22 --load-dialect-plugin=TracePlugin.so in.mlir
//   mlir-opt-22 --load-pass-plugin=TracePlugin.so --pass-pipeline=...
//
// registers the trace and trace_gpu dialects and every trace pass and
// pipeline, as MLIR's standalone example's plugin does. The tool and the
// plugin share one libMLIR.so, so the dialects' TypeIDs are the tool's.
//
//===----------------------------------------------------------------------===//

#include "trace/InitAll.h"

#include "mlir/Tools/Plugins/DialectPlugin.h"
#include "mlir/Tools/Plugins/PassPlugin.h"

#include "llvm/Config/llvm-config.h"
#include "llvm/Support/Compiler.h"

using namespace mlir;

extern "C" LLVM_ATTRIBUTE_WEAK DialectPluginLibraryInfo
mlirGetDialectPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "Trace", LLVM_VERSION_STRING,
          [](DialectRegistry *registry) {
            trace::registerAllTraceDialects(*registry);
            // A dialect plugin loads before the pipeline is parsed, so
            // --load-dialect-plugin alone gives the passes too.
            trace::registerAllTracePasses();
          }};
}

extern "C" LLVM_ATTRIBUTE_WEAK PassPluginLibraryInfo mlirGetPassPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "TracePasses", LLVM_VERSION_STRING,
          []() { trace::registerAllTracePasses(); }};
}
