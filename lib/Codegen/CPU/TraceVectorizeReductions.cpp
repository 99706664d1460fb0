//===- TraceVectorizeReductions.cpp - row reductions in vector registers --===//
//
// A linalg.reduce over the trailing dims of a contiguous buffer becomes, per
// output element, a loop of register-wide vector combines over its row, one
// vector.reduction, and the remainder in order. Upstream's linalg
// vectorizer would need tiling first and reads the whole row as one vector
// (a 256-lane vector for a 256-wide softmax row); this is the few ops that
// case needs. See Passes.td for what is and is not rewritten.
//
//===----------------------------------------------------------------------===//

#include "trace/Codegen/CPU/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/TypeSwitch.h"

#include <functional>
#include <optional>

#define DEBUG_TYPE "trace-vectorize-reductions"

namespace mlir::trace {
#define GEN_PASS_DEF_TRACEVECTORIZEREDUCTIONSPASS
#include "trace/Codegen/CPU/Passes.h.inc"
} // namespace mlir::trace

using namespace mlir;

namespace {

/// Bits of one vector register the accumulator fills (AVX-512; on a
/// narrower machine LLVM splits it).
constexpr int64_t kRegisterBits = 512;

/// The vector.reduction kind of a combining op, if it is one.
std::optional<vector::CombiningKind> combiningKind(Operation *op) {
  using K = vector::CombiningKind;
  return llvm::TypeSwitch<Operation *, std::optional<K>>(op)
      .Case<arith::AddFOp, arith::AddIOp>([](auto) { return K::ADD; })
      .Case<arith::MulFOp, arith::MulIOp>([](auto) { return K::MUL; })
      .Case([](arith::MaximumFOp) { return K::MAXIMUMF; })
      .Case([](arith::MinimumFOp) { return K::MINIMUMF; })
      .Case([](arith::MaxNumFOp) { return K::MAXNUMF; })
      .Case([](arith::MinNumFOp) { return K::MINNUMF; })
      .Case([](arith::MaxSIOp) { return K::MAXSI; })
      .Case([](arith::MinSIOp) { return K::MINSI; })
      .Case([](arith::MaxUIOp) { return K::MAXUI; })
      .Case([](arith::MinUIOp) { return K::MINUI; })
      .Case([](arith::AndIOp) { return K::AND; })
      .Case([](arith::OrIOp) { return K::OR; })
      .Case([](arith::XOrIOp) { return K::XOR; })
      .Default([](Operation *) { return std::nullopt; });
}

/// The body's one combining op, read as combine(element, accumulator) in
/// either operand order; null if the body is anything else.
Operation *getCombiner(linalg::ReduceOp op) {
  Block &body = op.getCombiner().front();
  if (body.getNumArguments() != 2 || !llvm::hasSingleElement(
                                         body.without_terminator()))
    return nullptr;
  Operation *combiner = &body.front();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  if (combiner->getNumOperands() != 2 || combiner->getNumResults() != 1 ||
      yield.getNumOperands() != 1 ||
      yield.getOperand(0) != combiner->getResult(0) ||
      !combiningKind(combiner))
    return nullptr;
  Value a = combiner->getOperand(0), b = combiner->getOperand(1);
  if (!((a == body.getArgument(0) && b == body.getArgument(1)) ||
        (a == body.getArgument(1) && b == body.getArgument(0))))
    return nullptr;
  return combiner;
}

/// A copy of `combiner` on `acc` and `element` (either scalars or vectors:
/// every combining op is elementwise on vectors). Integer overflow flags
/// (nsw/nuw) are dropped: they hold for the source's order of additions,
/// and a reassociated sum may overflow where the in-order one did not,
/// which would make the result poison.
Value combine(OpBuilder &b, Location loc, Operation *combiner, Value acc,
              Value element) {
  OperationState state(loc, combiner->getName());
  state.addOperands({acc, element});
  state.addTypes(acc.getType());
  state.addAttributes(combiner->getAttrs());
  Operation *copy = b.create(state);
  if (auto flags = dyn_cast<arith::ArithIntegerOverflowFlagsInterface>(copy))
    copy->setAttr(flags.getIntegerOverflowAttrName(),
                  arith::IntegerOverflowFlagsAttr::get(
                      b.getContext(), arith::IntegerOverflowFlags::none));
  return copy->getResult(0);
}

/// What a row's elements are: given the builder, a column and whether a
/// vector of register width starting there is wanted, the value(s) the
/// combine folds in.
using ElementAt = std::function<Value(OpBuilder &, Value column, bool vector)>;

/// The loops both patterns emit. For each of `rows` rows (one when `kept`
/// is 0: the output is 0-d), `startRow` gives its elements; a register-wide
/// accumulator starts from the first vector, folds the rest of the
/// register-aligned part, is reduced with `vector.reduction` from the
/// output's old value, then the remainder is folded in order and the total
/// stored. Replaces `op`.
void emitRowReduction(
    PatternRewriter &rewriter, Operation *op, Operation *combiner,
    Value output, int64_t kept, int64_t rows, int64_t row, int64_t width,
    function_ref<ElementAt(OpBuilder &, ValueRange rowIndex, Value zero)>
        startRow) {
  Location loc = op->getLoc();
  auto index = [&](int64_t v) {
    return arith::ConstantIndexOp::create(rewriter, loc, v).getResult();
  };
  int64_t main = row / width * width;
  // Built before the loops, in this order: an op's arguments are evaluated
  // in no fixed order.
  Value zero = index(0), one = index(1), step = index(width),
        mainEnd = index(main), rowEnd = index(row), rowCount = index(rows);
  auto reduceRow = [&](OpBuilder &b, Location loc, ValueRange rowIndex) {
    ElementAt elementAt = startRow(b, rowIndex, zero);
    Value first = elementAt(b, zero, /*vector=*/true);
    auto lanes = scf::ForOp::create(
        b, loc, step, mainEnd, step, ValueRange{first},
        [&](OpBuilder &b, Location loc, Value column, ValueRange acc) {
          scf::YieldOp::create(
              b, loc,
              combine(b, loc, combiner, acc.front(),
                      elementAt(b, column, /*vector=*/true)));
        });
    Value start = memref::LoadOp::create(b, loc, output, rowIndex);
    Value total = vector::ReductionOp::create(
        b, loc, *combiningKind(combiner), lanes.getResult(0), start);
    if (main != row) {
      auto tail = scf::ForOp::create(
          b, loc, mainEnd, rowEnd, one, ValueRange{total},
          [&](OpBuilder &b, Location loc, Value column, ValueRange acc) {
            scf::YieldOp::create(
                b, loc,
                combine(b, loc, combiner, acc.front(),
                        elementAt(b, column, /*vector=*/false)));
          });
      total = tail.getResult(0);
    }
    memref::StoreOp::create(b, loc, total, output, rowIndex);
  };
  if (kept == 0) {
    reduceRow(rewriter, loc, ValueRange{});
  } else {
    // Rows are independent: a parallel loop, which trace-parallel-loops
    // may give a thread team.
    scf::ParallelOp::create(rewriter, loc, ValueRange{zero},
                            ValueRange{rowCount}, ValueRange{one},
                            [&](OpBuilder &b, Location loc, ValueRange r) {
                              reduceRow(b, loc, r);
                            });
  }
  rewriter.eraseOp(op);
}

struct VectorizeTrailingReduce final : OpRewritePattern<linalg::ReduceOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::ReduceOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.hasPureBufferSemantics() || op.getInputs().size() != 1 ||
        op.getInits().size() != 1)
      return rewriter.notifyMatchFailure(op, "not one buffer in, one out");
    auto in = dyn_cast<MemRefType>(op.getInputs()[0].getType());
    auto out = dyn_cast<MemRefType>(op.getInits()[0].getType());
    if (!in || !out || !in.hasStaticShape() || !out.hasStaticShape() ||
        !in.getLayout().isIdentity() || !out.getLayout().isIdentity())
      return rewriter.notifyMatchFailure(op, "not static and contiguous");
    Type element = in.getElementType();
    if (!element.isIntOrFloat())
      return rewriter.notifyMatchFailure(op, "element type");
    unsigned bits = element.getIntOrFloatBitWidth();
    if (bits < 8 || kRegisterBits % bits != 0)
      return rewriter.notifyMatchFailure(op, "element type");
    int64_t rank = in.getRank();
    ArrayRef<int64_t> dims = op.getDimensions();
    int64_t kept = rank - static_cast<int64_t>(dims.size());
    for (auto [i, dim] : llvm::enumerate(dims))
      if (dim != kept + static_cast<int64_t>(i))
        return rewriter.notifyMatchFailure(op, "reduces a leading dim");
    Operation *combiner = getCombiner(op);
    if (!combiner)
      return rewriter.notifyMatchFailure(op, "body is not one combine");

    ArrayRef<int64_t> shape = in.getShape();
    int64_t rows = 1, row = 1;
    for (int64_t i = 0; i < rank; ++i)
      (i < kept ? rows : row) *= shape[i];
    int64_t width = kRegisterBits / bits;
    if (row < width || rows == 0)
      return rewriter.notifyMatchFailure(op, "rows shorter than a register");

    // The input as [rows, row] and the output as [rows]; a full reduction
    // (no kept dims) reads one row into a 0-d output.
    Location loc = op.getLoc();
    Value input = op.getInputs()[0], output = op.getInits()[0];
    SmallVector<ReassociationIndices> inGroups(2);
    for (int64_t i = 0; i < rank; ++i)
      inGroups[i < kept ? 0 : 1].push_back(i);
    if (kept == 0)
      inGroups.erase(inGroups.begin());
    Value rowsView =
        memref::CollapseShapeOp::create(rewriter, loc, input, inGroups);
    if (kept > 1) {
      ReassociationIndices all;
      for (int64_t i = 0; i < kept; ++i)
        all.push_back(i);
      output = memref::CollapseShapeOp::create(
          rewriter, loc, output, SmallVector<ReassociationIndices>{all});
    }

    auto vectorType = VectorType::get({width}, element);
    emitRowReduction(
        rewriter, op, combiner, output, kept, rows, row, width,
        [&](OpBuilder &, ValueRange rowIndex, Value) -> ElementAt {
          SmallVector<Value> indices(rowIndex);
          return [=](OpBuilder &b, Value column, bool vector) -> Value {
            SmallVector<Value> at(indices);
            at.push_back(column);
            if (vector)
              return vector::LoadOp::create(b, column.getLoc(), vectorType,
                                            rowsView, at);
            return memref::LoadOp::create(b, column.getLoc(), rowsView, at);
          };
        });
    return success();
  }
};

