//===- Utils.cpp - helpers of the trace-to-linalg patterns ----------------===//
//
// The building blocks that more than one family of patterns uses (declared,
// and documented, in Utils.h).
//
//===----------------------------------------------------------------------===//

#include "Utils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"
#include "mlir/IR/AffineMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/Sequence.h"

using namespace mlir;

namespace mlir::trace::trace_to_linalg {

//===----------------------------------------------------------------------===//
// Building blocks
//===----------------------------------------------------------------------===//

Value createEmpty(OpBuilder &b, Location loc, RankedTensorType type) {
  return tensor::EmptyOp::create(b, loc, type.getShape(),
                                 type.getElementType());
}

Value createFilled(OpBuilder &b, Location loc, RankedTensorType type,
                   TypedAttr value) {
  Value scalar = arith::ConstantOp::create(b, loc, value);
  return linalg::FillOp::create(b, loc, scalar, createEmpty(b, loc, type))
      .getResult(0);
}

Value createFloatConstant(OpBuilder &b, Location loc, Type type,
                          double value) {
  return arith::ConstantOp::create(b, loc, b.getFloatAttr(type, value));
}

Value createIntConstant(OpBuilder &b, Location loc, Type type,
                        uint64_t value) {
  unsigned width = type.getIntOrFloatBitWidth();
  return arith::ConstantOp::create(b, loc,
                                   b.getIntegerAttr(type, APInt(width, value)));
}

Value createElementwise(OpBuilder &b, Location loc,
                        RankedTensorType resultType, ValueRange inputs,
                        ScalarFn scalarFn) {
  unsigned rank = resultType.getRank();
  SmallVector<AffineMap> maps(inputs.size() + 1,
                              b.getMultiDimIdentityMap(rank));
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{resultType}, inputs,
      ValueRange{createEmpty(b, loc, resultType)}, maps, iterators,
      [&](OpBuilder &nested, Location nestedLoc, ValueRange args) {
        // The last block argument is the (unused) output element.
        Value result = scalarFn(nested, nestedLoc, args.drop_back());
        linalg::YieldOp::create(nested, nestedLoc, result);
      });
  return generic.getResult(0);
}

Value createReshape(OpBuilder &b, Location loc, Value source,
                    RankedTensorType target) {
  auto sourceType = cast<RankedTensorType>(source.getType());
  if (sourceType == target)
    return source;
  int64_t sourceRank = sourceType.getRank(), targetRank = target.getRank();
  std::optional<SmallVector<ReassociationIndices>> reassociation;
  if (std::min(sourceRank, targetRank) == 0) {
    // To or from rank 0 (all sizes 1): no dims are grouped.
    reassociation.emplace();
  } else if (std::min(sourceRank, targetRank) == 1) {
    // To or from rank 1: all dims form one group.
    reassociation.emplace(
        1, ReassociationIndices(llvm::to_vector(
               llvm::seq<int64_t>(std::max(sourceRank, targetRank)))));
  } else if (sourceRank != targetRank) {
    reassociation = getReassociationIndicesForReshape(sourceType, target);
  }
  if (reassociation && sourceRank > targetRank)
    return tensor::CollapseShapeOp::create(b, loc, target, source,
                                           *reassociation);
  if (reassociation && sourceRank < targetRank)
    return tensor::ExpandShapeOp::create(b, loc, target, source,
                                         *reassociation);
  // Same rank, or ranks whose dims do not group up (2x3 -> 3x2).
  auto flat = RankedTensorType::get({sourceType.getNumElements()},
                                    sourceType.getElementType());
  return createReshape(b, loc, createReshape(b, loc, source, flat), target);
}

//===----------------------------------------------------------------------===//
// Conversions and accumulators
//===----------------------------------------------------------------------===//

Value createConversion(OpBuilder &b, Location loc, Value x, Type to) {
  Type from = x.getType();
  if (from == to)
    return x;
  if (to.isInteger(1)) {
    // `une`: NaN converts to true, as in PyTorch.
    if (isa<FloatType>(from))
      return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE, x,
                                   createFloatConstant(b, loc, from, 0.0));
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, x,
                                 createIntConstant(b, loc, from, 0));
  }
  unsigned fromWidth = from.getIntOrFloatBitWidth();
  unsigned toWidth = to.getIntOrFloatBitWidth();
  if (isa<FloatType>(from) && isa<FloatType>(to)) {
    // f16 <-> bf16 has no direct extf/truncf; going through f32 is exact on
    // the way up, so the result is still rounded once.
    if (fromWidth == toWidth)
      return createConversion(
          b, loc, arith::ExtFOp::create(b, loc, b.getF32Type(), x), to);
    if (fromWidth < toWidth)
      return arith::ExtFOp::create(b, loc, to, x);
    return arith::TruncFOp::create(b, loc, to, x);
  }
  if (isa<FloatType>(from))
    return arith::FPToSIOp::create(b, loc, to, x);
  bool isBool = from.isInteger(1);
  if (isa<FloatType>(to)) {
    if (isBool)
      return arith::UIToFPOp::create(b, loc, to, x);
    return arith::SIToFPOp::create(b, loc, to, x);
  }
  if (isBool)
    return arith::ExtUIOp::create(b, loc, to, x);
  if (fromWidth < toWidth)
    return arith::ExtSIOp::create(b, loc, to, x);
  return arith::TruncIOp::create(b, loc, to, x);
}

Type getSumAccumulatorType(Type elementType) {
  if (isa<Float16Type, BFloat16Type>(elementType))
    return Float32Type::get(elementType.getContext());
  return elementType;
}

Value createElementCast(OpBuilder &b, Location loc, Value value,
                        Type elementType) {
  auto type = cast<RankedTensorType>(value.getType());
  if (type.getElementType() == elementType)
    return value;
  return createElementwise(b, loc, type.clone(elementType), value,
                           [&](OpBuilder &b, Location loc, ValueRange args) {
                             return createConversion(b, loc, args.front(),
                                                     elementType);
                           });
}

} // namespace mlir::trace::trace_to_linalg
