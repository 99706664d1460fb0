//===- TraceOps.h - trace dialect ops, attributes, enums --------*- C++ -*-===//

#ifndef TRACE_DIALECT_TRACE_IR_TRACEOPS_H
#define TRACE_DIALECT_TRACE_IR_TRACEOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "trace/Dialect/Trace/IR/TraceDialect.h"
#include "trace/Dialect/Trace/IR/TraceInterfaces.h"
#include "trace/Dialect/Trace/IR/TraceTraits.h"

#include "trace/Dialect/Trace/IR/TraceEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "trace/Dialect/Trace/IR/TraceAttrs.h.inc"

#define GET_OP_CLASSES
#include "trace/Dialect/Trace/IR/TraceOps.h.inc"

#endif // TRACE_DIALECT_TRACE_IR_TRACEOPS_H
