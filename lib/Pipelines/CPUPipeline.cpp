//===- CPUPipeline.cpp - trace ops to the LLVM dialect on CPU -------------===//

#include "trace/Pipelines/Pipelines.h"

#include "trace/Codegen/CPU/Passes.h"
#include "trace/Codegen/Common/Passes.h"
#include "trace/Codegen/GPU/Passes.h"
#include "trace/Conversion/Passes.h"
#include "trace/Dialect/Trace/Transforms/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

trace::ConvolutionLowering
trace::convolutionLowering(ConvolutionLowering option, bool blas) {
  return option == ConvolutionLowering::Auto && !blas
             ? ConvolutionLowering::Direct
             : option;
}

void trace::buildBufferizedLinalgPipeline(OpPassManager &pm,
                                          ConvolutionLowering convolutions,
                                          ScatterLowering scatters,
                                          bool fuseIntoRowReductions) {
  // 1. The export format: upstream dialects on tensors.
  trace::TraceToLinalgPassOptions toLinalg;
  toLinalg.convolutions = convolutions;
  toLinalg.scatters = scatters;
  // trace-schedule's recomputations read their inputs through barriers, so
  // this CSE does not merge them with the originals again.
  toLinalg.keepBarriers = true;
  pm.addPass(trace::createTraceToLinalgPass(toLinalg));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addNestedPass<func::FuncOp>(trace::createTraceEraseBarriersPass());
  // Elementwise chains become one loop nest each (fusion on CPU), without
  // recomputing anything.
  trace::TraceFuseElementwisePassOptions fuse;
  fuse.intoReductions = fuseIntoRowReductions;
  pm.addNestedPass<func::FuncOp>(trace::createTraceFuseElementwisePass(fuse));
  // x @ W^T and q @ k^T read the transposed operand in place.
  pm.addNestedPass<func::FuncOp>(
      trace::createTraceFoldTransposeIntoMatmulPass());
  pm.addPass(createCanonicalizerPass());
  // Each matmul and reduction gets its own zero accumulator again (CSE
  // shared them), so bufferization writes each in place without copies.
  pm.addNestedPass<func::FuncOp>(trace::createTraceUnshareFillsPass());

  // 2. Buffers. Inputs are read-only so the caller's buffers survive;
  // results are identity-layout buffers (the caller's, with out-params).
  pm.addNestedPass<func::FuncOp>(trace::createTraceReadonlyArgsPass());
  // tensor.empty is only a shape; destinations that survive become
  // allocations (after empty-tensor elimination reuses what it can).
  pm.addPass(bufferization::createEmptyTensorEliminationPass());
  pm.addNestedPass<func::FuncOp>(
      bufferization::createEmptyTensorToAllocTensorPass());
  bufferization::OneShotBufferizePassOptions bufferize;
  bufferize.bufferizeFunctionBoundaries = true;
  bufferize.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  pm.addPass(bufferization::createOneShotBufferizePass(bufferize));
  // Results into the caller's buffers: each result becomes a trailing
  // argument, and a result that is an allocation of this function is that
  // argument from the start (no copy, no second buffer: the forward's
  // saved values and the backward's gradients are written once, where the
  // caller keeps them). A result that is a view or an input is copied in.
  // A value returned twice (a result that is also saved) is returned once
  // and copied once: upstream's hoisting would give it the first out-param
  // and leave the second reading an erased allocation.
  pm.addNestedPass<func::FuncOp>(trace::createTraceDistinctResultsPass());
  bufferization::BufferResultsToOutParamsPassOptions outParams;
  outParams.hoistStaticAllocs = true;
  outParams.modifyPublicFunctions = true;
  pm.addPass(bufferization::createBufferResultsToOutParamsPass(outParams));
  // ... and a reshaped allocation too (a matmul's output saved as an
  // activation), which upstream copies.
  pm.addNestedPass<func::FuncOp>(trace::createTraceResultViewsInPlacePass());
  // Upstream's buffer-deallocation-pipeline, with trace-split-deallocs
  // before the simplification: that pass's split is quadratic in the
  // buffers of a block, and a step's function is one block.
  memref::ExpandReallocPassOptions expandRealloc;
  expandRealloc.emitDeallocs = false;
  pm.addPass(memref::createExpandReallocPass(expandRealloc));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(bufferization::createOwnershipBasedBufferDeallocationPass());
  pm.addPass(createCanonicalizerPass());
  pm.addNestedPass<func::FuncOp>(trace::createTraceSplitDeallocsPass());
  pm.addPass(bufferization::createBufferDeallocationSimplificationPass());
  pm.addPass(bufferization::createLowerDeallocationsPass());
  pm.addPass(createCSEPass());
  pm.addPass(createCanonicalizerPass());
  // The clones deallocation inserts (a result that aliases an input is
  // returned as a copy the caller owns) become alloc + copy.
  pm.addPass(createConvertBufferizationToMemRefPass());
  // A donated argument (the saved values @f_bwd takes from the C API) is
  // the function's to free.
  pm.addNestedPass<func::FuncOp>(trace::createTraceFreeDonatedPass());
  // Deallocation freed every buffer at the end of its block; free each
  // right after its last use, so a step's peak follows its liveness.
  pm.addNestedPass<func::FuncOp>(trace::createTraceEarlyDeallocPass());
}

