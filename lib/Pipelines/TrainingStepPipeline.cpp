//===- TrainingStepPipeline.cpp - autodiff, remat, schedule, fuse ---------===//
//
// The training step on trace ops, the part trace-compile, trace-run
// --training-step and trace-opt --trace-training-step share: the joint
// forward + backward and its split (trace-autodiff), what the forward saves
// and the backward recomputes (trace-remat), an order with a lower peak
// (trace-schedule), and kernels (trace-fuse).
//
// Each pass is created in C++ and given its options the way MLIR's
// pipeline parser gives them (Pass::initializeOptions), so a user's
// "budget=0.5" means the same here as in a textual pipeline.
//
//===----------------------------------------------------------------------===//

#include "trace/Pipelines/Pipelines.h"

#include "trace/Dialect/Trace/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

using namespace mlir;
using namespace mlir::trace;

StringRef trace::stringifyTrainingStepStage(TrainingStepStage stage) {
  switch (stage) {
  case TrainingStepStage::Autodiff:
    return "autodiff";
  case TrainingStepStage::Remat:
    return "remat";
  case TrainingStepStage::Schedule:
    return "schedule";
  case TrainingStepStage::Fuse:
    return "fuse";
  }
  llvm_unreachable("unknown training-step stage");
}

SmallVector<TrainingStepStage>
trace::getTrainingStepStages(const TrainingStepOptions &options) {
  SmallVector<TrainingStepStage> stages = {TrainingStepStage::Autodiff};
  if (options.remat)
    stages.push_back(TrainingStepStage::Remat);
  if (options.schedule)
    stages.push_back(TrainingStepStage::Schedule);
  if (options.fuse)
    stages.push_back(TrainingStepStage::Fuse);
  return stages;
}

/// `pass` with `options` parsed into it; null after `errorHandler` was told.
static std::unique_ptr<Pass>
configure(std::unique_ptr<Pass> pass, StringRef options,
          function_ref<LogicalResult(const Twine &)> errorHandler) {
  if (options.empty())
    return pass;
  std::string message;
  auto collect = [&](const Twine &text) {
    message = text.str();
    return failure();
  };
  if (succeeded(pass->initializeOptions(options, collect)))
    return pass;
  (void)errorHandler("bad options '" + options + "' for " +
                     pass->getArgument() +
                     (message.empty() ? "" : ": " + StringRef(message).trim()));
  return nullptr;
}

LogicalResult trace::buildTrainingStepStage(
    OpPassManager &pm, TrainingStepStage stage,
    const TrainingStepOptions &options,
    function_ref<LogicalResult(const Twine &)> errorHandler) {
  // The configurable stages: their options, and their pass, on the module
  // (remat) or on each function (schedule, fuse).
  const std::optional<std::string> *passOptions = nullptr;
  std::unique_ptr<Pass> pass;
  bool perFunction = true;
  switch (stage) {
  case TrainingStepStage::Autodiff:
    pm.addPass(createTraceAutodiffPass());
    return success();
  case TrainingStepStage::Remat:
    passOptions = &options.remat;
    pass = createTraceRematPass();
    perFunction = false;
    break;
  case TrainingStepStage::Schedule:
    passOptions = &options.schedule;
    pass = createTraceSchedulePass();
    break;
  case TrainingStepStage::Fuse:
    passOptions = &options.fuse;
    pass = createTraceFusePass();
    break;
  }
  if (!*passOptions)
    return success();
  pass = configure(std::move(pass), **passOptions, errorHandler);
  if (!pass)
    return failure();
  if (perFunction)
    pm.addNestedPass<func::FuncOp>(std::move(pass));
  else
    pm.addPass(std::move(pass));
  return success();
}

LogicalResult trace::buildTrainingStepPipeline(
    OpPassManager &pm, const TrainingStepOptions &options,
    function_ref<LogicalResult(const Twine &)> errorHandler) {
  for (TrainingStepStage stage : getTrainingStepStages(options))
    if (failed(buildTrainingStepStage(pm, stage, options, errorHandler)))
      return failure();
  return success();
}
