//===- TraceInterfaces.h - VJP and cost interfaces --------------*- C++ -*-===//

#ifndef TRACE_DIALECT_TRACE_IR_TRACEINTERFACES_H
#define TRACE_DIALECT_TRACE_IR_TRACEINTERFACES_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpDefinition.h"

namespace mlir::trace {

/// Bytes of a statically shaped tensor (numel x element size; i1 counts as
/// one byte, as PyTorch stores bool). 0 for anything else.
int64_t getTensorBytes(Type type);

namespace detail {
int64_t defaultFlops(Operation *op);
int64_t operandBytes(Operation *op);
int64_t resultBytes(Operation *op);
} // namespace detail

} // namespace mlir::trace

#include "trace/Dialect/Trace/IR/TraceInterfaces.h.inc"

#endif // TRACE_DIALECT_TRACE_IR_TRACEINTERFACES_H
