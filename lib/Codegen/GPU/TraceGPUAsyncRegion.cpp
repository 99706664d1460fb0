//===- TraceGPUAsyncRegion.cpp - one stream across layers' calls ----------===//
//
// Upstream's gpu-async-region, with the calls of functions that only queue
// GPU work made GPU async ops (trace_gpu.call) first, so that the host does
// not wait for the GPU around each layer's call. See the pass description
// in Passes.td.
//
//===----------------------------------------------------------------------===//

#include "trace/Codegen/GPU/Passes.h"
#include "trace/Dialect/TraceGPU/IR/TraceGPUDialect.h"

#include "mlir/Dialect/Async/IR/Async.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Pass/PassManager.h"

namespace mlir::trace {
#define GEN_PASS_DEF_TRACEGPUASYNCREGIONPASS
#include "trace/Codegen/GPU/Passes.h.inc"
} // namespace mlir::trace

using namespace mlir;

namespace {

/// Whether gpu-async-region turns `fn`'s body into one chain of GPU work
/// with a single host wait, before its return: one block of GPU async ops
/// (no gpu.wait, no dependencies yet) and of ops without memory effects or
/// regions, returning nothing.
bool onlyQueuesGPUWork(func::FuncOp fn) {
  if (fn.isExternal() || fn.isPublic() || fn.getNumResults() != 0 ||
      !fn.getBody().hasOneBlock())
    return false;
  for (Operation &op : fn.getBody().front()) {
    if (op.hasTrait<OpTrait::IsTerminator>()) {
      if (!isa<func::ReturnOp>(op))
        return false;
      continue;
    }
    if (op.getNumRegions() != 0 || isa<gpu::WaitOp>(op))
      return false;
    if (auto async = dyn_cast<gpu::AsyncOpInterface>(op)) {
      if (!async.getAsyncDependencies().empty())
        return false;
      continue;
    }
    if (!isMemoryEffectFree(&op))
      return false;
  }
  return true;
}

/// The calls of `fn` in `module`, if every use of it is a func.call.
std::optional<SmallVector<func::CallOp>> callsOf(func::FuncOp fn,
                                                  ModuleOp module) {
  std::optional<SymbolTable::UseRange> uses =
      SymbolTable::getSymbolUses(fn, module);
  if (!uses)
    return std::nullopt;
  SmallVector<func::CallOp> calls;
  for (const SymbolTable::SymbolUse &use : *uses) {
    auto call = dyn_cast<func::CallOp>(use.getUser());
    if (!call)
      return std::nullopt;
    calls.push_back(call);
  }
  return calls;
}

struct TraceGPUAsyncRegionPass final
    : trace::impl::TraceGPUAsyncRegionPassBase<TraceGPUAsyncRegionPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = module.getContext();
    Type stream = LLVM::LLVMPointerType::get(ctx);
    Type token = gpu::AsyncTokenType::get(ctx);
    OpBuilder builder(ctx);

    // 1. Callees that only queue GPU work take the stream, and their calls
    // become trace_gpu.call; again until none is left, since a function
    // whose calls became GPU async ops may now qualify.
    SmallVector<func::FuncOp> onCallersStream;
    llvm::DenseSet<Operation *> done;
    // The callees of trace_gpu.call ops already in the input take the
    // stream already; they must not make a stream of their own either.
    WalkResult existing = module.walk([&](trace_gpu::CallOp call) {
      auto fn = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
          call, call.getCalleeAttr());
      if (!fn || fn.isExternal() || done.contains(fn))
        return WalkResult::advance();
      if (!fn.getBody().hasOneBlock()) {
        call.emitOpError("calls @")
            << fn.getSymName() << ", which has more than one block: its "
            << "work cannot be chained on the caller's stream";
        return WalkResult::interrupt();
      }
      done.insert(fn);
      onCallersStream.push_back(fn);
      return WalkResult::advance();
    });
    if (existing.wasInterrupted())
      return signalPassFailure();
    for (bool changed = true; changed;) {
      changed = false;
      for (auto fn : module.getOps<func::FuncOp>()) {
        if (done.contains(fn) || !onlyQueuesGPUWork(fn))
          continue;
        std::optional<SmallVector<func::CallOp>> calls = callsOf(fn, module);
        if (!calls || calls->empty())
          continue;
        if (failed(fn.insertArgument(0, stream, DictionaryAttr(),
                                     fn.getLoc()))) {
          fn.emitOpError("cannot take the stream as its first argument");
          return signalPassFailure();
        }
        for (func::CallOp call : *calls) {
          builder.setInsertionPoint(call);
          trace_gpu::CallOp::create(builder, call.getLoc(), token,
                                    ValueRange(), call.getCalleeAttr(),
                                    call.getOperands());
          call.erase();
        }
        done.insert(fn);
        onCallersStream.push_back(fn);
        changed = true;
      }
    }

    // 2. Upstream's pass, on every function.
    OpPassManager pm(ModuleOp::getOperationName());
    pm.addNestedPass<func::FuncOp>(createGpuAsyncRegionPass());
    if (failed(runPipeline(pm, module)))
      return signalPassFailure();

    // 3. In each such callee, the stream gpu-async-region created (a
    // `gpu.wait async` without dependencies) is the argument, and the
    // wait before the return, which would have synchronized it, is gone.
    for (func::FuncOp fn : onCallersStream) {
      Value argument = fn.getArgument(0);
      bool created = false;
      for (Operation &op :
           llvm::make_early_inc_range(fn.getBody().front())) {
        auto wait = dyn_cast<gpu::WaitOp>(op);
        if (!wait)
          continue;
        if (!created && wait.getAsyncToken() &&
            wait.getAsyncDependencies().empty()) {
          builder.setInsertionPoint(wait);
          Value cast = UnrealizedConversionCastOp::create(
                           builder, wait.getLoc(), token, argument)
                           .getResult(0);
          wait.getAsyncToken().replaceAllUsesWith(cast);
          wait.erase();
          created = true;
          continue;
        }
        if (!wait.getAsyncToken() && isa<func::ReturnOp>(wait->getNextNode())) {
          wait.erase();
          continue;
        }
        // onlyQueuesGPUWork admits no op before which gpu-async-region
        // would wait.
        wait.emitOpError("in a function that runs on its caller's stream: "
                         "only the stream's creation and the final wait "
                         "were expected");
        return signalPassFailure();
      }
    }
  }
};

} // namespace
