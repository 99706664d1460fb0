//===- StructuralPrinting.h - IR text that decides sharing ------*- C++ -*-===//
//
// trace-outline-kernels, trace-outline-repeats and trace-dedupe-gpu-kernels
// share one function (or kernel) among bodies whose printed text is equal.
// That text must show everything that tells two bodies apart, whatever
// printing flags the user gave the tool (--mlir-print-debuginfo,
// --mlir-elide-elementsattrs-if-larger, --mlir-print-skip-regions, ...),
// which the default flags read.
//
//===----------------------------------------------------------------------===//

#ifndef TRACE_SUPPORT_STRUCTURALPRINTING_H
#define TRACE_SUPPORT_STRUCTURALPRINTING_H

#include "mlir/IR/OperationSupport.h"

#include <limits>

namespace mlir::trace {

/// Flags under which equal text means equal bodies: every attribute and
/// region in full, no locations, SSA names numbered within the function.
inline OpPrintingFlags structuralPrintingFlags() {
  return OpPrintingFlags()
      .enableDebugInfo(false)
      .elideLargeElementsAttrs(std::numeric_limits<int64_t>::max())
      .skipRegions(false)
      .printNameLocAsPrefix(false)
      .printUniqueSSAIDs(false)
      .printValueUsers(false)
      .useLocalScope()
      .assumeVerified();
}

} // namespace mlir::trace

#endif // TRACE_SUPPORT_STRUCTURALPRINTING_H
