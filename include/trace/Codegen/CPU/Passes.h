//===- Passes.h - passes of the CPU backend ---------------------*- C++ -*-===//

#ifndef TRACE_CODEGEN_CPU_PASSES_H
#define TRACE_CODEGEN_CPU_PASSES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::trace {

/// Kernel functions (`trace-outline-kernels`) are named this prefix and a
/// hash of their body.
inline constexpr llvm::StringLiteral kKernelPrefix = "trace_kernel_";
inline bool isKernelName(llvm::StringRef name) {
  return name.starts_with(kKernelPrefix);
}

// Each pass file includes the dialects its pass depends on.
#define GEN_PASS_DECL
#include "trace/Codegen/CPU/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "trace/Codegen/CPU/Passes.h.inc"

} // namespace mlir::trace

#endif // TRACE_CODEGEN_CPU_PASSES_H
