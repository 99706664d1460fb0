//===- TraceGPULaunchesOnCPU.cpp - run gpu.launch bodies as CPU loops -----===//
//
// Each gpu.launch becomes loops over its blocks and, inside, over its
// threads, so that the GPU pipeline's kernels (their index arithmetic,
// guards, block reductions) can be executed and checked on a machine
// without a GPU. A barrier (gpu.barrier, or the one inside gpu.all_reduce)
// splits the body into phases: every thread of a block runs one phase
// before any runs the next. Values a later phase reads are kept per thread
// in a buffer; an all-reduce folds its operands over the block's threads in
// thread order. Upstream MLIR has no CPU lowering of gpu.launch.
//
//===----------------------------------------------------------------------===//

#include "trace/Codegen/CPU/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Utils/GPUUtils.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::trace {
#define GEN_PASS_DEF_TRACEGPULAUNCHESONCPUPASS
#include "trace/Codegen/CPU/Passes.h.inc"
} // namespace mlir::trace

using namespace mlir;

namespace {

/// Emits scf.for loops over [0, ub) for each of `ubs` (outermost first) and
/// returns their induction variables; the builder is left in the innermost.
SmallVector<Value> emitLoopNest(OpBuilder &b, Location loc,
                                ArrayRef<Value> ubs) {
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  SmallVector<Value> ivs;
  for (Value ub : ubs) {
    auto loop = scf::ForOp::create(b, loc, zero, ub, one);
    b.setInsertionPointToStart(loop.getBody());
    ivs.push_back(loop.getInductionVar());
  }
  return ivs;
}

LogicalResult runOnCPU(gpu::LaunchOp launch, IRRewriter &rewriter) {
  Location loc = launch.getLoc();
  if (launch.getAsyncToken() || !launch.getAsyncDependencies().empty() ||
      launch.hasClusterSize() || launch.getDynamicSharedMemorySize() ||
      launch.getNumWorkgroupAttributions() ||
      launch.getNumPrivateAttributions())
    return launch.emitOpError(
        "has async tokens, clusters or memory attributions, which the CPU "
        "emulation does not support");
  Block &body = launch.getBody().front();
  if (!llvm::hasSingleElement(launch.getBody()))
    return launch.emitOpError("has more than one block");

  // Phases: top-level runs of ops between barriers.
  SmallVector<SmallVector<Operation *>> phases(1);
  SmallVector<gpu::AllReduceOp> reduces; // the barrier ending each phase
  for (Operation &op : body.without_terminator()) {
    if (auto reduce = dyn_cast<gpu::AllReduceOp>(op)) {
      if (!reduce.getBody().empty() || !reduce.getOp())
        return reduce.emitOpError("with a region is not emulated on the CPU");
      reduces.push_back(reduce);
      phases.emplace_back();
      continue;
    }
    if (isa<gpu::BarrierOp>(op)) {
      reduces.push_back(nullptr);
      phases.emplace_back();
      continue;
    }
    if (op.walk([](Operation *inner) {
              return isa<gpu::AllReduceOp, gpu::BarrierOp>(inner)
                         ? WalkResult::interrupt()
                         : WalkResult::advance();
            }).wasInterrupted())
      return op.emitOpError("holds a barrier below the kernel's top level, "
                            "which the CPU emulation does not support");
    phases.back().push_back(&op);
  }
  if (!isa<gpu::TerminatorOp>(body.getTerminator()))
    return launch.emitOpError("does not end with gpu.terminator");

  // Values defined in one phase and read in a later one (constants are
  // cloned instead).
  llvm::DenseMap<Operation *, unsigned> phaseOf;
  for (auto [index, phase] : llvm::enumerate(phases))
    for (Operation *op : phase)
      phaseOf[op] = index;
  llvm::SetVector<Value> kept; // each gets a per-thread buffer
  auto readIn = [&](Value operand, unsigned index) {
    Operation *def = operand.getDefiningOp();
    if (!def || def->getBlock() != &body ||
        def->hasTrait<OpTrait::ConstantLike>() ||
        isa<gpu::AllReduceOp>(def) || phaseOf.lookup(def) == index)
      return;
    kept.insert(operand);
  };
  for (auto [index, phase] : llvm::enumerate(phases)) {
    for (Operation *op : phase)
      op->walk([&](Operation *inner) {
        for (Value operand : inner->getOperands())
          readIn(operand, index);
      });
    // The all-reduce ending this phase reads its operand in this phase.
    if (index < reduces.size() && reduces[index])
      readIn(reduces[index].getValue(), index);
  }

  rewriter.setInsertionPoint(launch);
  gpu::KernelDim3 grid = launch.getGridSizeOperandValues();
  gpu::KernelDim3 block = launch.getBlockSizeOperandValues();
  Value threads = arith::MulIOp::create(
      rewriter, loc,
      arith::MulIOp::create(rewriter, loc, block.x, block.y), block.z);
  // Per-thread buffers: kept values, then each all-reduce's operands.
  SmallVector<Value> keptBuffers, reduceBuffers;
  for (Value value : kept)
    keptBuffers.push_back(memref::AllocaOp::create(
        rewriter, loc,
        MemRefType::get({ShapedType::kDynamic}, value.getType()),
        ValueRange{threads}));
  for (gpu::AllReduceOp reduce : reduces)
    reduceBuffers.push_back(
        reduce ? memref::AllocaOp::create(
                     rewriter, loc,
                     MemRefType::get({ShapedType::kDynamic},
                                     reduce.getType()),
                     ValueRange{threads})
                     .getResult()
               : Value());

  OpBuilder::InsertionGuard guard(rewriter);
  gpu::KernelDim3 blockIds = launch.getBlockIds();
  gpu::KernelDim3 threadIds = launch.getThreadIds();
  SmallVector<Value> blockIvs =
      emitLoopNest(rewriter, loc, {grid.z, grid.y, grid.x});
  Block *blockBody = rewriter.getInsertionBlock();
  Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
  Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
  SmallVector<Value> totals; // each all-reduce's result for this block
  for (auto [index, phase] : llvm::enumerate(phases)) {
    rewriter.setInsertionPoint(blockBody->getTerminator());
    SmallVector<Value> threadIvs =
        emitLoopNest(rewriter, loc, {block.z, block.y, block.x});
    // The thread's linear index: (tz * sy + ty) * sx + tx.
    Value linear = arith::AddIOp::create(
        rewriter, loc,
        arith::MulIOp::create(
            rewriter, loc,
            arith::AddIOp::create(
                rewriter, loc,
                arith::MulIOp::create(rewriter, loc, threadIvs[0], block.y),
                threadIvs[1]),
            block.x),
        threadIvs[2]);
    IRMapping mapping;
    mapping.map(blockIds.z, blockIvs[0]);
    mapping.map(blockIds.y, blockIvs[1]);
    mapping.map(blockIds.x, blockIvs[2]);
    mapping.map(threadIds.z, threadIvs[0]);
    mapping.map(threadIds.y, threadIvs[1]);
    mapping.map(threadIds.x, threadIvs[2]);
    gpu::KernelDim3 gridArgs = launch.getGridSize();
    gpu::KernelDim3 blockArgs = launch.getBlockSize();
    mapping.map(gridArgs.x, grid.x);
    mapping.map(gridArgs.y, grid.y);
    mapping.map(gridArgs.z, grid.z);
    mapping.map(blockArgs.x, block.x);
    mapping.map(blockArgs.y, block.y);
    mapping.map(blockArgs.z, block.z);
    for (auto [reduce, total] : llvm::zip(reduces, totals))
      if (reduce)
        mapping.map(reduce.getResult(), total);
    for (auto [value, buffer] : llvm::zip(kept, keptBuffers))
      if (phaseOf.lookup(value.getDefiningOp()) < index)
        mapping.map(value, memref::LoadOp::create(rewriter, loc, buffer,
                                                  ValueRange{linear}));
    for (Operation &op : body.without_terminator())
      if (op.hasTrait<OpTrait::ConstantLike>() &&
          phaseOf.lookup(&op) != index)
        rewriter.clone(op, mapping);
    for (Operation *op : phase)
      rewriter.clone(*op, mapping);
    for (auto [value, buffer] : llvm::zip(kept, keptBuffers))
      if (phaseOf.lookup(value.getDefiningOp()) == index)
        memref::StoreOp::create(rewriter, loc, mapping.lookup(value), buffer,
                                ValueRange{linear});
    if (index == reduces.size())
      break;
    gpu::AllReduceOp reduce = reduces[index];
    if (!reduce) {
      totals.push_back(Value());
      continue;
    }
    memref::StoreOp::create(rewriter, loc,
                            mapping.lookup(reduce.getValue()),
                            reduceBuffers[index], ValueRange{linear});
    // After every thread: fold the operands in thread order.
    rewriter.setInsertionPoint(blockBody->getTerminator());
    Value first = memref::LoadOp::create(rewriter, loc, reduceBuffers[index],
                                         ValueRange{zero});
    auto fold = scf::ForOp::create(rewriter, loc, one, threads, one,
                                   ValueRange{first});
    {
      OpBuilder::InsertionGuard inner(rewriter);
      rewriter.setInsertionPointToStart(fold.getBody());
      Value next = memref::LoadOp::create(rewriter, loc, reduceBuffers[index],
                                          ValueRange{fold.getInductionVar()});
      // Upstream's mapping of the kind to its arith op.
      scf::YieldOp::create(
          rewriter, loc,
          vector::makeArithReduction(rewriter, loc,
                                     gpu::convertReductionKind(*reduce.getOp()),
                                     fold.getRegionIterArgs()[0], next));
    }
    totals.push_back(fold.getResult(0));
  }
  rewriter.eraseOp(launch);
  return success();
}

struct TraceGPULaunchesOnCPUPass final
    : trace::impl::TraceGPULaunchesOnCPUPassBase<TraceGPULaunchesOnCPUPass> {
  void runOnOperation() override {
    SmallVector<gpu::LaunchOp> launches;
    getOperation().walk([&](gpu::LaunchOp launch) {
      launches.push_back(launch);
    });
    IRRewriter rewriter(&getContext());
    for (gpu::LaunchOp launch : launches)
      if (failed(runOnCPU(launch, rewriter)))
        return signalPassFailure();
  }
};

} // namespace
