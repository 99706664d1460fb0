//===- trace-opt-fuzzer.cpp - libFuzzer: parse, then run the passes -------===//
//
// What parses and verifies goes through the flow a user runs with trace-opt:
// trace-canonicalize, trace-autodiff, trace-remat, and the CPU pipeline's
// front (trace-to-linalg through bufferization), with the verifier after
// every pass as trace-opt has it. A pass may reject its input with a
// diagnostic; it must not crash, trip a sanitizer, or leave IR that does not
// verify (the pass manager reports that as a failure, which is fine here,
// but a crash inside the verifier is not).
//
// The parse runs in this process: behind trace-opt's ParseGuard, a
// sanitizer report in our own op parsers would be hidden as a child's
// death. Only an input naming linalg.transpose or linalg.broadcast, whose
// MLIR 22 parsers crash on a malformed list (fuzz/STATUS.md, finding 5;
// the tools report it as a diagnostic), is parsed in a child first and
// skipped if that child dies, so the known upstream crash does not end
// every run.
//
//===----------------------------------------------------------------------===//

#include "trace/Dialect/Trace/Transforms/Passes.h"
#include "trace/InitAll.h"
#include "trace/Support/ParseGuard.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include <cstddef>
#include <cstdint>
#include <string>

using namespace mlir;

namespace {
/// Dialects are registered once (registration is the slow part); each input
/// gets its own context.
const DialectRegistry &registry() {
  static DialectRegistry *registry = [] {
    auto *r = new DialectRegistry();
    trace::registerAllTraceDialects(*r);
    registerAllDialects(*r);
    registerAllExtensions(*r);
    return r;
  }();
  return *registry;
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  // Large inputs only slow the search down; the seeds are under 4 KB.
  if (size > 16384)
    return 0;
  MLIRContext context(registry(), MLIRContext::Threading::DISABLED);
  context.loadDialect<trace::TraceDialect, func::FuncDialect>();
  ScopedDiagnosticHandler quiet(&context, [](Diagnostic &) { return success(); });
  // MLIR's lexer needs a NUL after the text (the EOF marker a
  // MemoryBuffer guarantees; every tool parses files through one), and
  // parseSourceString does not add one: it would read past an input that
  // ends inside a token (fuzz/STATUS.md, finding 3).
  std::string text(reinterpret_cast<const char *>(data), size);
  StringRef view(text);
  if (view.contains("linalg.transpose") || view.contains("linalg.broadcast")) {
    auto buffer = llvm::MemoryBuffer::getMemBuffer(view, "input");
    if (failed(trace::checkParserSurvives(*buffer, registry(), {},
                                          llvm::nulls())))
      return 0;
  }
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(text, &context);
  if (!module)
    return 0;

  PassManager pm(&context);
  pm.addPass(trace::createTraceCanonicalizePass());
  pm.addPass(trace::createTraceAutodiffPass());
  pm.addPass(trace::createTraceRematPass());
  trace::buildBufferizedLinalgPipeline(pm);
  (void)pm.run(*module);
  return 0;
}
