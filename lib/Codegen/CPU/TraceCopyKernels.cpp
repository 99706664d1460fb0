//===- TraceCopyKernels.cpp - memref.copy as a linalg loop nest -----------===//
//
// See the pass description in Passes.td.
//
//===----------------------------------------------------------------------===//

#include "trace/Codegen/CPU/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Utils/MemRefUtils.h"
#include "mlir/IR/PatternMatch.h"

#define DEBUG_TYPE "trace-copy-kernels"

namespace mlir::trace {
#define GEN_PASS_DEF_TRACECOPYKERNELSPASS
#include "trace/Codegen/CPU/Passes.h.inc"
} // namespace mlir::trace

using namespace mlir;

namespace {

struct TraceCopyKernelsPass final
    : trace::impl::TraceCopyKernelsPassBase<TraceCopyKernelsPass> {
  void runOnOperation() override {
    SmallVector<memref::CopyOp> copies;
    getOperation()->walk([&](memref::CopyOp copy) {
      auto source = dyn_cast<MemRefType>(copy.getSource().getType());
      auto target = dyn_cast<MemRefType>(copy.getTarget().getType());
      // Two contiguous buffers lower to one memcpy, which no loop beats.
      if (source && target && source.hasStaticShape() &&
          target.hasStaticShape() && source.getRank() > 0 &&
          !(memref::isStaticShapeAndContiguousRowMajor(source) &&
            memref::isStaticShapeAndContiguousRowMajor(target)))
        copies.push_back(copy);
    });
    IRRewriter rewriter(&getContext());
    for (memref::CopyOp copy : copies) {
      rewriter.setInsertionPoint(copy);
      rewriter.replaceOpWithNewOp<linalg::CopyOp>(copy, copy.getSource(),
                                                  copy.getTarget());
    }
  }
};

} // namespace
