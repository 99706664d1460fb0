//===- Pipelines.h - the trace-mlir pass pipelines --------------*- C++ -*-===//
//
// The pipelines, built in one place so the flow reads top to bottom:
//
//   trace-training-step   trace ops: autodiff, remat, schedule, fuse
//                         (TrainingStepPipeline.cpp)
//   trace-cpu-pipeline    trace ops -> linalg -> buffers -> loops -> LLVM
//                         dialect (CPUPipeline.cpp)
//   trace-gpu-pipeline    trace ops -> linalg -> buffers -> GPU kernels ->
//                         NVVM -> PTX, host code in the LLVM dialect
//                         (GPUPipeline.cpp)
//
// trace-compile runs the first then one of the others; trace-run runs the
// first (with --training-step) and the CPU pipeline; trace-opt has all three.
//
//===----------------------------------------------------------------------===//

#ifndef TRACE_PIPELINES_PIPELINES_H
#define TRACE_PIPELINES_PIPELINES_H

#include "trace/Codegen/GPU/Passes.h"
#include "trace/Conversion/Passes.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

#include <optional>
#include <string>

namespace mlir::trace {

//===----------------------------------------------------------------------===//
// The training step
//===----------------------------------------------------------------------===//

/// The training step's stages, in the order they run.
enum class TrainingStepStage { Autodiff, Remat, Schedule, Fuse };

/// "autodiff", "remat", "schedule", "fuse".
StringRef stringifyTrainingStepStage(TrainingStepStage stage);

struct TrainingStepOptions {
  /// The options of trace-remat, trace-schedule and trace-fuse, as their
  /// pass options read on a command line ("budget=0.5"); std::nullopt
  /// skips the stage. trace-autodiff always runs.
  std::optional<std::string> remat = std::string();
  std::optional<std::string> schedule = std::string();
  std::optional<std::string> fuse = std::string();
};

/// TrainingStepOptions as textual pipeline options (trace-opt's
/// --trace-training-step="remat-options={budget=0.5} fuse=false", trace-run's
/// --training-step=...): each stage on or off, and its pass options.
struct TrainingStepPipelineOptions
    : public PassPipelineOptions<TrainingStepPipelineOptions> {
  PassOptions::Option<bool> remat{*this, "remat",
                                  llvm::cl::desc("Run trace-remat"),
                                  llvm::cl::init(true)};
  PassOptions::Option<std::string> rematOptions{
      *this, "remat-options",
      llvm::cl::desc("trace-remat's options, e.g. {budget=0.5}")};
  PassOptions::Option<bool> schedule{*this, "schedule",
                                     llvm::cl::desc("Run trace-schedule"),
                                     llvm::cl::init(true)};
  PassOptions::Option<std::string> scheduleOptions{
      *this, "schedule-options", llvm::cl::desc("trace-schedule's options")};
  PassOptions::Option<bool> fuse{*this, "fuse",
                                 llvm::cl::desc("Run trace-fuse"),
                                 llvm::cl::init(true)};
  PassOptions::Option<std::string> fuseOptions{
      *this, "fuse-options", llvm::cl::desc("trace-fuse's options")};

  TrainingStepOptions get() const;
};

/// The stages `options` runs, in order.
SmallVector<TrainingStepStage> getTrainingStepStages(
    const TrainingStepOptions &options);

/// Adds `stage`'s passes to `pm` (a pass manager on builtin.module): for
/// each public @f, trace-autodiff adds @f_grad, @f_fwd and @f_bwd and
/// records them on @f (#trace.derivatives); trace-remat re-partitions
/// @f_fwd/@f_bwd; trace-schedule and trace-fuse run on every function.
/// Fails, through `errorHandler`, when the stage's option string does not
/// parse.
LogicalResult
buildTrainingStepStage(OpPassManager &pm, TrainingStepStage stage,
                       const TrainingStepOptions &options,
                       function_ref<LogicalResult(const Twine &)> errorHandler);

/// Adds every stage `options` runs, in order.
LogicalResult buildTrainingStepPipeline(
    OpPassManager &pm, const TrainingStepOptions &options,
    function_ref<LogicalResult(const Twine &)> errorHandler);

//===----------------------------------------------------------------------===//
// Lowering
//===----------------------------------------------------------------------===//

/// The values of the pipelines' `convolutions` option.
inline llvm::cl::ValuesClass convolutionLoweringValues() {
  return llvm::cl::values(
      clEnumValN(ConvolutionLowering::Direct, "direct", "one loop nest"),
      clEnumValN(ConvolutionLowering::Im2col, "im2col",
                 "an im2col copy and a BLAS matmul"),
      clEnumValN(ConvolutionLowering::Auto, "auto",
                 "im2col where the matmul is large enough; direct without "
                 "BLAS"));
}

struct CPUPipelineOptions : public PassPipelineOptions<CPUPipelineOptions> {
  PassOptions::Option<bool> blas{
      *this, "blas",
      llvm::cl::desc("Call the runtime's OpenBLAS for f32/f64 matmuls "
                     "(otherwise they become loops)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> approximateMath{
      *this, "approximate-math",
      llvm::cl::desc("Use vectorizable polynomial approximations of f32 "
                     "transcendental functions instead of libm"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> vectorizeReductions{
      *this, "vectorize-reductions",
      llvm::cl::desc("Reduce rows in vector registers, summed in another "
                     "order than in-order loops (trace-vectorize-reductions)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> threads{
      *this, "threads",
      llvm::cl::desc("Run each loop nest with enough work on an OpenMP "
                     "thread team (trace-parallel-loops, then "
                     "convert-scf-to-openmp; the team is OMP_NUM_THREADS "
                     "or every core); the loops' results are bitwise one "
                     "thread's"),
      llvm::cl::init(true)};
  PassOptions::Option<int64_t> minParallelWork{
      *this, "min-parallel-work",
      llvm::cl::desc("With threads: the least work, iterations times body "
                     "ops, a loop nest needs for a thread team "
                     "(trace-parallel-loops min-work)"),
      llvm::cl::init(16384)};
  PassOptions::Option<bool> planBuffers{
      *this, "plan-buffers",
      llvm::cl::desc("Place each function's temporaries in one arena by "
                     "liveness (trace-plan-buffers) instead of allocating "
                     "each"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> releaseBetweenLifetimes{
      *this, "release-between-lifetimes",
      llvm::cl::desc("Also hand an arena page back between two of its "
                     "lifetimes when that lowers the peak: the step peaks "
                     "at its live bytes, and the pages fault in again "
                     "(trace-plan-buffers release-between-lifetimes)"),
      llvm::cl::init(false)};
  PassOptions::Option<std::string> residentReport{
      *this, "resident-report",
      llvm::cl::desc("Write what each public function's planned buffers "
                     "make resident, as JSON, to this file "
                     "(trace-resident-report, after trace-plan-buffers)"),
      llvm::cl::init("")};
  PassOptions::Option<bool> outlineKernels{
      *this, "outline-kernels",
      llvm::cl::desc("Give each loop nest a function of its own, one per "
                     "distinct body (trace-outline-kernels), so LLVM "
                     "compiles many small functions, each once"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> outlineRepeats{
      *this, "outline-repeats",
      llvm::cl::desc("Make the repeated layers of a model one function "
                     "per kind, called per layer (trace-outline-repeats), "
                     "so compile time does not grow with depth"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> gpuKernels{
      *this, "gpu-kernels",
      llvm::cl::desc("Form the kernels trace-gpu-pipeline forms and run "
                     "each one's blocks and threads as loops (a check of "
                     "the GPU lowering without a GPU)"),
      llvm::cl::init(false)};
  PassOptions::Option<int64_t> gpuBlockSize{
      *this, "gpu-block-size",
      llvm::cl::desc("With gpu-kernels: threads per block"),
      llvm::cl::init(256)};
  PassOptions::Option<int64_t> gpuMaxBlocks{
      *this, "gpu-max-blocks",
      llvm::cl::desc("With gpu-kernels: most blocks of an elementwise grid "
                     "before threads loop (grid-stride)"),
      llvm::cl::init(4096)};
  PassOptions::Option<ConvolutionLowering> convolutions{
      *this, "convolutions",
      llvm::cl::desc("How trace.convolution lowers: direct, im2col or auto"),
      llvm::cl::init(ConvolutionLowering::Auto),
      convolutionLoweringValues()};
};

/// The front both backends share: trace ops -> linalg on tensors (the export
/// format; elementwise chains fused, transposed matmul operands read in
/// place) -> one-shot bufferized memrefs with read-only inputs,
/// identity-layout function boundaries and deallocation. Every function's
/// results are trailing arguments the caller allocates (upstream
/// buffer-results-to-out-params, allocations hoisted to them).
/// `convolutions` and `scatters` are trace-to-linalg's options of those
/// names.
void buildBufferizedLinalgPipeline(
    OpPassManager &pm,
    ConvolutionLowering convolutions = ConvolutionLowering::Direct,
    ScatterLowering scatters = ScatterLowering::Loops,
    bool fuseIntoRowReductions = false);

/// trace-to-linalg's `convolutions` for a pipeline's option of that name:
/// `auto` is direct when no BLAS runs the matmuls.
ConvolutionLowering convolutionLowering(ConvolutionLowering option,
                                        bool blas);

/// trace ops -> linalg on tensors -> buffers -> loops -> LLVM dialect, for
/// an object file. Functions take their tensor arguments as identity-layout
/// memrefs, never written, then one more such memref per result, written
/// in place (the caller's buffer); they return nothing of memref type.
void buildCPUPipeline(OpPassManager &pm, const CPUPipelineOptions &options);

/// The GPU pipeline's steps from trace ops to kernels: each trace.fusion
/// one linalg.generic, buffers, matmuls to BLAS calls of `blasRuntime`
/// (none when absent), and every other linalg op one
/// gpu.launch on a 1-D grid (trace-gpu-map-linalg). Host memory is not
/// moved to the device yet. Shared by trace-gpu-pipeline and
/// trace-cpu-pipeline{gpu-kernels}. `convolutions` as trace-to-linalg's.
/// With `outlineRepeats`, the repeated layers are one function per kind
/// first (trace-outline-repeats). Results are the caller's buffers.
void buildGPUKernelsFront(
    OpPassManager &pm, std::optional<BLASRuntime> blasRuntime,
    const TraceGPUMapLinalgPassOptions &map,
    ConvolutionLowering convolutions = ConvolutionLowering::Direct,
    bool outlineRepeats = false);

struct GPUPipelineOptions : public PassPipelineOptions<GPUPipelineOptions> {
  PassOptions::Option<std::string> chip{
      *this, "chip", llvm::cl::desc("NVPTX chip the kernels are compiled for "
                                    "(sm_90, sm_80, ...)"),
      llvm::cl::init("sm_90")};
  PassOptions::Option<std::string> features{
      *this, "features",
      llvm::cl::desc("NVPTX features; +ptx80 is PTX ISA 8.0, which ptxas of "
                     "CUDA 12 and 13 accept for sm_80 and sm_90"),
      llvm::cl::init("+ptx80")};
  PassOptions::Option<std::string> toolkit{
      *this, "toolkit",
      llvm::cl::desc("CUDA toolkit whose nvvm/libdevice/libdevice.10.bc is "
                     "linked into the kernels (and whose ptxas makes cubins); "
                     "default: /usr/local/cuda when it has libdevice, "
                     "otherwise MLIR's search of CUDA_ROOT, CUDA_HOME, "
                     "CUDA_PATH"),
      llvm::cl::init("")};
  PassOptions::Option<std::string> format{
      *this, "format",
      llvm::cl::desc("What gpu.binary holds: isa (PTX text), bin (cubin, "
                     "needs ptxas), fatbin, llvm or offload"),
      llvm::cl::init("isa")};
  PassOptions::Option<int64_t> blockSize{
      *this, "block-size",
      llvm::cl::desc("Threads per block of every kernel's 1-D grid"),
      llvm::cl::init(256)};
  PassOptions::Option<bool> blockReductions{
      *this, "block-reductions",
      llvm::cl::desc("Reduce over at least 32 elements with one block per "
                     "output element (warp shuffles, shared memory) instead "
                     "of one thread"),
      llvm::cl::init(true)};
  PassOptions::Option<int64_t> maxBlocks{
      *this, "max-blocks",
      llvm::cl::desc("Most blocks of an elementwise kernel's grid; beyond, "
                     "each thread loops over the iterations (grid-stride)"),
      llvm::cl::init(4096)};
  PassOptions::Option<bool> vectorize{
      *this, "vectorize",
      llvm::cl::desc("Elementwise kernels move 16 bytes of each dense "
                     "operand per thread with vector loads and stores"),
      llvm::cl::init(true)};
  PassOptions::Option<unsigned> optLevel{
      *this, "opt-level",
      llvm::cl::desc("LLVM optimization level of the kernels"),
      llvm::cl::init(2)};
  PassOptions::Option<bool> cublas{
      *this, "cublas",
      llvm::cl::desc("Call the runtime's cuBLAS for f32/f64 matmuls "
                     "(otherwise each becomes a kernel)"),
      llvm::cl::init(true)};
  PassOptions::Option<ConvolutionLowering> convolutions{
      *this, "convolutions",
      llvm::cl::desc("How trace.convolution lowers: direct, im2col or auto"),
      llvm::cl::init(ConvolutionLowering::Auto),
      convolutionLoweringValues()};
  PassOptions::Option<bool> outlineRepeats{
      *this, "outline-repeats",
      llvm::cl::desc("Make the repeated layers of a model one host function "
                     "per kind, called per layer (trace-outline-repeats), so "
                     "compile time does not grow with depth; each call "
                     "queues its work on the caller's stream "
                     "(trace-gpu-async-region)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> kernelBarePointers{
      *this, "kernel-bare-pointers",
      llvm::cl::desc("Kernels take each buffer as one pointer (its shape "
                     "and layout are static), not as a memref descriptor: "
                     "a launch passes a pointer per buffer, and the host "
                     "code drops the descriptors' unread fields"),
      llvm::cl::init(true)};
};

/// trace ops -> linalg on tensors -> buffers -> GPU kernels -> NVVM -> PTX,
/// the whole GPU flow in one place (GPUPipeline.cpp):
///
///  1. the CPU pipeline's front: trace-to-linalg, elementwise fusion (one
///     linalg.generic, hence one kernel, per elementwise chain),
///     transposed matmul operands read in place;
///  2. the CPU pipeline's bufferization (read-only inputs, identity-layout
///     boundaries, results written into the caller's buffers,
///     deallocation);
///  3. trace-linalg-to-blas{runtime=cuda} (option cublas): f32/f64
///     matmuls become calls of the runtime's cuBLAS gemm;
///     trace-gpu-map-linalg: every other linalg op becomes one
///     scf.parallel nest collapsed onto a 1-D grid (block-size threads per
///     block, small reductions as a loop in each thread), or, for a
///     reduction over at least 32 elements, a gpu.launch of one block per
///     output element combining its threads with gpu.all_reduce; upstream
///     convert-parallel-loops-to-gpu makes each a gpu.launch;
///     trace-gpu-device-memory moves allocations to the device;
///     gpu-kernel-outlining (one gpu.module per kernel, identical ones
///     deduplicated); trace-gpu-async-region (upstream gpu-async-region,
///     with the calls of layers' functions, outline-repeats, queued on the
///     caller's stream: one stream per step, synchronized before it
///     returns);
///  4. upstream gpu-lower-to-nvvm-pipeline's steps, with chip/features, and
///     gpu-module-to-binary with the toolkit, so libdevice is linked.
///
/// The result is host code in the LLVM dialect: public functions keep their
/// memref signatures (descriptors of device pointers: arguments must be
/// device buffers, results are device buffers the caller frees), GPU
/// runtime calls (mgpuMemAlloc, mgpuStreamCreate, ...) and gpu.launch_func
/// ops that mlir-translate turns into mgpuModuleLoad/mgpuLaunchKernel
/// calls, and one gpu.binary per kernel.
void buildGPUPipeline(OpPassManager &pm, const GPUPipelineOptions &options);

/// The toolkit buildGPUPipeline uses when the option is empty:
/// "/usr/local/cuda" when it has libdevice, otherwise "" (MLIR's search).
std::string defaultCUDAToolkitPath();

/// Registers trace-training-step, trace-cpu-pipeline and
/// trace-gpu-pipeline (for trace-opt's textual pipelines).
void registerTracePipelines();

} // namespace mlir::trace

#endif // TRACE_PIPELINES_PIPELINES_H
