//===- Passes.h - trace dialect passes --------------------------*- C++ -*-===//

#ifndef TRACE_TRANSFORMS_PASSES_H
#define TRACE_TRANSFORMS_PASSES_H

#include "mlir/Pass/Pass.h"
#include "trace/Dialect/Trace/IR/TraceDialect.h"

namespace mlir::trace {

#define GEN_PASS_DECL
#include "trace/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "trace/Transforms/Passes.h.inc"

} // namespace mlir::trace

#endif // TRACE_TRANSFORMS_PASSES_H
