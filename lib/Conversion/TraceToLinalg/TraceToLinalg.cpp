//===- TraceToLinalg.cpp - trace to linalg/tensor/arith/math --------------===//
//
// The `trace-to-linalg` conversion: every trace op becomes upstream ops
// (linalg named and generic ops, tensor, arith, math), the project's export
// format. The output must be readable by a stock `mlir-opt` and lower to
// LLVM with upstream passes alone, which decides a few choices the patterns
// make:
//
// * Elementwise ops are `linalg.generic` ops with identity maps that write
//   into `tensor.empty`, so one-shot bufferization allocates their results.
// * f16/bf16 transcendental functions are computed in f32 (extf, op,
//   truncf): libm has no half-precision functions (math-to-libm leaves such
//   ops unlowered) and LLVM would only promote them one op at a time.
// * f16/bf16 sums and matmuls accumulate in f32 and round once, as PyTorch's
//   CPU kernels do.
// * Sources with one value (`trace.full`, reduction and matmul inits) are a
//   `linalg.fill` of a scalar constant, never a large dense constant.
// * `trace.random_uniform` is Philox4x32-10 spelled out in arith ops on i32
//   and i64, bit-identical to trace/Support/Philox.h on every backend.
//
// The patterns live in one file per family (Elementwise, Sources, Shape,
// Reduction, Linear, Indexing, Structural; PopulatePatterns.h lists them)
// with their shared helpers in Utils.h. This file gathers them and holds
// the pass.
//
//===----------------------------------------------------------------------===//

#include "trace/Conversion/TraceToLinalg/TraceToLinalg.h"
#include "PopulatePatterns.h"
#include "trace/Conversion/Passes.h"
#include "trace/Dialect/Trace/IR/TraceOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Transforms/DialectConversion.h"
#include "llvm/ADT/STLExtras.h"

#define DEBUG_TYPE "trace-to-linalg"

namespace mlir::trace {
#define GEN_PASS_DEF_TRACETOLINALGPASS
#include "trace/Conversion/Passes.h.inc"
} // namespace mlir::trace

using namespace mlir;
using namespace mlir::trace;

//===----------------------------------------------------------------------===//
// Entry points
//===----------------------------------------------------------------------===//

void mlir::trace::populateTraceToLinalgPatterns(
    RewritePatternSet &patterns, ConvolutionLowering convolutions,
    ScatterLowering scatters) {
  using namespace trace_to_linalg;
  populateElementwisePatterns(patterns);
  populateSourcePatterns(patterns);
  populateShapePatterns(patterns);
  populateReductionPatterns(patterns);
  populateLinearPatterns(patterns, convolutions);
  populateIndexingPatterns(patterns, scatters);
  populateStructuralPatterns(patterns);
}

void mlir::trace::configureTraceToLinalgTarget(ConversionTarget &target) {
  target.addIllegalDialect<TraceDialect>();
  target.addLegalDialect<arith::ArithDialect, linalg::LinalgDialect,
                         math::MathDialect, scf::SCFDialect,
                         tensor::TensorDialect>();
}

/// True for attribute names in the trace namespace (`trace.name`).
static bool isTraceAttrName(StringAttr name) {
  return name.strref().starts_with("trace.");
}

/// Drops discardable `trace.*` attributes from `op` (and from its function
/// arguments and results): they name values for readability and policies,
/// and mean nothing once the trace ops are gone.
static void dropTraceAttrs(Operation *op) {
  for (NamedAttribute attr : llvm::to_vector(op->getDiscardableAttrs()))
    if (isTraceAttrName(attr.getName()))
      op->removeDiscardableAttr(attr.getName());
  auto function = dyn_cast<FunctionOpInterface>(op);
  if (!function)
    return;
  // `trace.donated` on an argument is part of the function's contract (the
  // callee owns and may overwrite the buffer; trace-free-donated frees it),
  // as JAX's exported functions keep `jax.buffer_donor`: it stays.
  for (unsigned i = 0, e = function.getNumArguments(); i < e; ++i)
    for (NamedAttribute attr : function.getArgAttrs(i))
      if (isTraceAttrName(attr.getName()) &&
          attr.getName() != TraceDialect::kDonatedAttrName)
        function.removeArgAttr(i, attr.getName());
  for (unsigned i = 0, e = function.getNumResults(); i < e; ++i)
    for (NamedAttribute attr : function.getResultAttrs(i))
      if (isTraceAttrName(attr.getName()))
        function.removeResultAttr(i, attr.getName());
}

/// Reports an attribute of the trace dialect (e.g. a `#trace.policy`) that
/// some non-trace op still carries: stock MLIR could not parse the output.
static LogicalResult verifyNoTraceAttrs(Operation *op) {
  Attribute found;
  op->getAttrDictionary().walk([&](Attribute attr) {
    if (!found && isa_and_nonnull<TraceDialect>(&attr.getDialect()))
      found = attr;
  });
  if (!found)
    return success();
  return op->emitError("cannot export attribute ")
         << found << " of the trace dialect";
}

namespace {

struct TraceToLinalgPass final
    : trace::impl::TraceToLinalgPassBase<TraceToLinalgPass> {
  using Base::Base;

  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    ConversionTarget target(*ctx);
    configureTraceToLinalgTarget(target);
    if (keepBarriers)
      target.addLegalOp<OptimizationBarrierOp>();
    if (keepFusions) {
      target.addLegalOp<FusionOp>();
      target.addDynamicallyLegalOp<YieldOp>([](YieldOp yield) {
        return isa<FusionOp>(yield->getParentOp());
      });
    }
    RewritePatternSet patterns(ctx);
    populateTraceToLinalgPatterns(patterns, convolutions, scatters);
    // Partial: func, and whatever else surrounds the trace ops, stays. A
    // trace op no pattern converts fails the pass with an error at the op.
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      return signalPassFailure();

    WalkResult result = getOperation()->walk([](Operation *op) {
      dropTraceAttrs(op);
      return failed(verifyNoTraceAttrs(op)) ? WalkResult::interrupt()
                                            : WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace
