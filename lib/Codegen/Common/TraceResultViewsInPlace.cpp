//===- TraceResultViewsInPlace.cpp - reshaped results in their out-param --===//

#include "trace/Codegen/Common/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/MapVector.h"

#define DEBUG_TYPE "trace-result-views-in-place"

namespace mlir::trace {
#define GEN_PASS_DEF_TRACERESULTVIEWSINPLACEPASS
#include "trace/Codegen/Common/Passes.h.inc"
} // namespace mlir::trace

using namespace mlir;

namespace {

bool isIdentity(Value value) {
  auto type = dyn_cast<MemRefType>(value.getType());
  return type && type.hasStaticShape() && type.getLayout().isIdentity();
}

/// The reshapes from an allocation to `view`, allocation first; empty when
/// `view` is not such a chain.
SmallVector<Operation *> reshapeChain(Value view, memref::AllocOp &root) {
  SmallVector<Operation *> chain;
  Value current = view;
  while (Operation *def = current.getDefiningOp()) {
    if (!isIdentity(current))
      return {};
    if (auto alloc = dyn_cast<memref::AllocOp>(def)) {
      root = alloc;
      std::reverse(chain.begin(), chain.end());
      return chain;
    }
    if (!isa<memref::ExpandShapeOp, memref::CollapseShapeOp>(def))
      return {};
    chain.push_back(def);
    current = def->getOperand(0);
  }
  return {};
}

struct Candidate {
  memref::CopyOp copy;
  SmallVector<Operation *> chain;
};

struct TraceResultViewsInPlacePass final
    : trace::impl::TraceResultViewsInPlacePassBase<
          TraceResultViewsInPlacePass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    Block &entry = func.getBody().front();
    llvm::MapVector<Operation *, SmallVector<Candidate>> byAlloc;
    for (auto copy : entry.getOps<memref::CopyOp>()) {
      auto out = dyn_cast<BlockArgument>(copy.getTarget());
      if (!out || out.getOwner() != &entry || !out.hasOneUse() ||
          !isIdentity(out))
        continue;
      memref::AllocOp root;
      SmallVector<Operation *> chain = reshapeChain(copy.getSource(), root);
      if (!root || root->getBlock() != &entry)
        continue;
      byAlloc[root].push_back({copy, std::move(chain)});
    }
    for (auto &[rootOp, candidates] : byAlloc) {
      if (candidates.size() != 1)
        continue;
      auto root = cast<memref::AllocOp>(rootOp);
      Candidate &c = candidates.front();
      // Every use of the allocation and of its views precedes the copy, so
      // the out-param ends with what the copy would have written.
      SmallVector<Value> values = {root.getResult()};
      for (Operation *op : c.chain)
        values.push_back(op->getResult(0));
      bool early = llvm::all_of(values, [&](Value v) {
        return llvm::all_of(v.getUsers(), [&](Operation *user) {
          Operation *inEntry = entry.findAncestorOpInBlock(*user);
          return inEntry && (inEntry == c.copy ||
                             llvm::is_contained(c.chain, inEntry) ||
                             inEntry->isBeforeInBlock(c.copy));
        });
      });
      // ... and nothing but copies into out-params follows it (another
      // view of the allocation, a subview, might write it later).
      bool last = true;
      for (Operation *op = c.copy->getNextNode(); op; op = op->getNextNode())
        last &= isa<memref::CopyOp, func::ReturnOp>(op);
      if (!early || !last)
        continue;
      // The out-param, reshaped back step by step to the allocation's type.
      OpBuilder b(root);
      Value current = c.copy.getTarget();
      for (Operation *op : llvm::reverse(c.chain)) {
        Location loc = op->getLoc();
        auto sourceType = cast<MemRefType>(op->getOperand(0).getType());
        if (auto expand = dyn_cast<memref::ExpandShapeOp>(op))
          current = memref::CollapseShapeOp::create(
              b, loc, sourceType, current,
              expand.getReassociationIndices());
        else
          current = memref::ExpandShapeOp::create(
              b, loc, sourceType, current,
              cast<memref::CollapseShapeOp>(op).getReassociationIndices());
      }
      root.getResult().replaceAllUsesWith(current);
      c.copy.erase();
      root.erase();
      for (Operation *op : llvm::reverse(c.chain))
        if (op->use_empty())
          op->erase();
    }
  }
};

} // namespace
