//===- Passes.h - conversions out of the trace dialect ----------*- C++ -*-===//

#ifndef TRACE_CONVERSION_PASSES_H
#define TRACE_CONVERSION_PASSES_H

#include "mlir/Pass/Pass.h"
#include "trace/Conversion/LinalgToBLAS/LinalgToBLAS.h"
#include "trace/Conversion/TraceToLinalg/TraceToLinalg.h"

namespace mlir::trace {

#define GEN_PASS_DECL
#include "trace/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "trace/Conversion/Passes.h.inc"

} // namespace mlir::trace

#endif // TRACE_CONVERSION_PASSES_H