void trace::buildCPUPipeline(OpPassManager &pm,
                             const CPUPipelineOptions &options) {
  if (options.gpuKernels) {
    // The GPU pipeline's kernels, each run as loops over its blocks and
    // threads: a check of that pipeline's kernel decomposition without a
    // GPU. Matmuls call OpenBLAS, as cuBLAS would be called.
    TraceGPUMapLinalgPassOptions map;
    map.blockSize = options.gpuBlockSize;
    map.maxBlocks = options.gpuMaxBlocks;
    // Layers as functions, as the GPU pipeline makes them by default.
    buildGPUKernelsFront(
        pm, options.blas ? std::optional(BLASRuntime::CPU) : std::nullopt, map,
        convolutionLowering(options.convolutions, options.blas),
        options.outlineRepeats);
    pm.addNestedPass<func::FuncOp>(trace::createTraceGPULaunchesOnCPUPass());
  } else {
    // 0. A function per kind of repeated layer, before anything grows
    // with the number of layers.
    if (options.outlineRepeats)
      pm.addPass(trace::createTraceOutlineRepeatsPass());
    // 1-2. Linalg on tensors, then buffers, results in the caller's.
    // Producers fuse into row reductions when trace-vectorize-reductions
    // will vectorize them.
    buildBufferizedLinalgPipeline(
        pm, convolutionLowering(options.convolutions, options.blas),
        ScatterLowering::Loops,
        /*fuseIntoRowReductions=*/options.vectorizeReductions);
    // 3. Matmuls to BLAS.
    if (options.blas)
      pm.addPass(trace::createTraceLinalgToBLASPass());
  }
  // A function's temporaries in one arena, placed by liveness (after the
  // BLAS calls, which look for a fresh allocation to overwrite).
  if (options.planBuffers) {
    // Dead pages go back while the step runs (the CPU runtime's madvise).
    trace::TracePlanBuffersPassOptions plan;
    plan.releasePages = true;
    plan.releaseBetween = options.releaseBetweenLifetimes;
    // and pages come in a run at a time, not a fault each.
    plan.populatePages = true;
    pm.addPass(trace::createTracePlanBuffersPass(plan));
    // Only those that lower the peak: the rest cost a fault a page a step.
    pm.addPass(trace::createTracePruneReleasesPass());
  }
  // What the planned buffers make resident (a file only when asked for);
  // it also drops trace-distinct-results' trace.inputs.
  trace::TraceResidentReportPassOptions report;
  report.output = options.residentReport;
  pm.addPass(trace::createTraceResidentReportPass(report));
  // A function per loop nest, shared by identical nests: LLVM's time then
  // grows with the distinct kernels, not with one function holding them all.
  // Copies as loop nests, so that they are kernels like the rest:
  // vectorized, and on the thread team.
  if (!options.gpuKernels)
    pm.addNestedPass<func::FuncOp>(trace::createTraceCopyKernelsPass());
  if (options.outlineKernels && !options.gpuKernels)
    pm.addPass(trace::createTraceOutlineKernelsPass());
  // Row reductions in vector registers; everything else to loops.
  if (options.vectorizeReductions && !options.gpuKernels)
    pm.addNestedPass<func::FuncOp>(trace::createTraceVectorizeReductionsPass());
  // Loops; the outermost parallel loop of a nest with enough work runs on
  // an OpenMP team. Each output element is still computed by one thread,
  // in the same order, so threads change no result.
  if (options.threads && !options.gpuKernels) {
    pm.addNestedPass<func::FuncOp>(createConvertLinalgToParallelLoopsPass());
    trace::TraceParallelLoopsPassOptions parallel;
    parallel.minWork = options.minParallelWork;
    pm.addNestedPass<func::FuncOp>(
        trace::createTraceParallelLoopsPass(parallel));
    pm.addPass(createConvertSCFToOpenMPPass());
    // Unwraps the memref.alloca_scope it puts each loop body in (the body
    // allocates nothing), which scf-to-cf could not lower into.
    pm.addPass(createCanonicalizerPass());
  } else {
    pm.addNestedPass<func::FuncOp>(createConvertLinalgToLoopsPass());
  }
  if (options.approximateMath)
    pm.addPass(trace::createTraceMathApproximationPass());

  // 4. The LLVM dialect. Math ops with an LLVM intrinsic become intrinsics;
  // the rest (f64 tanh, erf, ...) become libm calls.
  pm.addPass(createLowerAffinePass());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  // The GPU kernels' vector loads and stores (gpu-kernels), and the row
  // reductions' (trace-vectorize-reductions), whose last step may add in
  // any order: a tree, not one lane after another.
  // Math first: libm's patterns unroll a vector op without an intrinsic
  // (an f64 tanh in a vectorized row reduction) into vector.extract and
  // vector.insert, which the vector conversion must then see.
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createConvertMathToLibmPass());
  ConvertVectorToLLVMPassOptions vectorToLLVM;
  vectorToLLVM.reassociateFPReductions = true;
  pm.addPass(createConvertVectorToLLVMPass(vectorToLLVM));
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createConvertOpenMPToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createCanonicalizerPass());
}
