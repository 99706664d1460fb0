//===- trace-compile.cpp - the whole trace-mlir pipeline in one command ---===//
//
//   trace-compile model.pt2|model.pt|model.mlir --target=cpu|cuda -o OUTDIR
//       [--input-shape ...] [--input-shapes-file F] [--checkpoint-modules RE]
//       [--no-checkpoint-calls] [--report-checkpoint-calls]
//       [--checkpoint-policy POLICY[@REGEX]]...
//       [--dropout-as-identity] [--remat=OPTS | --no-remat] [--schedule=OPTS]
//       [--fuse=OPTS] [--pipeline=OPTS] [--donate-saved=false] [--name NAME]
//
// The command line of compileTrainingStep (TraceCompileMain.h), which does
// the work: import, trace-training-step stage by stage, lowering, the C
// interface and lib<NAME>.so.
//
//===----------------------------------------------------------------------===//

#include "trace/Target/CAPI/CAPI.h"
#include "trace/Tools/trace-compile/TraceCompileMain.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/Timing.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"

#include <tuple>

using namespace mlir;
namespace cl = llvm::cl;

static cl::OptionCategory category("trace-compile options");

static cl::opt<std::string> inputFile(cl::Positional, cl::Required,
                                      cl::desc("<model.pt2 | model.pt | "
                                               "model.mlir>"),
                                      cl::cat(category));
static cl::opt<std::string> outputDir("o", cl::Required,
                                      cl::desc("Output directory"),
                                      cl::value_desc("dir"), cl::cat(category));
static cl::opt<std::string> target("target", cl::Required,
                                   cl::desc("cpu or cuda"), cl::cat(category));
static cl::opt<std::string>
    libName("name",
            cl::desc("Name of the library, header and C functions (default: "
                     "the input file's stem)"),
            cl::cat(category));

// The importer's options, as trace-import has them.
static cl::list<std::string> inputShapes(
    "input-shape",
    cl::desc("NAME=D0x...xDTYPE: shape and dtype of a forward input of a "
             ".pt2 or .pt (default: the .shapes file next to the model, if "
             "any)"),
    cl::CommaSeparated, cl::cat(category));
static cl::opt<std::string> inputShapesFile(
    "input-shapes-file",
    cl::desc("File with one NAME=D0x...xDTYPE line per forward input"),
    cl::value_desc("file"), cl::cat(category));
static cl::opt<std::string> checkpointModules(
    "checkpoint-modules",
    cl::desc("Regex: submodules imported as trace.checkpoint regions"),
    cl::cat(category));
static cl::opt<bool> dropoutAsIdentity(
    "dropout-as-identity", cl::desc("Import dropout as identity (eval mode)"),
    cl::cat(category));
static cl::opt<bool> noCheckpointCalls(
    "no-checkpoint-calls",
    cl::desc("Do not turn torch.utils.checkpoint calls into regions"),
    cl::cat(category));
static cl::opt<bool> reportCheckpointCalls(
    "report-checkpoint-calls",
    cl::desc("Remark on every region made from a torch.utils.checkpoint call"),
    cl::cat(category));
static cl::list<std::string> checkpointPolicies(
    "checkpoint-policy",
    cl::desc("POLICY[@REGEX]: selective policy of the checkpoint regions "
             "REGEX names (all without @REGEX): nothing_saveable, "
             "dots_saveable, save_ops=OP|OP, save_names=NAME|NAME, joined "
             "by '+'; repeatable, the last that applies wins"),
    cl::cat(category));

// The training step's stages: each pass's options, as on a command line.
static cl::opt<std::string>
    rematOptions("remat", cl::desc("trace-remat options, e.g. \"budget=0.5\""),
                 cl::cat(category));
static cl::opt<bool> noRemat("no-remat",
                             cl::desc("Keep trace-autodiff's own split"),
                             cl::cat(category));
static cl::opt<std::string>
    scheduleOptions("schedule", cl::desc("trace-schedule options"),
                    cl::cat(category));
