//===- TraceDialect.h - the trace dialect -----------------------*- C++ -*-===//

#ifndef TRACE_DIALECT_TRACE_IR_TRACEDIALECT_H
#define TRACE_DIALECT_TRACE_IR_TRACEDIALECT_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

#include "trace/Dialect/Trace/IR/TraceDialect.h.inc"

#endif // TRACE_DIALECT_TRACE_IR_TRACEDIALECT_H
