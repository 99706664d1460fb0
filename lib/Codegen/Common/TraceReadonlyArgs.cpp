//===- TraceReadonlyArgs.cpp - read-only function arguments ---------------===//

#include "trace/Codegen/Common/Passes.h"

#include "trace/Dialect/Trace/IR/TraceDialect.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"

#define DEBUG_TYPE "trace-readonly-args"

namespace mlir::trace {
#define GEN_PASS_DEF_TRACEREADONLYARGSPASS
#include "trace/Codegen/Common/Passes.h.inc"
} // namespace mlir::trace

using namespace mlir;

namespace {

struct TraceReadonlyArgsPass final
    : trace::impl::TraceReadonlyArgsPassBase<TraceReadonlyArgsPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal() || !func.isPublic())
      return;
    // A donated argument (`trace.donated`) is the callee's to overwrite.
    for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i) {
      if (!isa<TensorType>(func.getArgument(i).getType()))
        continue;
      bool donated =
          bool(func.getArgAttr(i, trace::TraceDialect::kDonatedAttrName));
      func.setArgAttr(i,
                      bufferization::BufferizationDialect::kWritableAttrName,
                      BoolAttr::get(&getContext(), donated));
    }
  }
};

} // namespace
