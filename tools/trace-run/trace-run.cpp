//===- trace-run.cpp - execute a trace function on the CPU ----------------===//
//
//   trace-run model.mlir [--entry=forward] [--arg NAME=FILE.npy]...
//             [--random-inputs=SEED] [--out-dir=DIR] [--training-step[=OPTS]]
//             [--expect NAME=FILE.npy --rtol=R --atol=A] [--repeat=N]
//
// The command line of runTraceFunction (TraceRunMain.h).
//
//===----------------------------------------------------------------------===//

#include "trace/Pipelines/Pipelines.h"
#include "trace/Target/CAPI/CAPI.h"
#include "trace/Tools/trace-run/TraceRunMain.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"

using namespace mlir;
using mlir::trace::ConvolutionLowering;
using mlir::trace::convolutionLoweringValues;
namespace cl = llvm::cl;

static cl::OptionCategory category("trace-run options");
static cl::opt<std::string> inputFile(cl::Positional, cl::Required,
                                      cl::desc("<input .mlir>"),
                                      cl::cat(category));
static cl::opt<std::string>
    entryName("entry", cl::desc("Function to run (default: the only public "
                                "function, or @forward)"),
              cl::cat(category));
static cl::list<std::string>
    argFiles("arg", cl::desc("NAME=FILE.npy: the input for argument NAME"),
             cl::cat(category));
static cl::opt<uint64_t> randomSeed(
    "random-inputs",
    cl::desc("Generate the inputs not given by --arg from this seed: floats "
             "uniform in [-1, 1), integers in [0, 16), bools fair, and a "
             "rank-0 i64 argument (a random seed) set to SEED itself"),
    cl::cat(category));
static cl::opt<std::string>
    outDir("out-dir",
           cl::desc("Write results to DIR/NAME.npy and inputs to "
                    "DIR/inputs/NAME.npy"),
           cl::cat(category));
static cl::list<std::string>
    expectFiles("expect", cl::desc("NAME=FILE.npy: expected value of result "
                                   "NAME"),
                cl::cat(category));
static cl::opt<double> relTol("rtol", cl::desc("Relative tolerance of --expect"),
                            cl::init(1e-5), cl::cat(category));
static cl::opt<double> absTol("atol", cl::desc("Absolute tolerance of --expect"),
                            cl::init(1e-6), cl::cat(category));
static cl::opt<unsigned> repeat(
    "repeat", cl::desc("Run N more times and print the median time"),
    cl::init(0), cl::cat(category));
static cl::opt<bool> noBlas("no-blas",
                            cl::desc("Lower matmuls to loops, not OpenBLAS"),
                            cl::cat(category));
static cl::opt<bool> libmMath(
    "libm-math",
    cl::desc("Call libm for f32 transcendental functions instead of "
             "vectorizable polynomial approximations"),
    cl::cat(category));
static cl::opt<bool> orderedReductions(
    "ordered-reductions",
    cl::desc("Reduce one element after another, as the loops do, instead "
             "of in vector registers (trace-vectorize-reductions)"),
    cl::cat(category));
static cl::opt<bool> gpuKernels(
    "gpu-kernels",
    cl::desc("Form the kernels trace-gpu-pipeline would launch and run each "
             "one's blocks and threads as loops on the CPU (checks the GPU "
             "lowering without a GPU; slow)"),
    cl::cat(category));
static cl::opt<int64_t> gpuMaxBlocks(
    "gpu-max-blocks",
    cl::desc("With --gpu-kernels: most blocks of an elementwise kernel's "
             "grid before its threads loop (grid-stride)"),
    cl::init(4096), cl::cat(category));
static cl::opt<ConvolutionLowering> convolutions(
    "convolutions", cl::desc("How convolutions lower: direct, im2col or auto"),
    cl::init(ConvolutionLowering::Auto), convolutionLoweringValues(),
    cl::cat(category));
static cl::opt<std::string> trainingStep(
    "training-step", cl::ValueOptional,
    cl::desc("Run the training-step pipeline first, as trace-compile does "
             "(=OPTS: trace-training-step's options, e.g. "
             "\"remat-options={budget=0.5} fuse=false\")"),
    cl::value_desc("opts"), cl::cat(category));
static cl::opt<bool> quiet("quiet", cl::desc("Do not print the results"),
                           cl::cat(category));

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  // MLIR's own flags (--mlir-print-ir-after-all, --mlir-timing, ...) work
  // too, for looking into the lowering; --help lists only trace-run's.
  registerPassManagerCLOptions();
  registerMLIRContextCLOptions();
  registerAsmPrinterCLOptions();
  trace::capi::registerObjectCLOptions(category);
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(argc, argv, "trace-run: execute a trace "
                                          "function on the CPU\n");
  trace::TraceRunOptions options;
  options.inputFile = inputFile;
  options.entry = entryName;
  options.args.assign(argFiles.begin(), argFiles.end());
  options.expects.assign(expectFiles.begin(), expectFiles.end());
  if (randomSeed.getNumOccurrences())
    options.randomSeed = randomSeed;
  options.outDir = outDir;
  options.relTol = relTol;
  options.absTol = absTol;
  options.repeat = repeat;
  options.blas = !noBlas;
  options.approximateMath = !libmMath;
  options.vectorizeReductions = !orderedReductions;
  options.gpuKernels = gpuKernels;
  options.gpuMaxBlocks = gpuMaxBlocks;
  options.convolutions = convolutions;
  if (trainingStep.getNumOccurrences())
    options.trainingStep = std::string(trainingStep);
  options.quiet = quiet;
  trace::capi::applyObjectCLOptions(options.jobs, options.cacheDir);
  return trace::runTraceFunction(options);
}