static cl::opt<bool> noSchedule("no-schedule", cl::desc("Skip trace-schedule"),
                                cl::cat(category));
static cl::opt<std::string> fuseOptions("fuse",
                                        cl::desc("trace-fuse options"),
                                        cl::cat(category));
static cl::opt<bool> noFuse("no-fuse", cl::desc("Skip trace-fuse"),
                            cl::cat(category));
static cl::opt<bool> donateSaved(
    "donate-saved",
    cl::desc("the library allocates the values forward_fwd saves and "
             "forward_bwd frees each after its last read (default; cuda: "
             "from the driver's stream-ordered pool, freed on the step's "
             "stream); =false: they are buffers the caller passes and "
             "keeps"),
    cl::init(true), cl::cat(category));
static cl::opt<std::string> pipelineOptions(
    "pipeline",
    cl::desc("Options of trace-cpu-pipeline or trace-gpu-pipeline, e.g. "
             "\"chip=sm_80\" (cuda)"),
    cl::cat(category));
static cl::opt<std::string>
    hostCPU("host-cpu",
            cl::desc("CPU the host code is compiled for: generic (default, "
                     "any x86-64) or native"),
            cl::init("generic"), cl::cat(category));
static cl::opt<std::string> compilerDriver(
    "cc",
    cl::desc("Compiler driver that links the shared library (default: "
             "clang++ of LLVM 22, else c++)"),
    cl::cat(category));
static cl::opt<bool> verbose("v", cl::desc("Print each stage and its time"),
                             cl::cat(category));

/// `options` unless the stage is switched off.
static std::optional<std::string> stage(bool off, StringRef options) {
  return off ? std::nullopt : std::optional<std::string>(options.str());
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  registerAsmPrinterCLOptions();
  registerMLIRContextCLOptions();
  registerPassManagerCLOptions();
  registerDefaultTimingManagerCLOptions();
  trace::capi::registerObjectCLOptions(category);
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(
      argc, argv,
      "trace-compile: a model to an ahead-of-time training-step library\n\n"
      "  Writes into OUTDIR the IR after each stage (01-import.mlir ...\n"
      "  06-<target>.mlir), memory-report.{txt,json,svg} (for cpu with the\n"
      "  compiled step's predicted peak, from resident.json), for cuda\n"
      "  kernels/<module>.ptx, and lib<NAME>.so with its C header <NAME>.h.\n");

  for (auto [off, on, name] :
       {std::tuple<bool, bool, StringRef>{noRemat, !rematOptions.empty(),
                                          "remat"},
        {noSchedule, !scheduleOptions.empty(), "schedule"},
        {noFuse, !fuseOptions.empty(), "fuse"}})
    if (off && on) {
      llvm::errs() << "trace-compile: error: --" << name << " and --no-"
                   << name << " exclude each other\n";
      return 1;
    }
  trace::TraceCompileOptions options;
  options.inputFile = inputFile;
  options.outputDir = outputDir;
  options.target = target;
  options.name = libName;
  options.inputShapes.assign(inputShapes.begin(), inputShapes.end());
  options.inputShapesFile = inputShapesFile;
  options.checkpointModules = checkpointModules;
  options.dropoutAsIdentity = dropoutAsIdentity;
  options.donateSaved = donateSaved;
  options.checkpointCalls = !noCheckpointCalls;
  options.reportCheckpointCalls = reportCheckpointCalls;
  options.checkpointPolicies.assign(checkpointPolicies.begin(),
                                    checkpointPolicies.end());
  options.step.remat = stage(noRemat, rematOptions);
  options.step.schedule = stage(noSchedule, scheduleOptions);
  options.step.fuse = stage(noFuse, fuseOptions);
  options.pipelineOptions = pipelineOptions;
  options.hostCPU = hostCPU;
  trace::capi::applyObjectCLOptions(options.jobs, options.cacheDir);
  options.compilerDriver = compilerDriver;
  options.verbose = verbose;
  return trace::compileTrainingStep(options);
}
