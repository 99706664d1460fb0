//===- Passes.h - passes both backends share --------------------*- C++ -*-===//

#ifndef TRACE_CODEGEN_COMMON_PASSES_H
#define TRACE_CODEGEN_COMMON_PASSES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::trace {

// Each pass file includes the dialects its pass depends on.
#define GEN_PASS_DECL
#include "trace/Codegen/Common/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "trace/Codegen/Common/Passes.h.inc"

} // namespace mlir::trace

#endif // TRACE_CODEGEN_COMMON_PASSES_H
