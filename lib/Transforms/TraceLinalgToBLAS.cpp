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

/// For each operand of a matmul, whether BLAS reads it transposed: its map
/// is the default one (false) or the default with the last two results
/// swapped (true), as trace-fold-transpose-into-matmul leaves them. Fails
/// for any other map.
FailureOr<SmallVector<bool>> operandTransposes(linalg::LinalgOp op,
                                               ArrayRef<AffineMap> defaults) {
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  SmallVector<bool> transposed;
  for (auto [index, map] : llvm::enumerate(maps)) {
    AffineMap expected = defaults[index];
    if (map == expected) {
      transposed.push_back(false);
      continue;
    }
    SmallVector<AffineExpr> swapped(expected.getResults());
    std::swap(swapped[swapped.size() - 1], swapped[swapped.size() - 2]);
    // The output is never transposed.
    if (index == 2 || map != AffineMap::get(expected.getNumDims(), 0, swapped,
                                            map.getContext()))
      return failure();
    transposed.push_back(true);
  }
  return transposed;
}

/// The runtime symbol for a matmul of this kind (and which operands it
/// reads transposed), or "" if the op stays.
std::string runtimeSymbol(linalg::LinalgOp op, SmallVector<bool> &transposed) {
  if (!op.hasPureBufferSemantics())
    return "";
  Type element = getElementTypeOrSelf(op.getDpsInits()[0].getType());
  if (!element.isF32() && !element.isF64())
    return "";
  for (Value operand : op->getOperands())
    if (getElementTypeOrSelf(operand.getType()) != element)
      return "";
  std::string suffix = element.isF32() ? "f32" : "f64";
  MLIRContext *ctx = op->getContext();
  std::string name;
  SmallVector<AffineMap> defaults;
  if (isa<linalg::MatmulOp>(op.getOperation())) {
    name = "trace_rt_matmul_";
    defaults = linalg::MatmulOp::getDefaultIndexingMaps(ctx);
  } else if (isa<linalg::BatchMatmulOp>(op.getOperation())) {
    name = "trace_rt_batch_matmul_";
    defaults = linalg::BatchMatmulOp::getDefaultIndexingMaps(ctx);
  } else {
    return "";
  }
  FailureOr<SmallVector<bool>> flags = operandTransposes(op, defaults);
  if (failed(flags))
    return "";
  transposed = std::move(*flags);
  return name + suffix;
}

/// A view of `value` with its last two dims swapped (no copy).
Value transposedView(OpBuilder &b, Location loc, Value value) {
  int64_t rank = cast<MemRefType>(value.getType()).getRank();
  SmallVector<unsigned> perm;
  for (int64_t i = 0; i < rank; ++i)
    perm.push_back(i);
  std::swap(perm[rank - 1], perm[rank - 2]);
  AffineMap map = AffineMap::getPermutationMap(perm, b.getContext());
  return memref::TransposeOp::create(b, loc, value, AffineMapAttr::get(map));
}

struct TraceLinalgToBLASPass final
    : trace::impl::TraceLinalgToBLASPassBase<TraceLinalgToBLASPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    struct Call {
      linalg::LinalgOp op;
      std::string symbol;
      SmallVector<bool> transposed;
    };
    SmallVector<Call> work;
    module.walk([&](linalg::LinalgOp op) {
      SmallVector<bool> transposed;
      std::string symbol = runtimeSymbol(op, transposed);
      if (!symbol.empty())
        work.push_back({op, std::move(symbol), std::move(transposed)});
    });

    SymbolTable symbols(module);
    IRRewriter rewriter(ctx);
    for (auto &[op, symbol, transposed] : work) {
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
      // A transposed operand goes as a strided view; the runtime sees a
      // column-major matrix and asks BLAS for the transpose.
      SmallVector<Value> args;
      for (auto [index, operand] : llvm::enumerate(op->getOperands())) {
        Value view = transposed[index]
                         ? transposedView(rewriter, loc, operand)
                         : operand;
        args.push_back(memref::CastOp::create(rewriter, loc, operandType, view));
      }
      func::CallOp::create(rewriter, loc, callee, args);
      rewriter.eraseOp(op);
    }
  }
};

} // namespace
