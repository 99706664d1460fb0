//===- TraceGPUDialect.h - host-side GPU library calls ----------*- C++ -*-===//

#ifndef TRACE_DIALECT_TRACEGPU_IR_TRACEGPUDIALECT_H
#define TRACE_DIALECT_TRACEGPU_IR_TRACEGPUDIALECT_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "trace/Dialect/TraceGPU/IR/TraceGPUDialect.h.inc"

#define GET_OP_CLASSES
#include "trace/Dialect/TraceGPU/IR/TraceGPUOps.h.inc"

#endif // TRACE_DIALECT_TRACEGPU_IR_TRACEGPUDIALECT_H
