//===- Pipelines.h - the trace-mlir pass pipelines --------------*- C++ -*-===//
//
// The pipelines, built in one place so the flow reads top to bottom.
//
//===----------------------------------------------------------------------===//

#ifndef TRACE_PIPELINES_PIPELINES_H
#define TRACE_PIPELINES_PIPELINES_H

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

namespace mlir::trace {

struct CPUPipelineOptions : public PassPipelineOptions<CPUPipelineOptions> {
  PassOptions::Option<bool> blas{
      *this, "blas",
      llvm::cl::desc("Call the runtime's OpenBLAS for f32/f64 matmuls "
                     "(otherwise they become loops)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> approximateMath{
      *this, "approximate-math",
      llvm::cl::desc("Use vectorizable polynomial approximations of f32 "
                     "transcendental functions instead of libm"),
      llvm::cl::init(true)};
};

/// trace ops -> linalg on tensors -> buffers -> loops -> LLVM dialect, for
/// the ExecutionEngine or an object file. Functions keep their tensor
/// signatures as identity-layout memrefs; inputs are never written.
void buildCPUPipeline(OpPassManager &pm, const CPUPipelineOptions &options);

/// Registers `trace-cpu-pipeline` for trace-opt.
void registerTracePipelines();

} // namespace mlir::trace

#endif // TRACE_PIPELINES_PIPELINES_H
