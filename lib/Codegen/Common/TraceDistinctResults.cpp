//===- TraceDistinctResults.cpp - each returned buffer once ---------------===//

#include "trace/Codegen/Common/Passes.h"
#include "trace/Dialect/Trace/IR/TraceDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "llvm/ADT/DenseSet.h"

#define DEBUG_TYPE "trace-distinct-results"

namespace mlir::trace {
#define GEN_PASS_DEF_TRACEDISTINCTRESULTSPASS
#include "trace/Codegen/Common/Passes.h.inc"
} // namespace mlir::trace

using namespace mlir;

namespace {

struct TraceDistinctResultsPass final
    : trace::impl::TraceDistinctResultsPassBase<TraceDistinctResultsPass> {
  void runOnOperation() override {
    func::FuncOp function = getOperation();
    // What follows these arguments after buffer-results-to-out-params is
    // an out-parameter (the arguments carry no mark of their own then).
    if (function.isPublic() && !function.isExternal())
      function->setAttr(
          trace::TraceDialect::kInputsAttrName,
          IntegerAttr::get(IntegerType::get(&getContext(), 64),
                           function.getNumArguments()));
    WalkResult result = function.walk([&](func::ReturnOp ret) {
      llvm::DenseSet<Value> seen;
      OpBuilder b(ret);
      for (OpOperand &operand : ret->getOpOperands()) {
        Value value = operand.get();
        auto type = dyn_cast<MemRefType>(value.getType());
        if (!type || seen.insert(value).second)
          continue;
        if (!type.hasStaticShape()) {
          ret.emitOpError() << "returns a dynamically shaped buffer twice "
                               "(result "
                            << operand.getOperandNumber()
                            << "); trace-distinct-results copies static "
                               "shapes only";
          return WalkResult::interrupt();
        }
        // An identity layout, as the function boundary has.
        auto copyType = MemRefType::get(type.getShape(), type.getElementType(),
                                        MemRefLayoutAttrInterface(),
                                        type.getMemorySpace());
        if (copyType != type) {
          ret.emitOpError() << "returns a buffer with layout " << type
                            << " twice; the function boundary has identity "
                               "layouts";
          return WalkResult::interrupt();
        }
        Value copy = memref::AllocOp::create(b, ret.getLoc(), copyType);
        memref::CopyOp::create(b, ret.getLoc(), value, copy);
        operand.set(copy);
      }
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace
