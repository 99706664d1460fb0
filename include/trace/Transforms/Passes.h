//===- Passes.h - trace dialect passes --------------------------*- C++ -*-===//

#ifndef TRACE_TRANSFORMS_PASSES_H
#define TRACE_TRANSFORMS_PASSES_H

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Pass/Pass.h"
#include "trace/Dialect/Trace/IR/TraceDialect.h"
#include "trace/Dialect/TraceGPU/IR/TraceGPUDialect.h"

namespace mlir::trace {

#define GEN_PASS_DECL
#include "trace/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "trace/Transforms/Passes.h.inc"

} // namespace mlir::trace

#endif // TRACE_TRANSFORMS_PASSES_H
