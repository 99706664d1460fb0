//===- TraceGPUMapLinalg.cpp - linalg on buffers to GPU-mapped loops ------===//
//
// Each linalg op of a host function becomes one scf.parallel nest collapsed
// to one dim and mapped onto a 1-D grid, ready for upstream's
// convert-parallel-loops-to-gpu. The pass description in Codegen/GPU/Passes.td says
// why upstream's tiling and mapper are not used.
//
//===----------------------------------------------------------------------===//

#include "GPUKernels.h"
#include "trace/Codegen/GPU/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/ParallelLoopMapper.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#define DEBUG_TYPE "trace-gpu-map-linalg"

namespace mlir::trace {
#define GEN_PASS_DEF_TRACEGPUMAPLINALGPASS
#include "trace/Codegen/GPU/Passes.h.inc"
} // namespace mlir::trace

using namespace mlir;

namespace {

bool insideKernel(Operation *op) {
  return op->getParentOfType<gpu::LaunchOp>() != nullptr;
}

/// memref.copy -> linalg.copy: a kernel like any other op.
void copiesToLinalg(func::FuncOp func, IRRewriter &rewriter) {
  SmallVector<memref::CopyOp> copies;
  func.walk([&](memref::CopyOp copy) {
    if (!insideKernel(copy))
      copies.push_back(copy);
  });
  for (memref::CopyOp copy : copies) {
    rewriter.setInsertionPoint(copy);
    linalg::CopyOp::create(rewriter, copy.getLoc(),
                           ValueRange{copy.getSource()},
                           ValueRange{copy.getTarget()});
    rewriter.eraseOp(copy);
  }
}

/// Generalizes and interchanges `op` so that its parallel dims come first
/// (one thread per output element, its reductions a loop inside the
/// thread). Returns the op to lower, or failure.
FailureOr<linalg::LinalgOp> parallelDimsFirst(linalg::LinalgOp op,
                                              IRRewriter &rewriter) {
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  SmallVector<unsigned> order;
  for (auto [dim, kind] : llvm::enumerate(iterators))
    if (kind == utils::IteratorType::parallel)
      order.push_back(dim);
  for (auto [dim, kind] : llvm::enumerate(iterators))
    if (kind != utils::IteratorType::parallel)
      order.push_back(dim);
  if (llvm::equal(order, llvm::seq<unsigned>(0, order.size())))
    return op;
  rewriter.setInsertionPoint(op);
  auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
  if (!generic) {
    FailureOr<linalg::GenericOp> generalized =
        linalg::generalizeNamedOp(rewriter, op);
    if (failed(generalized))
      return op.emitOpError("cannot be generalized to put its parallel dims "
                            "first for the GPU");
    generic = *generalized;
  }
  FailureOr<linalg::GenericOp> interchanged =
      linalg::interchangeGenericOp(rewriter, generic, order);
  if (failed(interchanged))
    return generic.emitOpError("cannot interchange its dims for the GPU");
  return cast<linalg::LinalgOp>(interchanged->getOperation());
}

/// Puts an op without parallel dims inside a one-iteration scf.parallel so
/// that it runs as a one-thread kernel instead of on the host.
void wrapInUnitLoop(linalg::LinalgOp op, IRRewriter &rewriter) {
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
  Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
  auto loop = scf::ParallelOp::create(rewriter, loc, ValueRange{zero},
                                      ValueRange{one}, ValueRange{one});
  rewriter.moveOpBefore(op, loop.getBody()->getTerminator());
}

gpu::ParallelLoopDimMappingAttr mapTo(MLIRContext *ctx,
                                      gpu::Processor processor) {
  AffineMap identity = AffineMap::getMultiDimIdentityMap(1, ctx);
  return gpu::ParallelLoopDimMappingAttr::get(ctx, processor, identity,
                                              identity);
}

/// Marks every dim of `loop` sequential (a loop nested in a kernel's
/// thread runs inside that thread).
LogicalResult mapSequential(scf::ParallelOp loop) {
  MLIRContext *ctx = loop.getContext();
  AffineMap identity = AffineMap::getMultiDimIdentityMap(1, ctx);
  SmallVector<gpu::ParallelLoopDimMappingAttr> dims(
      loop.getNumLoops(),
      gpu::ParallelLoopDimMappingAttr::get(ctx, gpu::Processor::Sequential,
                                           identity, identity));
  return gpu::setMappingAttr(loop, dims);
}

/// Collapses an outermost loop nest to one dim and maps it onto blocks and
/// threads of a 1-D grid. Reports its own errors.
/// Replaces a normalized 1-D loop of `iterations` by `blocks` blocks of
/// `blockSize` threads, each thread running iterations tid, tid + all
/// threads, ... (a grid-stride loop).
LogicalResult mapGridStride(scf::ParallelOp loop, int64_t iterations,
                            int64_t blocks, int64_t blockSize,
                            IRRewriter &rewriter) {
  MLIRContext *ctx = loop.getContext();
  Location loc = loop.getLoc();
  rewriter.setInsertionPoint(loop);
  auto cst = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(rewriter, loc, v);
  };
  Value zero = cst(0), one = cst(1);
  auto grid = scf::ParallelOp::create(rewriter, loc, ValueRange{zero},
                                      ValueRange{cst(blocks)}, ValueRange{one});
  rewriter.setInsertionPointToStart(grid.getBody());
  auto block = scf::ParallelOp::create(rewriter, loc, ValueRange{zero},
                                       ValueRange{cst(blockSize)},
                                       ValueRange{one});
  rewriter.setInsertionPointToStart(block.getBody());
  Value first = arith::AddIOp::create(
      rewriter, loc,
      arith::MulIOp::create(rewriter, loc, grid.getInductionVars()[0],
                            cst(blockSize)),
      block.getInductionVars()[0]);
  Value end = cst(iterations);
  Value allThreads = cst(blocks * blockSize);
  auto stride = scf::ForOp::create(rewriter, loc, first, end, allThreads);
  // The old body, on the strided index (the loop is normalized: from 0 by
  // 1).
  Block *body = loop.getBody();
  rewriter.eraseOp(body->getTerminator());
  rewriter.inlineBlockBefore(body, stride.getBody()->getTerminator(),
                             ValueRange{stride.getInductionVar()});
  rewriter.eraseOp(loop);
  if (failed(gpu::setMappingAttr(grid, mapTo(ctx, gpu::Processor::BlockX))) ||
      failed(gpu::setMappingAttr(block, mapTo(ctx, gpu::Processor::ThreadX))))
    return emitError(loc, "cannot map this loop nest onto a GPU grid");
  return success();
}

