//===- GPUPipeline.cpp - trace ops to GPU kernels and host code -----------===//
//
// trace ops -> linalg -> buffers -> one kernel per loop nest -> NVVM -> PTX
// (or cubin) in gpu.binary ops, and host code in the LLVM dialect that
// launches them through the mgpu* runtime functions.
//
//===----------------------------------------------------------------------===//

#include "trace/Pipelines/Pipelines.h"

#include "trace/Codegen/Common/Passes.h"
#include "trace/Codegen/GPU/Passes.h"
#include "trace/Conversion/Passes.h"
#include "trace/Dialect/Trace/Transforms/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

using namespace mlir;

std::string trace::defaultCUDAToolkitPath() {
  llvm::SmallString<128> libdevice("/usr/local/cuda");
  llvm::sys::path::append(libdevice, "nvvm", "libdevice", "libdevice.10.bc");
  return llvm::sys::fs::exists(libdevice) ? "/usr/local/cuda" : "";
}

void trace::buildGPUKernelsFront(OpPassManager &pm,
                                 std::optional<BLASRuntime> blasRuntime,
                                 const TraceGPUMapLinalgPassOptions &map,
                                 ConvolutionLowering convolutions,
                                 bool outlineRepeats) {
  // 0. Optionally, a function per kind of repeated layer, as on the CPU.
  if (outlineRepeats)
    pm.addPass(trace::createTraceOutlineRepeatsPass());
  // 1-2. As on the CPU: upstream dialects on tensors, elementwise chains
  // fused into one linalg.generic each (each becomes one kernel), transposed
  // matmul operands read in place; then buffers with read-only inputs,
  // identity-layout boundaries and results in the caller's buffers. First,
  // each trace.fusion region (trace-fuse) becomes one linalg.generic, so one
  // kernel; the shared front then finds no trace ops left.
  trace::TraceToLinalgPassOptions toLinalg;
  toLinalg.keepFusions = true;
  toLinalg.keepBarriers = true;
  toLinalg.convolutions = convolutions;
  // A scatter's loops would run on the host: one reducing kernel instead.
  toLinalg.scatters = ScatterLowering::Dense;
  pm.addPass(trace::createTraceToLinalgPass(toLinalg));
  pm.addPass(trace::createTraceLowerFusionsPass());
  // Every function writes its results into the caller's buffers, as on
  // the CPU. Functions that returned theirs made BufferDeallocation-
  // Simplification's work grow with the number of layers; a step that
  // returned a struct of hundreds of descriptors printed its whole type per
  // insertvalue, and X86's FastISel lowers no aggregate return, so
  // SelectionDAG compiled the whole function.
  buildBufferizedLinalgPipeline(pm, convolutions, toLinalg.scatters);

  // 3. Matmuls: trace_gpu.gemm ops (cuBLAS), which gpu-async-region below
  // orders on the kernels' stream like launches.
  if (blasRuntime) {
    trace::TraceLinalgToBLASPassOptions blas;
    blas.runtime = *blasRuntime;
    pm.addPass(trace::createTraceLinalgToBLASPass(blas));
  }

  // Kernels: each other linalg op (and copy) becomes one scf.parallel nest
  // on a 1-D grid (vectorized or not), or a block reduction, then one
  // gpu.launch.
  pm.addNestedPass<func::FuncOp>(trace::createTraceGPUMapLinalgPass(map));
  pm.addNestedPass<func::FuncOp>(createConvertParallelLoopToGpuPass());
  pm.addPass(createCanonicalizerPass());
}

void trace::buildGPUPipeline(OpPassManager &pm,
                             const GPUPipelineOptions &options) {
  // 1-3. Kernels; then host buffers move to the device; launch bodies are
  // outlined into one gpu.module each; host GPU ops are chained on a
  // stream, synchronized before each return and each call of a function
  // that does more than queue GPU work.
  TraceGPUMapLinalgPassOptions map;
  map.blockSize = options.blockSize;
  map.blockReductions = options.blockReductions;
  map.vectorize = options.vectorize;
  map.maxBlocks = options.maxBlocks;
  buildGPUKernelsFront(
      pm, options.cublas ? std::optional(BLASRuntime::CUDA) : std::nullopt, map,
      convolutionLowering(options.convolutions, options.cublas),
      options.outlineRepeats);
  pm.addPass(trace::createTraceGPUDeviceMemoryPass());
  pm.addPass(createGpuKernelOutliningPass());
  // Launches of identical kernels (every layer of a repeated block) launch
  // one: the PTX and the NVPTX back end's work grow with distinct bodies.
  pm.addPass(trace::createTraceDedupeGPUKernelsPass());
  // One stream for the whole step: a layer's function (outline-repeats)
  // queues its work on its caller's stream, so the host waits once.
  pm.addPass(trace::createTraceGPUAsyncRegionPass());

  // 4. NVVM and PTX: upstream's gpu-lower-to-nvvm-pipeline step by step
  // (mlir/lib/Dialect/GPU/Pipelines/GPUToNVVMPipeline.cpp), because it has
  // no toolkit option: gpu-module-to-binary links libdevice (__nv_expf, ...)
  // only from a toolkit it can find, and without it the PTX keeps
  // unresolved calls that ptxas rejects.
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(createConvertNVVMToLLVMPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  GpuNVVMAttachTargetOptions target;
  target.chip = options.chip;
  target.features = options.features;
  target.optLevel = options.optLevel;
  pm.addPass(createGpuNVVMAttachTarget(target));
  pm.addPass(createLowerAffinePass());
  // Host code only: in kernels, convert-gpu-to-nvvm lowers arith itself,
  // with arith.remf (trace.rem) to libdevice's exact __nv_fmod; a
  // module-wide pass would make it llvm.frem first, which the NVVM
  // conversion refuses (and NVPTX would expand inexactly).
  pm.addNestedPass<LLVM::LLVMFuncOp>(createArithToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());

  // Kernels: math ops become libdevice calls (__nv_*).
  pm.addNestedPass<gpu::GPUModuleOp>(createStripDebugInfoPass());
  // With kernel-bare-pointers, a kernel's memref is its aligned pointer
  // (every kernel buffer has a static shape, strides and offset), as
  // upstream's gpu-lower-to-nvvm-pipeline's kernel-bare-ptr-calling-
  // convention sets both sides.
  ConvertGpuOpsToNVVMOpsOptions nvvm;
  nvvm.useBarePtrCallConv = options.kernelBarePointers;
  pm.addNestedPass<gpu::GPUModuleOp>(createConvertGpuOpsToNVVMOps(nvvm));
  pm.addNestedPass<gpu::GPUModuleOp>(LLVM::createNVVMOptimizeForTargetPass());
  pm.addNestedPass<gpu::GPUModuleOp>(createCanonicalizerPass());
  pm.addNestedPass<gpu::GPUModuleOp>(createCSEPass());
  pm.addNestedPass<gpu::GPUModuleOp>(createReconcileUnrealizedCastsPass());

  // Host: GPU ops become mgpu* calls (launches stay gpu.launch_func until
  // translation to LLVM IR); each gpu.module becomes a gpu.binary.
  GpuToLLVMConversionPassOptions toLLVM;
  toLLVM.kernelBarePtrCallConv = options.kernelBarePointers;
  pm.addPass(createGpuToLLVMConversionPass(toLLVM));
  GpuModuleToBinaryPassOptions binary;
  binary.toolkitPath = options.toolkit.empty() ? defaultCUDAToolkitPath()
                                               : std::string(options.toolkit);
  binary.compilationTarget = options.format;
  pm.addPass(createGpuModuleToBinaryPass(binary));
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
}
