//===- TraceLinalgToBLAS.cpp - matmuls on buffers to runtime BLAS ---------===//
//
// Rewrites f32/f64 linalg.matmul and linalg.batch_matmul on memrefs into
// calls of the CPU runtime (lib/Runtime/CPU), which uses OpenBLAS. See the
// pass description in Passes.td for why this is not convert-linalg-to-std.
//
//===----------------------------------------------------------------------===//

#include "trace/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/SymbolTable.h"

#define DEBUG_TYPE "trace-linalg-to-blas"

namespace mlir::trace {
#define GEN_PASS_DEF_TRACELINALGTOBLASPASS
#include "trace/Transforms/Passes.h.inc"
} // namespace mlir::trace

using namespace mlir;

namespace {

/// `memref<?x...x?xT, strided<[?, ...], offset: ?>>` of the given rank: the
/// one operand type of a runtime entry point.
MemRefType dynamicStridedType(MLIRContext *ctx, int64_t rank, Type element) {
  SmallVector<int64_t> shape(rank, ShapedType::kDynamic);
  SmallVector<int64_t> strides(rank, ShapedType::kDynamic);
  auto layout =
      StridedLayoutAttr::get(ctx, ShapedType::kDynamic, strides);
  return MemRefType::get(shape, element, layout);
}

/// The runtime symbol for a matmul of this kind, or "" if the op stays.
std::string runtimeSymbol(linalg::LinalgOp op) {
  if (!op.hasPureBufferSemantics())
    return "";
  Type element = getElementTypeOrSelf(op.getDpsInits()[0].getType());
  if (!element.isF32() && !element.isF64())
    return "";
  for (Value operand : op->getOperands())
    if (getElementTypeOrSelf(operand.getType()) != element)
      return "";
  std::string suffix = element.isF32() ? "f32" : "f64";
  if (auto matmul = dyn_cast<linalg::MatmulOp>(op.getOperation())) {
    // Transposed or broadcast forms (user-defined maps) stay as loops.
    if (matmul.hasUserDefinedMaps())
      return "";
    return "trace_rt_matmul_" + suffix;
  }
  if (auto batch = dyn_cast<linalg::BatchMatmulOp>(op.getOperation())) {
    if (batch.hasUserDefinedMaps())
      return "";
    return "trace_rt_batch_matmul_" + suffix;
  }
  return "";
}

struct TraceLinalgToBLASPass final
    : trace::impl::TraceLinalgToBLASPassBase<TraceLinalgToBLASPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    SmallVector<std::pair<linalg::LinalgOp, std::string>> work;
    module.walk([&](linalg::LinalgOp op) {
      std::string symbol = runtimeSymbol(op);
      if (!symbol.empty())
        work.emplace_back(op, std::move(symbol));
    });

    SymbolTable symbols(module);
    IRRewriter rewriter(ctx);
    for (auto &[op, symbol] : work) {
      Location loc = op.getLoc();
      int64_t rank = op.getRank(op.getDpsInitOperand(0));
      Type element = getElementTypeOrSelf(op.getDpsInits()[0].getType());
      MemRefType operandType = dynamicStridedType(ctx, rank, element);

      auto callee = symbols.lookup<func::FuncOp>(symbol);
      if (!callee) {
        rewriter.setInsertionPointToStart(module.getBody());
        callee = func::FuncOp::create(
            rewriter, loc, symbol,
            rewriter.getFunctionType(
                {operandType, operandType, operandType}, {}));
        callee.setPrivate();
        // The runtime implements the C interface (_mlir_ciface_<symbol>),
        // which takes pointers to memref descriptors.
        callee->setAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName(),
                        rewriter.getUnitAttr());
        symbols.insert(callee);
      }

      rewriter.setInsertionPoint(op);
      SmallVector<Value> args;
      for (Value operand : op->getOperands())
        args.push_back(
            memref::CastOp::create(rewriter, loc, operandType, operand));
      func::CallOp::create(rewriter, loc, callee, args);
      rewriter.eraseOp(op);
    }
  }
};

} // namespace