LogicalResult mapOutermost(scf::ParallelOp loop, int64_t blockSize,
                           int64_t maxBlocks, IRRewriter &rewriter) {
  MLIRContext *ctx = loop.getContext();
  Location loc = loop.getLoc();
  // The iteration count, when static (the collapsed loop's bound is a
  // product the pass does not fold).
  int64_t iterations = 1;
  bool staticCount = true;
  for (auto [lb, ub, st] : llvm::zip(loop.getLowerBound(), loop.getUpperBound(),
                                     loop.getStep())) {
    std::optional<int64_t> lower = getConstantIntValue(lb);
    std::optional<int64_t> upper = getConstantIntValue(ub);
    std::optional<int64_t> step = getConstantIntValue(st);
    if (!lower || !upper || !step || *step <= 0) {
      staticCount = false;
      break;
    }
    iterations *= llvm::divideCeil(std::max<int64_t>(*upper - *lower, 0),
                                   *step);
  }
  if (loop.getNumLoops() > 1) {
    // collapseParallelLoops builds the new loop just before the old one and
    // erases the old one.
    Operation *next = loop->getNextNode();
    std::vector<unsigned> all;
    for (unsigned i = 0, e = loop.getNumLoops(); i < e; ++i)
      all.push_back(i);
    collapseParallelLoops(rewriter, loop, {all});
    loop = dyn_cast_or_null<scf::ParallelOp>(next->getPrevNode());
    if (!loop)
      return emitError(loc, "could not collapse this loop nest to one dim");
  }
  // Nested parallel loops (none from linalg, but input IR may have them)
  // run inside one thread.
  WalkResult nested = loop.getBody()->walk([&](scf::ParallelOp inner) {
    return failed(mapSequential(inner)) ? WalkResult::interrupt()
                                        : WalkResult::advance();
  });
  if (nested.wasInterrupted())
    return emitError(loc, "cannot map a nested parallel loop to sequential");

  if (staticCount && iterations <= blockSize) {
    if (failed(gpu::setMappingAttr(loop, mapTo(ctx, gpu::Processor::ThreadX))))
      return emitError(loc, "cannot map this loop nest onto a GPU block");
    return success();
  }

  if (staticCount && iterations > blockSize * maxBlocks &&
      isConstantIntValue(loop.getLowerBound()[0], 0) &&
      isConstantIntValue(loop.getStep()[0], 1))
    return mapGridStride(loop, iterations, maxBlocks, blockSize, rewriter);

  auto [blocks, threads] =
      scf::tileParallelLoop(loop, {blockSize}, /*noMinMaxBounds=*/true);
  if (failed(gpu::setMappingAttr(blocks, mapTo(ctx, gpu::Processor::BlockX))) ||
      failed(gpu::setMappingAttr(threads, mapTo(ctx, gpu::Processor::ThreadX))))
    return emitError(loc, "cannot map this loop nest onto a GPU grid");
  return success();
}

