//===- Autodiff.h - the forward/backward split, shared by passes -*- C++ -*-===//
//
// trace-autodiff builds the joint @f_grad and splits it into @f_fwd and
// @f_bwd; trace-remat re-partitions @f_grad and splits it again with its own
// choice of what to recompute. The split, and how the passes find its parts
// (the #trace.derivatives attribute on @f, the trace.forward_end op in
// @f_grad; never the functions' names), are declared here.
//
//===----------------------------------------------------------------------===//

#ifndef TRACE_DIALECT_TRACE_TRANSFORMS_AUTODIFF_H
#define TRACE_DIALECT_TRACE_TRANSFORMS_AUTODIFF_H

#include "trace/Dialect/Trace/IR/TraceOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Support/LLVM.h"

namespace mlir::trace {

/// The functions trace-autodiff derived from @f, from its
/// #trace.derivatives.
struct Derivatives {
  func::FuncOp grad, fwd, bwd;
};

/// The functions `f`'s #trace.derivatives names. Fails, with an error at
/// `f`, if it has none or a function it names is missing.
FailureOr<Derivatives> lookupDerivatives(func::FuncOp f, SymbolTable &symbols);

/// The ops of a joint function's body: before its trace.forward_end (the
/// forward) and after it (the backward, the return excluded).
struct JointOps {
  SmallVector<Operation *> forward, backward;
  func::ReturnOp ret;
};

/// The forward and backward ops of `grad`, the joint function of `f`;
/// fails, with an error at `grad`, if its body has no trace.forward_end
/// (or more than one block) or its signature does not extend `f`'s.
FailureOr<JointOps> getJointOps(func::FuncOp f, func::FuncOp grad);
/// Unit attribute on a forward op of @f_grad that was inside a checkpoint
/// region, does not leave it through the region's yield, and is not saved
/// by the policy of a region around it: the backward recomputes it rather
/// than save it.
inline constexpr StringLiteral kCheckpointedAttrName = "trace.checkpointed";
/// The user's rematerialization policy: "must_save", "prefer_save",
/// "must_recompute" or "prefer_recompute", on an op, or on a checkpoint
/// region for every op inside it without its own (trace-autodiff copies it
/// onto them when it inlines the region; trace-remat reads it).
inline constexpr StringLiteral kRematAttrName = "trace.remat";
/// Unit attribute on each op the split clones into @f_bwd to recompute a
/// forward value (the memory report counts recomputation FLOPs from it).
inline constexpr StringLiteral kRecomputedAttrName = "trace.recomputed";

/// Integer attribute on an argument of @f_bwd that is an argument of @f
/// (a weight or an input the backward reads), its index there: the caller
/// passes @f_bwd the same buffer it passed @f_fwd, which does not return
/// it (the value is alive anyway; returning it copied every weight).
inline constexpr StringLiteral kForwardArgumentAttrName =
    "trace.forward_argument";

/// A forward op the split always rebuilds in @f_bwd and never saves: a
/// side-effect-free source with no operands (trace.full, trace.constant,
/// trace.iota). Rebuilding it needs no residual at all.
bool isRebuiltSource(Operation *op);

/// What the split saved and recomputed.
struct SplitSummary {
  unsigned numResiduals = 0;
  /// Bytes of the residuals that are forward activations, and of those
  /// that are @f's arguments (weights, inputs: alive anyway).
  int64_t activationBytes = 0;
  int64_t argumentBytes = 0;
  /// Ops cloned into @f_bwd (tagged kRecomputedAttrName), rebuilt sources
  /// included, and their FLOPs (CostOpInterface).
  unsigned recomputedOps = 0;
  int64_t recomputeFlops = 0;
};

/// Splits @f_grad (`grad`, built from `f`, its forward the ops before its
/// trace.forward_end) into @f_fwd (f's arguments -> f's results +
/// residuals) and @f_bwd (residuals + cotangents -> gradients), inserted
/// into `symbols` after `grad` (SymbolTable::insert renames them if their
/// names are taken), and records all three in `f`'s #trace.derivatives.
/// @f_grad's backward must hold no dead ops: every forward value a backward
/// op reads is needed. A forward op for which `recompute` returns true, and
/// every rebuilt source, is recomputed in @f_bwd (transitively, each value
/// just before the first backward op that reads it); any other forward
/// value the backward needs is a residual, named `saved.<producer name>`.
/// With `printSaved`, a remark on `f` lists the residuals.
FailureOr<SplitSummary>
splitForwardBackward(func::FuncOp f, func::FuncOp grad,
                     function_ref<bool(Operation *)> recompute,
                     SymbolTable &symbols, bool printSaved);

/// Moves the bodies of checkpoint and fusion regions into the enclosing
/// block, innermost first, so the function is one flat block of ops. A
/// checkpoint region's kRematAttrName goes onto the ops inside it that have
/// none (an inner region's, already copied, wins).
void inlineRegions(func::FuncOp func);

} // namespace mlir::trace

#endif // TRACE_DIALECT_TRACE_TRANSFORMS_AUTODIFF_H
