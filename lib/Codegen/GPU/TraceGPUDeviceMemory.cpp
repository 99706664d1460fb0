//===- TraceGPUDeviceMemory.cpp - host functions' buffers on the device ---===//
//
// After trace-gpu-map-linalg and convert-parallel-loops-to-gpu, host
// functions only allocate, free and pass around buffers that kernels read
// and write: their allocations move to the device.
//
//===----------------------------------------------------------------------===//

#include "trace/Codegen/GPU/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

#define DEBUG_TYPE "trace-gpu-device-memory"

namespace mlir::trace {
#define GEN_PASS_DEF_TRACEGPUDEVICEMEMORYPASS
#include "trace/Codegen/GPU/Passes.h.inc"
} // namespace mlir::trace

using namespace mlir;

namespace {

bool insideKernel(Operation *op) {
  return op->getParentOfType<gpu::LaunchOp>() != nullptr;
}

/// Whether `op` is host scalar code that may run in a kernel instead: a
/// load of one element, or a side-effect-free op on integers and floats.
bool isSinkable(Operation *op) {
  if (isa<memref::LoadOp>(op))
    return true;
  if (op->getNumRegions() != 0 || !isPure(op) || op->getNumResults() == 0)
    return false;
  return llvm::all_of(op->getResultTypes(), [](Type type) {
    return type.isIntOrIndexOrFloat();
  });
}

/// The buffer a view (or a buffer) `value` is part of.
Value baseBuffer(Value value) {
  while (auto view = value.getDefiningOp<ViewLikeOpInterface>())
    value = view.getViewSource();
  return value;
}

/// The buffers ops in `root` may write or free (the bases of the views they
/// write). In a function, the arguments among them are the out-parameters
/// its results went into (buffer-results-to-out-params) and the donated
/// arguments it frees (trace-free-donated): its other inputs are read-only
/// under the pipeline's bufferization (trace-readonly-args).
llvm::SmallPtrSet<Value, 8> writtenBuffers(Operation *root) {
  llvm::SmallPtrSet<Value, 8> written;
  root->walk([&](Operation *op) {
    SmallVector<Value> targets;
    auto addMemrefOperands = [&] {
      for (Value operand : op->getOperands())
        if (isa<BaseMemRefType>(operand.getType()))
          targets.push_back(operand);
    };
    if (auto effects = dyn_cast<MemoryEffectOpInterface>(op)) {
      SmallVector<MemoryEffects::EffectInstance> instances;
      effects.getEffects(instances);
      for (MemoryEffects::EffectInstance &instance : instances) {
        if (!isa<MemoryEffects::Write, MemoryEffects::Free>(
                instance.getEffect()))
          continue;
        if (Value value = instance.getValue())
          targets.push_back(value);
        else
          addMemrefOperands();
      }
    } else if (!op->hasTrait<OpTrait::HasRecursiveMemoryEffects>()) {
      // A call, or an op that says nothing of its effects.
      addMemrefOperands();
    }
    for (Value target : targets)
      written.insert(baseBuffer(target));
  });
  return written;
}

/// Whether a load from `memref` may move down to `launch`, where every
/// thread reads it first: the buffer is a function argument the function
/// never writes or frees (a donated argument may be freed between the two),
/// or no op between the two can write or free memory and the kernel does
/// not write the buffer (a thread would race with the others' reads).
bool mayMoveLoad(memref::LoadOp load, gpu::LaunchOp launch,
                 const llvm::SmallPtrSet<Value, 8> &writtenInFunction) {
  Value base = baseBuffer(load.getMemref());
  if (isa<BlockArgument>(base) &&
      isa<func::FuncOp>(cast<BlockArgument>(base).getOwner()->getParentOp()) &&
      !writtenInFunction.contains(base))
    return true;
  if (load->getBlock() != launch->getBlock())
    return false;
  for (Operation *op = load->getNextNode(); op != launch;
       op = op->getNextNode())
    if (!isMemoryEffectFree(op) && !isa<memref::AllocOp>(op))
      return false;
  return !writtenBuffers(launch).contains(base);
}

/// Moves host scalar code that reads buffers into the kernels that use its
/// results (trace-to-linalg reads a random op's seed with tensor.extract
/// outside the linalg.generic): each kernel gets its own copy, and the
/// host copy goes when nothing on the host uses it.
void sinkScalarsIntoKernels(func::FuncOp func, IRRewriter &rewriter) {
  llvm::SmallPtrSet<Value, 8> written = writtenBuffers(func);
  SmallVector<Operation *> candidates;
  func.walk([&](Operation *op) {
    if (!insideKernel(op) && isSinkable(op))
      candidates.push_back(op);
  });
  // Users first, so that a copied op's operands become kernel uses of the
  // ops that define them, which are sunk next.
  for (Operation *op : llvm::reverse(candidates)) {
    SmallVector<gpu::LaunchOp> launches;
    for (Operation *user : op->getUsers())
      if (auto launch = user->getParentOfType<gpu::LaunchOp>())
        if (!llvm::is_contained(launches, launch))
          launches.push_back(launch);
    for (gpu::LaunchOp launch : launches) {
      auto load = dyn_cast<memref::LoadOp>(op);
      if (load && !mayMoveLoad(load, launch, written))
        continue;
      rewriter.setInsertionPointToStart(&launch.getBody().front());
      Operation *copy = rewriter.clone(*op);
      for (auto [from, to] : llvm::zip(op->getResults(), copy->getResults()))
        rewriter.replaceUsesWithIf(from, to, [&](OpOperand &use) {
          return launch->isProperAncestor(use.getOwner());
        });
    }
    if (op->use_empty())
      rewriter.eraseOp(op);
  }
}

LogicalResult moveToDevice(func::FuncOp func) {
  IRRewriter rewriter(func.getContext());
  sinkScalarsIntoKernels(func, rewriter);

  // Host code must not dereference buffers any more.
  WalkResult touched = func.walk([&](Operation *op) {
    if (!isa<memref::LoadOp, memref::StoreOp, memref::CopyOp>(op) ||
        insideKernel(op))
      return WalkResult::advance();
    op->emitOpError("reads or writes a buffer in host code; the GPU pipeline "
                    "runs every buffer access in a kernel");
    return WalkResult::interrupt();
  });
  if (touched.wasInterrupted())
    return failure();

  SmallVector<memref::AllocOp> allocs;
  SmallVector<memref::DeallocOp> deallocs;
  SmallVector<memref::GetGlobalOp> globals;
  func.walk([&](Operation *op) {
    if (insideKernel(op))
      return;
    if (auto alloc = dyn_cast<memref::AllocOp>(op))
      allocs.push_back(alloc);
    else if (auto dealloc = dyn_cast<memref::DeallocOp>(op))
      deallocs.push_back(dealloc);
    else if (auto global = dyn_cast<memref::GetGlobalOp>(op))
      globals.push_back(global);
  });

  for (memref::AllocOp alloc : allocs) {
    rewriter.setInsertionPoint(alloc);
    rewriter.replaceOpWithNewOp<gpu::AllocOp>(
        alloc, alloc.getType(), /*asyncToken=*/Type(), ValueRange{},
        alloc.getDynamicSizes(), alloc.getSymbolOperands());
  }
  for (memref::DeallocOp dealloc : deallocs) {
    rewriter.setInsertionPoint(dealloc);
    rewriter.replaceOpWithNewOp<gpu::DeallocOp>(
        dealloc, /*asyncToken=*/Type(), ValueRange{}, dealloc.getMemref());
  }

  // A constant buffer lives in host memory: copy it to the device where it
  // is read and free the copy before each return. The copy never escapes:
  // every result is an out-param by now (buffer-results-to-out-params
  // copied a constant result into the caller's buffer), so no function
  // returns a buffer.
  SmallVector<func::ReturnOp> returns;
  func.walk([&](func::ReturnOp ret) { returns.push_back(ret); });
  for (memref::GetGlobalOp global : globals) {
    auto type = cast<MemRefType>(global.getType());
    if (!type.getLayout().isIdentity())
      return global.emitOpError("has a layout the device copy cannot take");
    rewriter.setInsertionPointAfter(global);
    auto copy = gpu::AllocOp::create(rewriter, global.getLoc(), type,
                                     /*asyncToken=*/Type(), ValueRange{},
                                     ValueRange{}, ValueRange{});
    rewriter.replaceAllUsesWith(global.getResult(), copy.getMemref());
    gpu::MemcpyOp::create(rewriter, global.getLoc(), /*asyncToken=*/Type(),
                          ValueRange{}, copy.getMemref(), global.getResult());
    for (func::ReturnOp ret : returns) {
      if (llvm::is_contained(ret.getOperands(), copy.getMemref()))
        return global.emitOpError(
            "is returned; the GPU pipeline expects every result to be an "
            "out-param (buffer-results-to-out-params) by now");
      rewriter.setInsertionPoint(ret);
      gpu::DeallocOp::create(rewriter, ret.getLoc(), /*asyncToken=*/Type(),
                             ValueRange{}, copy.getMemref());
    }
  }
  return success();
}

struct TraceGPUDeviceMemoryPass final
    : trace::impl::TraceGPUDeviceMemoryPassBase<TraceGPUDeviceMemoryPass> {
  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>())
      if (!func.isExternal() && failed(moveToDevice(func)))
        return signalPassFailure();
  }
};

} // namespace
