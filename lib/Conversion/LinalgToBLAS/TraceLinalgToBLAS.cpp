//===- TraceLinalgToBLAS.cpp - matmuls on buffers to runtime BLAS ---------===//
//
// Rewrites f32/f64 linalg.matmul and linalg.batch_matmul on memrefs into
// calls of the CPU runtime (lib/Runtime/CPU, OpenBLAS) or trace_gpu.gemm
// ops, which become calls of the CUDA runtime (lib/Runtime/CUDA, cuBLAS)
// on the kernels' stream. See the pass description in Passes.td for why
// this is not convert-linalg-to-std.
//
//===----------------------------------------------------------------------===//

#include "trace/Conversion/Passes.h"

#include "trace/Dialect/TraceGPU/IR/TraceGPUDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

#define DEBUG_TYPE "trace-linalg-to-blas"

namespace mlir::trace {
#define GEN_PASS_DEF_TRACELINALGTOBLASPASS
#include "trace/Conversion/Passes.h.inc"
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

/// Whether cuBLAS can read `operand`, as it is or as a view with its last
/// two dims swapped: its static strides have a unit stride in one of the
/// last two dims (the last one for the output, which cuBLAS writes
/// row-major here). The CPU runtime takes any strides (a loop for what
/// OpenBLAS cannot read); the CUDA one has no such fallback.
bool blasReadable(Value operand, bool output) {
  auto type = cast<MemRefType>(operand.getType());
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)))
    return false;
  int64_t rank = type.getRank();
  ArrayRef<int64_t> shape = type.getShape();
  // A dim of static size 1 may have any stride.
  auto unit = [&](int64_t dim) {
    return strides[dim] == 1 || shape[dim] == 1;
  };
  return unit(rank - 1) || (!output && unit(rank - 2));
}

/// For a matmul the runtime takes, which operands it reads transposed;
/// failure if the op stays. `cuda`: only operands cuBLAS can read.
FailureOr<SmallVector<bool>> blasTransposes(linalg::LinalgOp op, bool cuda) {
  if (!op.hasPureBufferSemantics())
    return failure();
  Type element = getElementTypeOrSelf(op.getDpsInits()[0].getType());
  if (!element.isF32() && !element.isF64())
    return failure();
  for (Value operand : op->getOperands())
    if (getElementTypeOrSelf(operand.getType()) != element)
      return failure();
  MLIRContext *ctx = op->getContext();
  SmallVector<AffineMap> defaults;
  if (isa<linalg::MatmulOp>(op.getOperation()))
    defaults = linalg::MatmulOp::getDefaultIndexingMaps(ctx);
  else if (isa<linalg::BatchMatmulOp>(op.getOperation()))
    defaults = linalg::BatchMatmulOp::getDefaultIndexingMaps(ctx);
  else
    return failure();
  if (cuda)
    for (OpOperand &operand : op->getOpOperands())
      if (!blasReadable(operand.get(), op.isDpsInit(&operand)))
        return failure();
  return operandTransposes(op, defaults);
}

/// The buffer `value` is a view of (itself if it is no view).
Value viewRoot(Value value) {
  while (auto view = value.getDefiningOp<ViewLikeOpInterface>())
    value = view.getViewSource();
  return value;
}

