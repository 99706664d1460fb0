//===- GPUVectorize.cpp - elementwise kernels with vector loads -----------===//
//
// trace-gpu-map-linalg's lowering of an all-parallel linalg op whose
// outputs are dense: each thread handles W consecutive elements (16 bytes
// of the widest element type) and moves the operands read and written in
// element order with one vector load or store each (ld.global.v4.f32 for
// f32), as PyTorch's vectorized elementwise kernels do. The body is
// computed per element. Operands read through another map (a broadcast, a
// transpose) are loaded element by element. The vector path needs every
// vector-accessed buffer 16-byte aligned at run time (a C API caller may
// pass any device pointer); a thread whose buffers are not takes the
// scalar path for its W elements.
//
//===----------------------------------------------------------------------===//

#include "GPUKernels.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"

using namespace mlir;

namespace {

/// Bits of an element type a vector may hold (no i1, no index).
std::optional<unsigned> elementBits(Type type) {
  if (!type.isIntOrFloat() || type.isInteger(1))
    return std::nullopt;
  unsigned bits = type.getIntOrFloatBitWidth();
  if (bits < 8 || bits > 64 || !llvm::isPowerOf2_32(bits))
    return std::nullopt;
  return bits;
}

/// A vector's own size: the buffer is 16-byte aligned (checked at run
/// time) and the vector starts at a multiple of its length, so the access
/// is aligned to its size; without saying so, LLVM assumes the element's
/// alignment and NVPTX splits the access into scalar ones.
llvm::MaybeAlign vectorAlignment(VectorType type) {
  return llvm::Align(type.getNumElements() *
                     type.getElementType().getIntOrFloatBitWidth() / 8);
}

} // namespace

