//===- GPUPasses.h - passes of the GPU pipeline -----------------*- C++ -*-===//
//
// trace-gpu-map-linalg and trace-gpu-device-memory (GPUPasses.td), the two
// steps of trace-gpu-pipeline that upstream MLIR does not provide.
//
//===----------------------------------------------------------------------===//

#ifndef TRACE_PIPELINES_GPUPASSES_H
#define TRACE_PIPELINES_GPUPASSES_H

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"

namespace mlir::trace {

#define GEN_PASS_DECL
#include "GPUPasses.h.inc"

#define GEN_PASS_REGISTRATION
#include "GPUPasses.h.inc"

/// The GPU pipeline's steps from trace ops to kernels: each trace.fusion
/// one linalg.generic, buffers, matmuls to BLAS calls of `blasRuntime`
/// ("cuda", "cpu", or "" for none), and every other linalg op one
/// gpu.launch on a 1-D grid (trace-gpu-map-linalg). Host memory is not
/// moved to the device yet. Shared by trace-gpu-pipeline and
/// trace-cpu-pipeline{gpu-kernels}.
void buildGPUKernelsFront(OpPassManager &pm, StringRef blasRuntime,
                          const TraceGPUMapLinalgPassOptions &map);

} // namespace mlir::trace

#endif // TRACE_PIPELINES_GPUPASSES_H