/// Whether `map` reads `type` per row: the first `kept` dims in order, and
/// constant 0 for dims of size 1.
bool isPerRowMap(AffineMap map, MemRefType type, unsigned kept) {
  unsigned next = 0;
  for (auto [i, result] : llvm::enumerate(map.getResults())) {
    if (auto constant = dyn_cast<AffineConstantExpr>(result)) {
      if (constant.getValue() != 0 || type.getDimSize(i) != 1)
        return false;
      continue;
    }
    auto dim = dyn_cast<AffineDimExpr>(result);
    if (!dim || dim.getPosition() != next++)
      return false;
  }
  return next == kept;
}

/// A row reduction as trace-fuse-elementwise-linalg{into-reductions} leaves
/// it: a linalg.generic whose leading loops are parallel and the rest
/// reductions, whose output is indexed by the parallel loops, whose inputs
/// are read at every point or once per row, and whose payload is
/// elementwise arith and math ops ending in one combine with the
/// accumulator. Per row, the payload runs on register-wide vectors and is
/// folded into a vector accumulator, as for linalg.reduce above; the
/// remainder runs on scalars.
struct VectorizeTrailingGenericReduction final
    : OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::GenericOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.hasPureBufferSemantics() || op.getNumDpsInits() != 1)
      return rewriter.notifyMatchFailure(op, "not buffers, one output");
    auto iterators = op.getIteratorTypesArray();
    unsigned kept = 0, loops = iterators.size();
    while (kept < loops && iterators[kept] == utils::IteratorType::parallel)
      ++kept;
    if (kept == loops)
      return rewriter.notifyMatchFailure(op, "no reduction");
    for (unsigned i = kept; i < loops; ++i)
      if (iterators[i] != utils::IteratorType::reduction)
        return rewriter.notifyMatchFailure(op, "reduces a leading loop");
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    if (llvm::any_of(ranges, ShapedType::isDynamic))
      return rewriter.notifyMatchFailure(op, "dynamic loops");

    OpOperand *init = op.getDpsInitOperand(0);
    auto out = dyn_cast<MemRefType>(init->get().getType());
    AffineMap outMap = op.getMatchingIndexingMap(init);
    if (!out || !out.hasStaticShape() || !out.getLayout().isIdentity() ||
        outMap.getNumResults() != kept)
      return rewriter.notifyMatchFailure(op, "output not the kept loops");
    for (unsigned i = 0; i < kept; ++i) {
      auto dim = dyn_cast<AffineDimExpr>(outMap.getResult(i));
      if (!dim || dim.getPosition() != i)
        return rewriter.notifyMatchFailure(op, "output not the kept loops");
    }

    // The payload: ops, then combine(value, accumulator), then yield.
    Block &body = op.getRegion().front();
    auto yield = cast<linalg::YieldOp>(body.getTerminator());
    BlockArgument acc = op.getMatchingBlockArgument(init);
    Operation *combiner = yield.getNumOperands() == 1
                              ? yield.getOperand(0).getDefiningOp()
                              : nullptr;
    if (!combiner || combiner->getBlock() != &body ||
        combiner->getNumOperands() != 2 || !combiningKind(combiner) ||
        !acc.hasOneUse() || !combiner->getResult(0).hasOneUse() ||
        !llvm::is_contained(combiner->getOperands(), acc))
      return rewriter.notifyMatchFailure(op, "payload is not one combine");
    Value value = combiner->getOperand(0) == acc ? combiner->getOperand(1)
                                                 : combiner->getOperand(0);
    for (Operation &inner : body.without_terminator())
      if (&inner != combiner &&
          (!isa_and_nonnull<arith::ArithDialect, math::MathDialect>(
               inner.getDialect()) ||
           inner.getNumRegions() != 0 || inner.getNumResults() != 1 ||
           !inner.getResult(0).getType().isIntOrFloat()))
        return rewriter.notifyMatchFailure(op, "payload op not elementwise");

    Type element = out.getElementType();
    if (!element.isIntOrFloat() || element.getIntOrFloatBitWidth() < 8 ||
        kRegisterBits % element.getIntOrFloatBitWidth() != 0)
      return rewriter.notifyMatchFailure(op, "element type");
    int64_t width = kRegisterBits / element.getIntOrFloatBitWidth();
    int64_t rows = 1, row = 1;
    for (unsigned i = 0; i < loops; ++i)
      (i < kept ? rows : row) *= ranges[i];
    if (row < width || rows == 0)
      return rewriter.notifyMatchFailure(op, "rows shorter than a register");

    // Inputs as [rows, row] (read at every point) or [rows] (per row).
    Location loc = op.getLoc();
    SmallVector<ReassociationIndices> pointGroups(kept ? 2 : 1), rowGroups(1);
    for (unsigned i = 0; i < loops; ++i)
      pointGroups[kept && i < kept ? 0 : pointGroups.size() - 1].push_back(i);
    enum class Kind { Point, Row };
    SmallVector<std::pair<Kind, Value>> inputs;
    for (OpOperand *input : op.getDpsInputOperands()) {
      auto type = dyn_cast<MemRefType>(input->get().getType());
      if (!type || !type.hasStaticShape() || !type.getLayout().isIdentity())
        return rewriter.notifyMatchFailure(op, "input not contiguous");
      // A memref of i1 holds a byte per element; a vector<Nxi1> load
      // would read N bits.
      // (Nor i24 or f80: stored in 4 and 16 bytes, packed in a vector.)
      if (!type.getElementType().isIntOrFloat() ||
          type.getElementType().getIntOrFloatBitWidth() < 8 ||
          !llvm::isPowerOf2_32(type.getElementType().getIntOrFloatBitWidth()))
        return rewriter.notifyMatchFailure(op, "input elements not whole "
                                               "power-of-two bytes");
      AffineMap map = op.getMatchingIndexingMap(input);
      if (map.isIdentity() && type.getShape() == ArrayRef(ranges))
        inputs.push_back({Kind::Point, input->get()});
      else if (isPerRowMap(map, type, kept))
        inputs.push_back({Kind::Row, input->get()});
      else
        return rewriter.notifyMatchFailure(op, "input read otherwise");
    }

    auto collapse = [&](Value memref, int64_t groupsOf) -> Value {
      auto type = cast<MemRefType>(memref.getType());
      SmallVector<ReassociationIndices> groups;
      if (groupsOf == 2) {
        groups = pointGroups;
      } else {
        if (type.getRank() == 0)
          return memref;
        ReassociationIndices all;
        for (int64_t i = 0; i < type.getRank(); ++i)
          all.push_back(i);
        groups.push_back(all);
      }
      if (static_cast<int64_t>(groups.size()) == type.getRank())
        return memref;
      return memref::CollapseShapeOp::create(rewriter, loc, memref, groups);
    };
    SmallVector<Value> views;
    for (auto [kind, memref] : inputs)
      views.push_back(kind == Kind::Point ? collapse(memref, 2)
                                          : collapse(memref, 1));
    Value output = kept > 1 ? collapse(init->get(), 1) : init->get();

    emitRowReduction(
        rewriter, op, combiner, output, kept, rows, row, width,
        [&](OpBuilder &b, ValueRange rowIndexRange,
            Value zero) -> ElementAt {
      SmallVector<Value> rowIndex(rowIndexRange);
      // What is read once per row, then the payload at a column.
      SmallVector<Value> perRow(inputs.size());
      for (auto [i, input] : llvm::enumerate(inputs))
        if (input.first == Kind::Row) {
          auto type = cast<MemRefType>(views[i].getType());
          SmallVector<Value> at;
          if (type.getRank() != 0)
            at.assign(rowIndex.empty() ? SmallVector<Value>{zero}
                                       : SmallVector<Value>(rowIndex));
          perRow[i] = memref::LoadOp::create(b, loc, views[i], at);
        }
      return [=, &body, &inputs, &views](OpBuilder &b, Value column,
                                        bool vectorized) -> Value {
        auto widen = [&](Value scalar) -> Value {
          if (!vectorized)
            return scalar;
          return vector::BroadcastOp::create(
              b, loc, VectorType::get({width}, scalar.getType()), scalar);
        };
        IRMapping mapping;
        for (auto [i, input] : llvm::enumerate(inputs)) {
          BlockArgument arg = body.getArgument(i);
          if (input.first == Kind::Row) {
            mapping.map(arg, widen(perRow[i]));
            continue;
          }
          SmallVector<Value> at(rowIndex);
          at.push_back(column);
          Type elementType = cast<MemRefType>(views[i].getType())
                                 .getElementType();
          mapping.map(arg, vectorized
                               ? vector::LoadOp::create(
                                     b, loc,
                                     VectorType::get({width}, elementType),
                                     views[i], at)
                                     .getResult()
                               : memref::LoadOp::create(b, loc, views[i], at)
                                     .getResult());
        }
        for (Operation &inner : body.without_terminator()) {
          if (&inner == combiner)
            continue;
          if (!vectorized || isa<arith::ConstantOp>(inner)) {
            Operation *copy = b.clone(inner, mapping);
            if (vectorized)
              mapping.map(inner.getResult(0), widen(copy->getResult(0)));
            continue;
          }
          OperationState state(loc, inner.getName());
          for (Value operand : inner.getOperands())
            state.addOperands(mapping.contains(operand)
                                  ? mapping.lookup(operand)
                                  : widen(operand));
          state.addTypes(
              VectorType::get({width}, inner.getResult(0).getType()));
          state.addAttributes(inner.getAttrs());
          mapping.map(inner.getResult(0), b.create(state)->getResult(0));
        }
        if (mapping.contains(value))
          return mapping.lookup(value);
        return widen(value);
      };
    });
    return success();
  }
};

struct TraceVectorizeReductionsPass final
    : trace::impl::TraceVectorizeReductionsPassBase<
          TraceVectorizeReductionsPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<VectorizeTrailingReduce, VectorizeTrailingGenericReduction>(
        &getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
