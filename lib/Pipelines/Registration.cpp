//===- Registration.cpp - the pipelines as trace-opt sees them ------------===//

#include "trace/Pipelines/Pipelines.h"

#include "mlir/Pass/PassRegistry.h"

using namespace mlir;
using namespace mlir::trace;

TrainingStepOptions TrainingStepPipelineOptions::get() const {
  auto stage = [](bool on, const std::string &options) {
    return on ? std::optional<std::string>(options) : std::nullopt;
  };
  TrainingStepOptions step;
  step.remat = stage(remat, rematOptions);
  step.schedule = stage(schedule, scheduleOptions);
  step.fuse = stage(fuse, fuseOptions);
  return step;
}

void trace::registerTracePipelines() {
  // Registered through registerPassPipeline rather than
  // PassPipelineRegistration, whose builders cannot fail: a bad option of
  // a stage's pass is an error here.
  registerPassPipeline(
      "trace-training-step",
      "The training step on trace ops: trace-autodiff, trace-remat, "
      "trace-schedule, trace-fuse",
      [](OpPassManager &pm, StringRef text,
         function_ref<LogicalResult(const Twine &)> errorHandler) {
        TrainingStepPipelineOptions options;
        if (failed(options.parseFromString(text)))
          return failure();
        return buildTrainingStepPipeline(pm, options.get(), errorHandler);
      },
      [](function_ref<void(const detail::PassOptions &)> printOptions) {
        printOptions(TrainingStepPipelineOptions());
      });
  PassPipelineRegistration<CPUPipelineOptions>(
      "trace-cpu-pipeline",
      "Lower trace ops through linalg, bufferization and loops to the LLVM "
      "dialect for the CPU",
      buildCPUPipeline);
  PassPipelineRegistration<GPUPipelineOptions>(
      "trace-gpu-pipeline",
      "Lower trace ops to GPU kernels (NVVM, PTX in gpu.binary ops) and host "
      "code in the LLVM dialect that launches them",
      buildGPUPipeline);
}
