//===- trace-import.cpp - a PyTorch model to the trace dialect ------------===//
//
//   trace-import model.pt|model.pt2 [--input-shape x=2x128x256xf32] \
//       [--checkpoint-modules REGEX] [--no-checkpoint-calls]
//       [--report-checkpoint-calls] [--dropout-as-identity] [-o out.mlir]
//
// A `.pt2` path is a torch.export archive (Export.h), anything else a
// TorchScript file (TorchScript.h); the options mean the same for both.
// Prints the module (or writes it to -o through a temporary file renamed into
// place, so a failed import leaves no file behind).
//
//===----------------------------------------------------------------------===//

#include "trace/Importer/Export.h"
#include "trace/Importer/TorchScript.h"

#include "trace/Dialect/Trace/IR/TraceDialect.h"
#include "trace/Dialect/Trace/Transforms/CheckpointPolicy.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace cl = llvm::cl;

static cl::OptionCategory category("trace-import options");

static cl::opt<std::string> inputFile(
    cl::Positional,
    cl::desc("<model.pt (TorchScript) | model.pt2 (torch.export.save)>"),
    cl::Required, cl::cat(category));

static cl::opt<std::string> outputFile("o", cl::desc("Output file (default: stdout)"),
                                       cl::value_desc("file"), cl::init("-"),
                                       cl::cat(category));

static cl::list<std::string> inputShapes(
    "input-shape",
    cl::desc("NAME=D0xD1x...xDTYPE: shape and dtype of forward input NAME "
             "(e.g. x=2x128x256xf32; dtypes f32 f64 f16 bf16 i64 i32 bool); "
             "repeat or separate with commas. A .pt2 records its shapes: "
             "give the inputs with symbolic dims (dynamic_shapes)"),
    cl::CommaSeparated, cl::cat(category));

static cl::opt<std::string> inputShapesFile(
    "input-shapes-file",
    cl::desc("File with one NAME=D0x...xDTYPE line per forward input (the "
             ".shapes file scripts/gen-fixtures.py writes next to a model)"),
    cl::value_desc("file"), cl::init(""), cl::cat(category));

static cl::opt<std::string> checkpointModules(
    "checkpoint-modules",
    cl::desc("Regex: submodules whose path (blocks.0) or class name (Block) "
             "fully matches become trace.checkpoint regions, as with "
             "checkpoint_wrapper"),
    cl::init(""), cl::cat(category));

static cl::opt<bool> noCheckpointCalls(
    "no-checkpoint-calls",
    cl::desc("Do not turn torch.utils.checkpoint.checkpoint calls into "
             "trace.checkpoint regions (in a .pt2: the calls trace_mlir's "
             "export marked)"),
    cl::init(false), cl::cat(category));

static cl::opt<bool> reportCheckpointCalls(
    "report-checkpoint-calls",
    cl::desc("Remark on every region made from a torch.utils.checkpoint "
             "call: its call site, what it calls, its input bytes"),
    cl::init(false), cl::cat(category));

static cl::list<std::string> checkpointPolicies(
    "checkpoint-policy",
    cl::desc("POLICY[@REGEX]: selective policy of the checkpoint regions "
             "REGEX fully matches by name (all regions without @REGEX). "
             "POLICY: nothing_saveable, dots_saveable, save_ops=OP|OP..., "
             "save_names=NAME|NAME..., joined by '+'. Repeatable; a region "
             "takes the last that applies"),
    cl::cat(category));

static cl::opt<bool> dropoutAsIdentity(
    "dropout-as-identity",
    cl::desc("Import dropout as identity (the model in eval mode)"),
    cl::init(false), cl::cat(category));

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  // The printer's options (--mlir-print-debuginfo shows each op's module
  // path and source line; --mlir-print-op-generic) stay available.
  registerAsmPrinterCLOptions();
  registerMLIRContextCLOptions();
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(
      argc, argv,
      "trace-import: PyTorch model (TorchScript .pt, torch.export .pt2) to "
      "the trace dialect\n\n"
      "  MLIR's printer options are accepted too (--mlir-print-debuginfo\n"
      "  shows each op's module path and source line).\n");

  trace::TorchScriptImportOptions options;
  std::vector<std::string> specs(inputShapes.begin(), inputShapes.end());
  if (!inputShapesFile.empty()) {
    std::string error;
    if (!trace::readInputSpecsFile(inputShapesFile, specs, error)) {
      llvm::errs() << "trace-import: error: " << error << "\n";
      return 1;
    }
  }
  for (const std::string &text : specs) {
    trace::InputSpec spec;
    std::string error;
    if (!trace::parseInputSpec(text, spec, error)) {
      llvm::errs() << "trace-import: error: --input-shape: " << error << "\n";
      return 1;
    }
    options.inputs.push_back(spec);
  }
  options.checkpointModules = checkpointModules;
  options.dropoutAsIdentity = dropoutAsIdentity;
  options.checkpointCalls = !noCheckpointCalls;
  options.reportCheckpointCalls = reportCheckpointCalls;

  MLIRContext context;
  context.loadDialect<trace::TraceDialect, func::FuncDialect>();
  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler handler(sourceMgr, &context);

  OwningOpRef<ModuleOp> module =
      StringRef(inputFile).ends_with(".pt2")
          ? trace::importExportedProgram(&context, inputFile, options)
          : trace::importTorchScript(&context, inputFile, options);
  if (!module)
    return 1;
  std::vector<std::string> policies(checkpointPolicies.begin(),
                                    checkpointPolicies.end());
  if (failed(trace::applyCheckpointPolicies(*module, policies)))
    return 1;

  if (llvm::Error err = llvm::writeToOutput(
          outputFile, [&](llvm::raw_ostream &os) -> llvm::Error {
            module->print(os);
            os << "\n";
            return llvm::Error::success();
          })) {
    llvm::errs() << "trace-import: error: cannot write '" << outputFile
                 << "': " << llvm::toString(std::move(err)) << "\n";
    return 1;
  }
  return 0;
}