struct TraceGPUMapLinalgPass final
    : trace::impl::TraceGPUMapLinalgPassBase<TraceGPUMapLinalgPass> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (blockSize < 1 || blockSize > 1024) {
      func.emitError("block-size must be in [1, 1024], got ")
          << static_cast<int64_t>(blockSize);
      return signalPassFailure();
    }
    if (maxBlocks < 1 || maxBlocks > (int64_t{1} << 31) - 1) {
      func.emitError("max-blocks must be in [1, 2^31 - 1], got ")
          << static_cast<int64_t>(maxBlocks);
      return signalPassFailure();
    }
    IRRewriter rewriter(&getContext());
    copiesToLinalg(func, rewriter);

    SmallVector<linalg::LinalgOp> ops;
    func.walk([&](linalg::LinalgOp op) {
      if (!insideKernel(op))
        ops.push_back(op);
    });
    for (linalg::LinalgOp original : ops) {
      if (!original.hasPureBufferSemantics()) {
        original.emitOpError("must be on buffers before the GPU mapping");
        return signalPassFailure();
      }
      FailureOr<linalg::LinalgOp> op = parallelDimsFirst(original, rewriter);
      if (failed(op))
        return signalPassFailure();
      // A reduction over at least a warp's worth of elements: one block per
      // output element, the threads combining their partials.
      if (blockReductions && (*op)->getNumRegions() == 1) {
        auto generic = dyn_cast<linalg::GenericOp>(op->getOperation());
        if (!generic && op->getNumReductionLoops() > 0) {
          rewriter.setInsertionPoint(*op);
          FailureOr<linalg::GenericOp> generalized =
              linalg::generalizeNamedOp(rewriter, *op);
          if (succeeded(generalized)) {
            generic = *generalized;
            op = cast<linalg::LinalgOp>(generic.getOperation());
          }
        }
        if (generic &&
            succeeded(trace::lowerToBlockReduction(generic, blockSize,
                                                   rewriter)))
          continue;
      }
      // Elementwise over dense buffers: W elements per thread, vector loads
      // and stores (the returned loop is mapped below like the others).
      if (vectorize)
        if (auto generic = dyn_cast<linalg::GenericOp>(op->getOperation());
            generic &&
            succeeded(trace::lowerToVectorizedElementwise(generic, rewriter)))
          continue;
      if (op->getNumParallelLoops() == 0 &&
          !(*op)->getParentOfType<scf::ParallelOp>())
        wrapInUnitLoop(*op, rewriter);
      rewriter.setInsertionPoint(*op);
      if (failed(linalg::linalgOpToParallelLoops(rewriter, *op))) {
        op->emitOpError("cannot be lowered to parallel loops");
        return signalPassFailure();
      }
      rewriter.eraseOp(*op);
    }

    SmallVector<scf::ParallelOp> outermost;
    func.walk([&](scf::ParallelOp loop) {
      if (!loop->getParentOfType<scf::ParallelOp>() && !insideKernel(loop))
        outermost.push_back(loop);
    });
    for (scf::ParallelOp loop : outermost) {
      rewriter.setInsertionPoint(loop);
      if (failed(mapOutermost(loop, blockSize, maxBlocks, rewriter)))
        return signalPassFailure();
    }

    // Fold the index arithmetic the collapsing and tiling left (products of
    // constants, dead loads of outputs). No patterns: canonicalization
    // would merge the block and thread loops back into one.
    (void)applyPatternsGreedily(func, FrozenRewritePatternSet(
                                          RewritePatternSet(&getContext())));
  }
};

} // namespace