FailureOr<scf::ParallelOp>
trace::lowerToVectorizedElementwise(linalg::GenericOp op,
                                    RewriterBase &rewriter) {
  if (!op.hasPureBufferSemantics() ||
      op.getNumParallelLoops() != op.getNumLoops() || op.getNumLoops() == 0 ||
      op->getParentOfType<scf::ParallelOp>())
    return failure();
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (ShapedType::isDynamicShape(ranges))
    return failure();
  int64_t elements = 1;
  for (int64_t range : ranges)
    elements *= range;
  Block &body = op.getRegion().front();
  if (llvm::any_of(body.without_terminator(),
                   [](Operation &inner) { return inner.getNumRegions() > 0; }))
    return failure();

  // Dense operands: an identity map over an identity-layout memref, so the
  // iteration's linear index is the element's offset.
  unsigned widest = 0;
  SmallVector<bool> dense;
  for (OpOperand &operand : op->getOpOperands()) {
    auto type = dyn_cast<MemRefType>(operand.get().getType());
    if (!type || !type.getLayout().isIdentity())
      return failure();
    std::optional<unsigned> bits = elementBits(type.getElementType());
    bool isDense = bits && op.getMatchingIndexingMap(&operand).isIdentity() &&
                   type.getRank() == static_cast<int64_t>(ranges.size());
    if (op.isDpsInit(&operand) && !isDense)
      return failure(); // stores go in element order
    dense.push_back(isDense);
    if (isDense)
      widest = std::max(widest, *bits);
  }
  if (widest == 0)
    return failure();
  int64_t width = 128 / widest;
  if (elements % width != 0 || elements < 32 * width)
    return failure();

  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  auto cst = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(rewriter, loc, v);
  };
  // Dense buffers seen as 1-D (a view: nothing is copied).
  SmallVector<Value> flat;
  for (auto [operand, isDense] : llvm::zip(op->getOpOperands(), dense)) {
    Value buffer = operand.get();
    auto type = cast<MemRefType>(buffer.getType());
    if (isDense && type.getRank() != 1) {
      ReassociationIndices all =
          llvm::to_vector(llvm::seq<int64_t>(0, type.getRank()));
      buffer = memref::CollapseShapeOp::create(rewriter, loc, buffer,
                                               ArrayRef<ReassociationIndices>{all});
    }
    flat.push_back(buffer);
  }

  Value lower = cst(0);
  Value upper = cst(elements / width);
  Value step = cst(1);
  auto loop = scf::ParallelOp::create(rewriter, loc, ValueRange{lower},
                                      ValueRange{upper}, ValueRange{step});
  rewriter.setInsertionPointToStart(loop.getBody());
  Value base = arith::MulIOp::create(rewriter, loc, loop.getInductionVars()[0],
                                     cst(width));

  // Runtime alignment of the vector-accessed buffers: the OR of their
  // addresses has no bit below 16 bytes set.
  Value addresses;
  for (auto [buffer, isDense] : llvm::zip(flat, dense)) {
    if (!isDense)
      continue;
    Value address =
        memref::ExtractAlignedPointerAsIndexOp::create(rewriter, loc, buffer);
    addresses = addresses ? arith::OrIOp::create(rewriter, loc, addresses,
                                                 address)
                                .getResult()
                          : address;
  }
  Value misaligned =
      arith::RemUIOp::create(rewriter, loc, addresses, cst(16));
  Value aligned = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq,
                                        misaligned, cst(0));
  auto branch = scf::IfOp::create(rewriter, loc, aligned, /*withElse=*/true);

  // The body once per element `base + lane`; `read` gives a dense
  // operand's element, `write` stores a result.
  auto emitLanes = [&](function_ref<Value(unsigned, int64_t)> read,
                       function_ref<void(unsigned, int64_t, Value)> write) {
    for (int64_t lane = 0; lane < width; ++lane) {
      IRMapping mapping;
      Value linear = arith::AddIOp::create(rewriter, loc, base, cst(lane));
      SmallVector<Value> indices; // delinearized, when needed
      auto pointIndices = [&]() -> ArrayRef<Value> {
        if (indices.empty())
          indices = delinearizeStatic(rewriter, loc, linear, ranges);
        return indices;
      };
      for (auto [index, operand] : llvm::enumerate(op->getOpOperands())) {
        BlockArgument arg = op.getMatchingBlockArgument(&operand);
        if (arg.use_empty())
          continue;
        if (dense[index]) {
          mapping.map(arg, read(index, lane));
          continue;
        }
        mapping.map(arg, memref::LoadOp::create(
                             rewriter, loc, flat[index],
                             indicesAt(rewriter, loc,
                                       op.getMatchingIndexingMap(&operand),
                                       pointIndices())));
      }
      for (Operation &inner : body.without_terminator()) {
        if (auto index = dyn_cast<linalg::IndexOp>(inner)) {
          mapping.map(index.getResult(), pointIndices()[index.getDim()]);
          continue;
        }
        rewriter.clone(inner, mapping);
      }
      for (OpOperand &init : op.getDpsInitsMutable()) {
        unsigned index = init.getOperandNumber();
        write(index, lane,
              mapping.lookupOrDefault(body.getTerminator()->getOperand(
                  index - op.getNumDpsInputs())));
      }
    }
  };

  // Aligned: one vector load per dense operand read, one vector store per
  // result.
  rewriter.setInsertionPointToStart(&branch.getThenRegion().front());
  {
    SmallVector<Value> vectors(flat.size());
    SmallVector<SmallVector<Value>> results(flat.size());
    emitLanes(
        [&](unsigned index, int64_t lane) -> Value {
          if (!vectors[index]) {
            OpBuilder::InsertionGuard guard(rewriter);
            rewriter.setInsertionPointToStart(&branch.getThenRegion().front());
            auto type = VectorType::get(
                {width},
                cast<MemRefType>(flat[index].getType()).getElementType());
            vectors[index] = vector::LoadOp::create(
                rewriter, loc, type, flat[index], base, /*nontemporal=*/false,
                vectorAlignment(type));
          }
          return vector::ExtractOp::create(rewriter, loc, vectors[index],
                                           ArrayRef<int64_t>{lane});
        },
        [&](unsigned index, int64_t, Value value) {
          results[index].push_back(value);
        });
    for (auto [index, values] : llvm::enumerate(results)) {
      if (values.empty())
        continue;
      auto type = VectorType::get({width}, values.front().getType());
      Value vector = vector::FromElementsOp::create(rewriter, loc, type, values);
      vector::StoreOp::create(rewriter, loc, vector, flat[index], base,
                              /*nontemporal=*/false, vectorAlignment(type));
    }
  }
  // Not aligned: the same elements one by one.
  rewriter.setInsertionPointToStart(&branch.getElseRegion().front());
  emitLanes(
      [&](unsigned index, int64_t lane) -> Value {
        Value at = arith::AddIOp::create(rewriter, loc, base, cst(lane));
        return memref::LoadOp::create(rewriter, loc, flat[index], at);
      },
      [&](unsigned index, int64_t lane, Value value) {
        Value at = arith::AddIOp::create(rewriter, loc, base, cst(lane));
        memref::StoreOp::create(rewriter, loc, value, flat[index], at);
      });

  rewriter.eraseOp(op);
  return loop;
}
