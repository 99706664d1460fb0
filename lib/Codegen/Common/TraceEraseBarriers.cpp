//===- TraceEraseBarriers.cpp - drop trace.optimization_barrier -----------===//

#include "trace/Codegen/Common/Passes.h"

#include "trace/Dialect/Trace/IR/TraceOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace mlir::trace {
#define GEN_PASS_DEF_TRACEERASEBARRIERSPASS
#include "trace/Codegen/Common/Passes.h.inc"
} // namespace mlir::trace

using namespace mlir;

namespace {

struct TraceEraseBarriersPass final
    : trace::impl::TraceEraseBarriersPassBase<TraceEraseBarriersPass> {
  void runOnOperation() override {
    getOperation().walk([](trace::OptimizationBarrierOp barrier) {
      barrier.getResult().replaceAllUsesWith(barrier.getOperand());
      barrier.erase();
    });
  }
};

} // namespace
