//===- InitAll.h - register every trace dialect and pass --------*- C++ -*-===//
//
// What a tool calls next to upstream's registerAllDialects and
// registerAllPasses (mlir/InitAllDialects.h, mlir/InitAllPasses.h), so
// that a new dialect or pass library is registered in one place.
//
//===----------------------------------------------------------------------===//

#ifndef TRACE_INITALL_H
#define TRACE_INITALL_H

#include "trace/Codegen/CPU/Passes.h"
#include "trace/Codegen/Common/Passes.h"
#include "trace/Codegen/GPU/Passes.h"
#include "trace/Conversion/Passes.h"
#include "trace/Conversion/TraceGPUToLLVM/TraceGPUToLLVM.h"
#include "trace/Dialect/Trace/IR/TraceDialect.h"
#include "trace/Dialect/Trace/Transforms/Passes.h"
#include "trace/Dialect/TraceGPU/IR/TraceGPUDialect.h"
#include "trace/Pipelines/Pipelines.h"

#include "mlir/IR/DialectRegistry.h"

namespace mlir::trace {

/// The trace and trace_gpu dialects, with trace_gpu's convert-to-LLVM
/// interface (gpu-to-llvm lowers trace_gpu ops through it).
inline void registerAllTraceDialects(DialectRegistry &registry) {
  registry.insert<TraceDialect, trace_gpu::TraceGPUDialect>();
  registerConvertTraceGPUToLLVMInterface(registry);
}

/// Every trace pass and pipeline, for textual pipelines.
inline void registerAllTracePasses() {
  registerTracePasses();
  registerTraceConversionPasses();
  registerTraceCodegenCommonPasses();
  registerTraceCodegenCPUPasses();
  registerTraceCodegenGPUPasses();
  registerTracePipelines();
}

} // namespace mlir::trace

#endif // TRACE_INITALL_H