/// The `linalg.fill` of +0.0 that initializes `op`'s output right before it
/// (only allocations and ops without memory effects in between), or null.
/// The call then overwrites C (beta = 0) and the fill goes: on the GPU, one
/// kernel less per matmul. C must be a fresh allocation, or an argument
/// of the function (a layer's result or a step's gradient: the caller's
/// buffer, which no other argument overlaps, as one-shot bufferization
/// copies where buffers would), and no input may be a view of it, or the
/// fill would also have zeroed an input. C's old contents are never read.
linalg::FillOp zeroFillBefore(linalg::LinalgOp op) {
  Value init = op.getDpsInits()[0];
  auto argument = dyn_cast<BlockArgument>(init);
  bool outParam = argument && argument.getOwner()->isEntryBlock() &&
                  isa<FunctionOpInterface>(argument.getOwner()->getParentOp());
  if (!init.getDefiningOp<memref::AllocOp>() && !outParam)
    return nullptr;
  for (OpOperand *input : op.getDpsInputOperands())
    if (viewRoot(input->get()) == init)
      return nullptr;
  for (Operation *prev = op->getPrevNode(); prev;
       prev = prev->getPrevNode()) {
    if (auto fill = dyn_cast<linalg::FillOp>(prev)) {
      if (fill.getOutputs()[0] == init &&
          matchPattern(fill.getInputs()[0], m_PosZeroFloat()))
        return fill;
      return nullptr;
    }
    if (!isMemoryEffectFree(prev) && !isa<memref::AllocOp>(prev))
      return nullptr;
  }
  return nullptr;
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
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    bool cuda = runtime == trace::BLASRuntime::CUDA;
    SmallVector<std::pair<linalg::LinalgOp, SmallVector<bool>>> work;
    module.walk([&](linalg::LinalgOp op) {
      if (FailureOr<SmallVector<bool>> transposed = blasTransposes(op, cuda);
          succeeded(transposed))
        work.push_back({op, std::move(*transposed)});
    });

    SymbolTable symbols(module);
    IRRewriter rewriter(ctx);
    for (auto &[op, transposed] : work) {
      Location loc = op.getLoc();
      int64_t rank = op.getRank(op.getDpsInitOperand(0));
      Type element = getElementTypeOrSelf(op.getDpsInits()[0].getType());

      rewriter.setInsertionPoint(op);
      // A transposed operand goes as a strided view; the runtime sees a
      // column-major matrix and asks BLAS for the transpose.
      SmallVector<Value> operands;
      for (auto [index, operand] : llvm::enumerate(op->getOperands()))
        operands.push_back(transposed[index]
                               ? transposedView(rewriter, loc, operand)
                               : operand);
      // C = A B + beta C: beta 0 replaces a zero fill just before.
      double beta = 1.0;
      if (linalg::FillOp fill = zeroFillBefore(op)) {
        rewriter.eraseOp(fill);
        beta = 0.0;
      }

      if (cuda) {
        // Ordered on the kernels' stream by gpu-async-region.
        trace_gpu::GemmOp::create(
            rewriter, loc, rewriter.getType<gpu::AsyncTokenType>(),
            ValueRange(), operands[0], operands[1], operands[2],
            rewriter.getF64FloatAttr(beta));
        rewriter.eraseOp(op);
        continue;
      }

      // The CPU runtime's trace_rt_{batch_,}matmul_{f32,f64}.
      std::string symbol = std::string("trace_rt_") +
                           (rank == 3 ? "batch_" : "") + "matmul_" +
                           (element.isF32() ? "f32" : "f64");
      MemRefType operandType = dynamicStridedType(ctx, rank, element);
      auto callee = symbols.lookup<func::FuncOp>(symbol);
      if (!callee) {
        OpBuilder::InsertionGuard guard(rewriter);
        rewriter.setInsertionPointToStart(module.getBody());
        callee = func::FuncOp::create(
            rewriter, loc, symbol,
            rewriter.getFunctionType(
                {operandType, operandType, operandType, element}, {}));
        callee.setPrivate();
        // The runtime implements the C interface (_mlir_ciface_<symbol>),
        // which takes pointers to memref descriptors.
        callee->setAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName(),
                        rewriter.getUnitAttr());
        symbols.insert(callee);
      }
      SmallVector<Value> args;
      for (Value operand : operands)
        args.push_back(
            memref::CastOp::create(rewriter, loc, operandType, operand));
      args.push_back(arith::ConstantOp::create(
          rewriter, loc, element, rewriter.getFloatAttr(element, beta)));
      func::CallOp::create(rewriter, loc, callee, args);
      rewriter.eraseOp(op);
    }
  }
};

} // namespace
