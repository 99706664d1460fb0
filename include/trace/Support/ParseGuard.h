//===- ParseGuard.h - parse untrusted IR in a child first -------*- C++ -*-===//
//
// MLIR 22's custom parsers of some upstream ops crash on malformed text
// after reporting it: linalg.transpose and linalg.broadcast store the null
// attribute DenseI64ArrayAttr::parse returns for a bad `permutation` /
// `dimensions` (fuzz/STATUS.md, finding 5), and the stock mlir-opt dies of
// SIGSEGV as well. Debian's libMLIR cannot be fixed from here, so the tools
// that read IR (trace-opt, trace-run, trace-compile) parse it once in a
// forked child (ChildProcess.h) before parsing it themselves; a crash there
// becomes the diagnostics the parser printed before it, and one more.
//
//===----------------------------------------------------------------------===//

#ifndef TRACE_SUPPORT_PARSEGUARD_H
#define TRACE_SUPPORT_PARSEGUARD_H

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Support/LLVM.h"
#include "llvm/Support/MemoryBuffer.h"

namespace mlir::trace {

struct ParseGuardOptions {
  bool allowUnregisteredDialects = false;
  /// Parse each chunk on its own, as --split-input-file does; empty: whole.
  StringRef splitMarker;
};

/// Parses and verifies `buffer` with `registry` in a forked child. Returns
/// failure only if the parser crashed there: then the diagnostics it had
/// emitted and an error naming the crash are printed to `os`. A parse that
/// merely fails succeeds here (the caller parses again and reports it), as
/// does a parse that cannot be tried (no fork).
LogicalResult checkParserSurvives(const llvm::MemoryBuffer &buffer,
                                  const DialectRegistry &registry,
                                  const ParseGuardOptions &options,
                                  raw_ostream &os);

} // namespace mlir::trace

#endif // TRACE_SUPPORT_PARSEGUARD_H
