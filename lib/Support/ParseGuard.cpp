//===- ParseGuard.cpp - parse untrusted IR in a child first ---------------===//

#include "trace/Support/ParseGuard.h"
#include "trace/Support/ChildProcess.h"

#include "mlir/IR/Block.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/ToolUtilities.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

LogicalResult trace::checkParserSurvives(const llvm::MemoryBuffer &buffer,
                                         const DialectRegistry &registry,
                                         const ParseGuardOptions &options,
                                         raw_ostream &os) {
  ChildOutcome outcome = runInChildProcess([&](int outputFd) {
    // Unbuffered: what the parser printed before a crash must be out.
    llvm::raw_fd_ostream diagnostics(outputFd, /*shouldClose=*/false,
                                     /*unbuffered=*/true);
    auto parseChunk = [&](std::unique_ptr<llvm::MemoryBuffer> chunk,
                          raw_ostream &) {
      MLIRContext context(registry, MLIRContext::Threading::DISABLED);
      context.allowUnregisteredDialects(options.allowUnregisteredDialects);
      auto sourceMgr = std::make_shared<llvm::SourceMgr>();
      sourceMgr->AddNewSourceBuffer(std::move(chunk), llvm::SMLoc());
      SourceMgrDiagnosticHandler handler(*sourceMgr, &context, diagnostics);
      Block block;
      (void)parseSourceFile(sourceMgr, &block, ParserConfig(&context));
      return success();
    };
    (void)splitAndProcessBuffer(
        llvm::MemoryBuffer::getMemBuffer(buffer.getMemBufferRef()),
        parseChunk, llvm::nulls(), options.splitMarker);
    return 0;
  });
  if (!outcome.crashed())
    return success();
  os << outcome.output;
  os << buffer.getBufferIdentifier()
     << ": error: MLIR's parser crashed on this input after the errors above ("
     << outcome.describeCrash()
     << ", in a child process); the input is malformed where they point\n";
  return failure();
}
