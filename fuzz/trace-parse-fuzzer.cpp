//===- trace-parse-fuzzer.cpp - libFuzzer: parse and verify trace IR ------===//
//
// Any byte string is parsed as a module of the trace and func dialects and
// verified. A diagnostic is the expected outcome for almost every input; a
// crash, a sanitizer report or a hang is a bug (in the verifier, a custom
// parser, or a fold the parser's verification reaches).
//
//===----------------------------------------------------------------------===//

#include "trace/Dialect/Trace/IR/TraceDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <cstddef>
#include <cstdint>
#include <string>

using namespace mlir;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  // A fresh context each time: nothing (interned types, attributes) carries
  // over between inputs, so a crash reproduces from its input alone.
  MLIRContext context(MLIRContext::Threading::DISABLED);
  context.loadDialect<trace::TraceDialect, func::FuncDialect>();
  ScopedDiagnosticHandler quiet(&context, [](Diagnostic &) { return success(); });
  // MLIR's lexer needs a NUL after the text (the EOF marker a
  // MemoryBuffer guarantees; every tool parses files through one), and
  // parseSourceString does not add one: it would read past an input that
  // ends inside a token (fuzz/STATUS.md, finding 3).
  std::string text(reinterpret_cast<const char *>(data), size);
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(text, &context);
  (void)module;
  return 0;
}
