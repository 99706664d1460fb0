//===- Passes.h - passes on trace ops ---------------------------*- C++ -*-===//

#ifndef TRACE_DIALECT_TRACE_TRANSFORMS_PASSES_H
#define TRACE_DIALECT_TRACE_TRANSFORMS_PASSES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::trace {

// Each pass file includes the dialects its pass depends on.
#define GEN_PASS_DECL
#include "trace/Dialect/Trace/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "trace/Dialect/Trace/Transforms/Passes.h.inc"

} // namespace mlir::trace

#endif // TRACE_DIALECT_TRACE_TRANSFORMS_PASSES_H
