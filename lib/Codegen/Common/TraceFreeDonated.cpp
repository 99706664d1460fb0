//===- TraceFreeDonated.cpp - free donated argument buffers ---------------===//

#include "trace/Codegen/Common/Passes.h"

#include "trace/Dialect/Trace/IR/TraceDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"

#define DEBUG_TYPE "trace-free-donated"

namespace mlir::trace {
#define GEN_PASS_DEF_TRACEFREEDONATEDPASS
#include "trace/Codegen/Common/Passes.h.inc"
} // namespace mlir::trace

using namespace mlir;

namespace {

constexpr StringLiteral kDonated = trace::TraceDialect::kDonatedAttrName;

struct TraceFreeDonatedPass final
    : trace::impl::TraceFreeDonatedPassBase<TraceFreeDonatedPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    SmallVector<func::ReturnOp> returns;
    func.walk([&](func::ReturnOp ret) { returns.push_back(ret); });
    for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i) {
      if (!func.getArgAttr(i, kDonated))
        continue;
      func.removeArgAttr(i, kDonated);
      Value arg = func.getArgument(i);
      if (!isa<MemRefType>(arg.getType())) {
        func.emitError() << "argument " << i << " is donated ("
                         << kDonated << ") but is not a buffer: "
                         << arg.getType();
        return signalPassFailure();
      }
      for (func::ReturnOp ret : returns) {
        OpBuilder b(ret);
        memref::DeallocOp::create(b, ret.getLoc(), arg);
      }
    }
  }
};

} // namespace
