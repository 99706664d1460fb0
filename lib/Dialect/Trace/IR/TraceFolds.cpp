//===- TraceFolds.cpp - folders and canonicalization patterns -------------===//
//
// Algebraic identities (x + 0, x * 1, transpose of transpose, reshape to the
// same shape, ...) and constant folding. Constant folding reuses MLIR's
// CommonFolders; it is limited to splats and to constants of at most
// kMaxFoldElements elements so a fold never materializes a large tensor.
//
// Float identities follow XLA's algebraic simplifier and ignore the sign of
// zero: `x + 0.0` folds to `x` although `-0.0 + 0.0` is `+0.0`.
//
//===----------------------------------------------------------------------===//

#include "trace/Dialect/Trace/IR/TraceOps.h"

#include "mlir/Dialect/CommonFolders.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/APSInt.h"

#include <cmath>

using namespace mlir;
using namespace mlir::trace;

static constexpr int64_t kMaxFoldElements = 4096;

/// True for a constant operand that may be folded: a splat or a small one.
static bool isFoldableConstant(Attribute attr) {
  auto elements = dyn_cast_or_null<ElementsAttr>(attr);
  return elements &&
         (elements.isSplat() || elements.getNumElements() <= kMaxFoldElements);
}

static bool allFoldable(ArrayRef<Attribute> operands) {
  return llvm::all_of(operands, isFoldableConstant);
}

static bool hasFloatElements(Type type) {
  return isa<FloatType>(getElementTypeOrSelf(type));
}

/// True if `attr` is a splat constant equal to `value` (1.0 / 1 or 0.0 / 0).
static bool isSplatOf(Attribute attr, int64_t value) {
  auto splat = dyn_cast_or_null<SplatElementsAttr>(attr);
  if (!splat)
    return false;
  Type elementType = splat.getElementType();
  if (isa<FloatType>(elementType))
    return splat.getSplatValue<APFloat>().isExactlyValue(
        static_cast<double>(value));
  return splat.getSplatValue<APInt>().getSExtValue() == value;
}

/// Applies a double-precision function to an APFloat of any width, rounding
/// the result back to the operand's semantics.
static APFloat applyInDouble(const APFloat &x, double (*fn)(double)) {
  bool losesInfo;
  APFloat wide = x;
  wide.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven, &losesInfo);
  APFloat result(fn(wide.convertToDouble()));
  result.convert(x.getSemantics(), APFloat::rmNearestTiesToEven, &losesInfo);
  return result;
}

static OpFoldResult foldFloatUnary(ArrayRef<Attribute> operands,
                                   double (*fn)(double)) {
  if (!allFoldable(operands))
    return {};
  return constFoldUnaryOp<FloatAttr, FloatAttr::ValueType, void>(
      operands, [&](const APFloat &x) { return applyInDouble(x, fn); });
}

template <typename FloatFn, typename IntFn>
static OpFoldResult foldNumericUnary(Type type, ArrayRef<Attribute> operands,
                                     FloatFn floatFn, IntFn intFn) {
  if (!allFoldable(operands))
    return {};
  if (hasFloatElements(type))
    return constFoldUnaryOp<FloatAttr, FloatAttr::ValueType, void>(operands,
                                                                   floatFn);
  return constFoldUnaryOp<IntegerAttr, IntegerAttr::ValueType, void>(operands,
                                                                     intFn);
}

/// Folds a binary op over constants. The calculations return std::nullopt
/// where the fold must not happen (integer division by zero).
template <typename FloatFn, typename IntFn>
static OpFoldResult foldNumericBinary(Type type, ArrayRef<Attribute> operands,
                                      FloatFn floatFn, IntFn intFn) {
  if (!allFoldable(operands))
    return {};
  if (hasFloatElements(type))
    return constFoldBinaryOpConditional<FloatAttr, FloatAttr::ValueType, void>(
        operands, floatFn);
  return constFoldBinaryOpConditional<IntegerAttr, IntegerAttr::ValueType,
                                      void>(operands, intFn);
}

//===----------------------------------------------------------------------===//
// Unary elementwise
//===----------------------------------------------------------------------===//

OpFoldResult NegOp::fold(FoldAdaptor adaptor) {
  if (auto inner = getOperand().getDefiningOp<NegOp>())
    return inner.getOperand();
  return foldNumericUnary(
      getType(), adaptor.getOperands(),
      [](const APFloat &x) { return neg(x); },
      [](const APInt &x) { return -x; });
}

OpFoldResult AbsOp::fold(FoldAdaptor adaptor) {
  if (auto inner = getOperand().getDefiningOp<AbsOp>())
    return inner.getResult();
  return foldNumericUnary(
      getType(), adaptor.getOperands(),
      [](const APFloat &x) { return abs(x); },
      [](const APInt &x) { return x.abs(); });
}

static double logisticFn(double x) { return 1.0 / (1.0 + std::exp(-x)); }
static double rsqrtFn(double x) { return 1.0 / std::sqrt(x); }

OpFoldResult ExpOp::fold(FoldAdaptor adaptor) {
  return foldFloatUnary(adaptor.getOperands(), [](double x) { return std::exp(x); });
}
OpFoldResult LogOp::fold(FoldAdaptor adaptor) {
  return foldFloatUnary(adaptor.getOperands(), [](double x) { return std::log(x); });
}
OpFoldResult SinOp::fold(FoldAdaptor adaptor) {
  return foldFloatUnary(adaptor.getOperands(), [](double x) { return std::sin(x); });
}
OpFoldResult CosOp::fold(FoldAdaptor adaptor) {
  return foldFloatUnary(adaptor.getOperands(), [](double x) { return std::cos(x); });
}
OpFoldResult TanhOp::fold(FoldAdaptor adaptor) {
  return foldFloatUnary(adaptor.getOperands(), [](double x) { return std::tanh(x); });
}
OpFoldResult SqrtOp::fold(FoldAdaptor adaptor) {
  return foldFloatUnary(adaptor.getOperands(), [](double x) { return std::sqrt(x); });
}
OpFoldResult RsqrtOp::fold(FoldAdaptor adaptor) {
  return foldFloatUnary(adaptor.getOperands(), rsqrtFn);
}
OpFoldResult ErfOp::fold(FoldAdaptor adaptor) {
  return foldFloatUnary(adaptor.getOperands(), [](double x) { return std::erf(x); });
}
OpFoldResult Log1pOp::fold(FoldAdaptor adaptor) {
  return foldFloatUnary(adaptor.getOperands(), [](double x) { return std::log1p(x); });
}
OpFoldResult Expm1Op::fold(FoldAdaptor adaptor) {
  return foldFloatUnary(adaptor.getOperands(), [](double x) { return std::expm1(x); });
}
// Rounding an integral value changes nothing; nearbyint rounds ties to even
// in the default rounding mode, as torch.round.
OpFoldResult FloorOp::fold(FoldAdaptor adaptor) {
  if (getOperand().getDefiningOp<FloorOp>())
    return getOperand();
  return foldFloatUnary(adaptor.getOperands(), [](double x) { return std::floor(x); });
}
OpFoldResult CeilOp::fold(FoldAdaptor adaptor) {
  if (getOperand().getDefiningOp<CeilOp>())
    return getOperand();
  return foldFloatUnary(adaptor.getOperands(), [](double x) { return std::ceil(x); });
}
OpFoldResult RoundOp::fold(FoldAdaptor adaptor) {
  if (getOperand().getDefiningOp<RoundOp>())
    return getOperand();
  return foldFloatUnary(adaptor.getOperands(), [](double x) { return std::nearbyint(x); });
}
OpFoldResult LogisticOp::fold(FoldAdaptor adaptor) {
  return foldFloatUnary(adaptor.getOperands(), logisticFn);
}

//===----------------------------------------------------------------------===//
// Binary elementwise
//===----------------------------------------------------------------------===//

OpFoldResult AddOp::fold(FoldAdaptor adaptor) {
  // Commutative: the folder has already moved a constant to the right.
  if (isSplatOf(adaptor.getRhs(), 0))
    return getLhs();
  return foldNumericBinary(
      getType(), adaptor.getOperands(),
      [](const APFloat &a, const APFloat &b) -> std::optional<APFloat> {
        return a + b;
      },
      [](const APInt &a, const APInt &b) -> std::optional<APInt> {
        return a + b;
      });
}

OpFoldResult SubOp::fold(FoldAdaptor adaptor) {
  if (isSplatOf(adaptor.getRhs(), 0))
    return getLhs();
  return foldNumericBinary(
      getType(), adaptor.getOperands(),
      [](const APFloat &a, const APFloat &b) -> std::optional<APFloat> {
        return a - b;
      },
      [](const APInt &a, const APInt &b) -> std::optional<APInt> {
        return a - b;
      });
}

OpFoldResult MulOp::fold(FoldAdaptor adaptor) {
  if (isSplatOf(adaptor.getRhs(), 1))
    return getLhs();
  return foldNumericBinary(
      getType(), adaptor.getOperands(),
      [](const APFloat &a, const APFloat &b) -> std::optional<APFloat> {
        return a * b;
      },
      [](const APInt &a, const APInt &b) -> std::optional<APInt> {
        return a * b;
      });
}

OpFoldResult DivOp::fold(FoldAdaptor adaptor) {
  if (isSplatOf(adaptor.getRhs(), 1))
    return getLhs();
  return foldNumericBinary(
      getType(), adaptor.getOperands(),
      [](const APFloat &a, const APFloat &b) -> std::optional<APFloat> {
        return a / b;
      },
      [](const APInt &a, const APInt &b) -> std::optional<APInt> {
        // Division by zero (and INT_MIN / -1) is left to run time.
        if (b.isZero() || (a.isMinSignedValue() && b.isAllOnes()))
          return std::nullopt;
        return a.sdiv(b);
      });
}

OpFoldResult PowOp::fold(FoldAdaptor adaptor) {
  if (isSplatOf(adaptor.getRhs(), 1))
    return getLhs();
  if (!allFoldable(adaptor.getOperands()))
    return {};
  return constFoldBinaryOp<FloatAttr, FloatAttr::ValueType, void>(
      adaptor.getOperands(), [](const APFloat &a, const APFloat &b) {
        bool losesInfo;
        APFloat wa = a, wb = b;
        wa.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven,
                   &losesInfo);
        wb.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven,
                   &losesInfo);
        APFloat result(std::pow(wa.convertToDouble(), wb.convertToDouble()));
        result.convert(a.getSemantics(), APFloat::rmNearestTiesToEven,
                       &losesInfo);
        return result;
      });
}

OpFoldResult Atan2Op::fold(FoldAdaptor adaptor) {
  if (!allFoldable(adaptor.getOperands()))
    return {};
  return constFoldBinaryOp<FloatAttr, FloatAttr::ValueType, void>(
      adaptor.getOperands(), [](const APFloat &a, const APFloat &b) {
        bool losesInfo;
        APFloat wa = a, wb = b;
        wa.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven,
                   &losesInfo);
        wb.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven,
                   &losesInfo);
        APFloat result(std::atan2(wa.convertToDouble(), wb.convertToDouble()));
        result.convert(a.getSemantics(), APFloat::rmNearestTiesToEven,
                       &losesInfo);
        return result;
      });
}

OpFoldResult RemOp::fold(FoldAdaptor adaptor) {
  if (!allFoldable(adaptor.getOperands()))
    return {};
  // APFloat::mod is fmod, exact in the operands' own semantics.
  return constFoldBinaryOp<FloatAttr, FloatAttr::ValueType, void>(
      adaptor.getOperands(), [](const APFloat &a, const APFloat &b) {
        APFloat result = a;
        result.mod(b);
        return result;
      });
}

OpFoldResult MaximumOp::fold(FoldAdaptor adaptor) {
  if (getLhs() == getRhs())
    return getLhs();
  return foldNumericBinary(
      getType(), adaptor.getOperands(),
      [](const APFloat &a, const APFloat &b) -> std::optional<APFloat> {
        return llvm::maximum(a, b);
      },
      [](const APInt &a, const APInt &b) -> std::optional<APInt> {
        return llvm::APIntOps::smax(a, b);
      });
}

OpFoldResult MinimumOp::fold(FoldAdaptor adaptor) {
  if (getLhs() == getRhs())
    return getLhs();
  return foldNumericBinary(
      getType(), adaptor.getOperands(),
      [](const APFloat &a, const APFloat &b) -> std::optional<APFloat> {
        return llvm::minimum(a, b);
      },
      [](const APInt &a, const APInt &b) -> std::optional<APInt> {
        return llvm::APIntOps::smin(a, b);
      });
}

//===----------------------------------------------------------------------===//
// Compare, select, convert
//===----------------------------------------------------------------------===//

static bool compareFloats(ComparisonDirection direction, const APFloat &a,
                          const APFloat &b) {
  APFloat::cmpResult cmp = a.compare(b);
  switch (direction) {
  case ComparisonDirection::EQ:
    return cmp == APFloat::cmpEqual;
  case ComparisonDirection::NE:
    return cmp != APFloat::cmpEqual; // true when unordered, as in PyTorch
  case ComparisonDirection::LT:
    return cmp == APFloat::cmpLessThan;
  case ComparisonDirection::LE:
    return cmp == APFloat::cmpLessThan || cmp == APFloat::cmpEqual;
  case ComparisonDirection::GT:
    return cmp == APFloat::cmpGreaterThan;
  case ComparisonDirection::GE:
    return cmp == APFloat::cmpGreaterThan || cmp == APFloat::cmpEqual;
  }
  llvm_unreachable("unknown comparison direction");
}

static bool compareInts(ComparisonDirection direction, const APInt &a,
                        const APInt &b, bool isBool) {
  // i1 compares as unsigned (false < true), wider integers as signed.
  switch (direction) {
  case ComparisonDirection::EQ:
    return a == b;
  case ComparisonDirection::NE:
    return a != b;
  case ComparisonDirection::LT:
    return isBool ? a.ult(b) : a.slt(b);
  case ComparisonDirection::LE:
    return isBool ? a.ule(b) : a.sle(b);
  case ComparisonDirection::GT:
    return isBool ? a.ugt(b) : a.sgt(b);
  case ComparisonDirection::GE:
    return isBool ? a.uge(b) : a.sge(b);
  }
  llvm_unreachable("unknown comparison direction");
}

OpFoldResult CompareOp::fold(FoldAdaptor adaptor) {
  if (!allFoldable(adaptor.getOperands()))
    return {};
  ComparisonDirection direction = getDirection();
  if (hasFloatElements(getLhs().getType()))
    return constFoldBinaryOp<FloatAttr, FloatAttr::ValueType, void, IntegerAttr>(
        adaptor.getOperands(), getType(),
        [&](const APFloat &a, const APFloat &b) {
          return APInt(1, compareFloats(direction, a, b));
        });
  bool isBool = getElementTypeOrSelf(getLhs().getType()).isInteger(1);
  return constFoldBinaryOp<IntegerAttr, IntegerAttr::ValueType, void,
                           IntegerAttr>(
      adaptor.getOperands(), getType(), [&](const APInt &a, const APInt &b) {
        return APInt(1, compareInts(direction, a, b, isBool));
      });
}

OpFoldResult SelectOp::fold(FoldAdaptor adaptor) {
  if (getOnTrue() == getOnFalse())
    return getOnTrue();
  if (auto cond = dyn_cast_or_null<SplatElementsAttr>(adaptor.getCond()))
    return cond.getSplatValue<bool>() ? getOnTrue() : getOnFalse();
  return {};
}

/// Converts one scalar between any two trace element types with the
/// semantics of ConvertOp's documentation.
static Attribute convertScalar(Attribute value, Type to) {
  bool losesInfo;
  if (auto f = dyn_cast<FloatAttr>(value)) {
    APFloat x = f.getValue();
    if (auto toFloat = dyn_cast<FloatType>(to)) {
      x.convert(toFloat.getFloatSemantics(), APFloat::rmNearestTiesToEven,
                &losesInfo);
      return FloatAttr::get(to, x);
    }
    unsigned width = to.getIntOrFloatBitWidth();
    if (width == 1)
      return IntegerAttr::get(to, APInt(1, !x.isZero()));
    APSInt result(width, /*isUnsigned=*/false);
    bool isExact;
    if (x.convertToInteger(result, APFloat::rmTowardZero, &isExact) &
        APFloat::opInvalidOp)
      return {}; // NaN or out of range: undefined, left to run time
    return IntegerAttr::get(to, result);
  }
  auto i = cast<IntegerAttr>(value);
  APInt x = i.getValue();
  bool isBool = x.getBitWidth() == 1;
  if (auto toFloat = dyn_cast<FloatType>(to)) {
    APFloat result(toFloat.getFloatSemantics());
    result.convertFromAPInt(x, /*IsSigned=*/!isBool,
                            APFloat::rmNearestTiesToEven);
    return FloatAttr::get(to, result);
  }
  unsigned width = to.getIntOrFloatBitWidth();
  if (width == 1)
    return IntegerAttr::get(to, APInt(1, !x.isZero()));
  return IntegerAttr::get(to, isBool ? x.zext(width) : x.sextOrTrunc(width));
}

OpFoldResult ConvertOp::fold(FoldAdaptor adaptor) {
  if (getOperand().getType() == getType())
    return getOperand();
  auto input = dyn_cast_or_null<ElementsAttr>(adaptor.getOperand());
  if (!isFoldableConstant(input))
    return {};
  Type to = getType().getElementType();
  if (auto splat = dyn_cast<SplatElementsAttr>(input)) {
    Attribute scalar = convertScalar(splat.getSplatValue<Attribute>(), to);
    return scalar ? DenseElementsAttr::get(getType(), scalar) : Attribute();
  }
  SmallVector<Attribute> converted;
  for (Attribute element : input.getValues<Attribute>()) {
    Attribute scalar = convertScalar(element, to);
    if (!scalar)
      return {};
    converted.push_back(scalar);
  }
  return DenseElementsAttr::get(getType(), converted);
}

//===----------------------------------------------------------------------===//
// Sources
//===----------------------------------------------------------------------===//

OpFoldResult ConstantOp::fold(FoldAdaptor) { return getValue(); }

OpFoldResult FullOp::fold(FoldAdaptor) {
  return DenseElementsAttr::get(getType(), getValue());
}

//===----------------------------------------------------------------------===//
// Shape ops
//===----------------------------------------------------------------------===//

/// A splat constant keeps its value under any shape op.
static Attribute reshapeSplat(Attribute operand, ShapedType resultType) {
  if (auto splat = dyn_cast_or_null<SplatElementsAttr>(operand))
    return splat.resizeSplat(resultType);
  return {};
}

OpFoldResult BroadcastInDimOp::fold(FoldAdaptor adaptor) {
  if (getOperand().getType() == getType())
    return getOperand();
  return reshapeSplat(adaptor.getOperand(), getType());
}

namespace {
/// broadcast_in_dim(broadcast_in_dim(x, inner), outer)
///   -> broadcast_in_dim(x, outer[inner[k]])
struct ComposeBroadcasts : OpRewritePattern<BroadcastInDimOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(BroadcastInDimOp op,
                                PatternRewriter &rewriter) const override {
    auto inner = op.getOperand().getDefiningOp<BroadcastInDimOp>();
    if (!inner)
      return failure();
    ArrayRef<int64_t> outerDims = op.getBroadcastDimensions();
    SmallVector<int64_t> dims;
    for (int64_t dim : inner.getBroadcastDimensions())
      dims.push_back(outerDims[dim]);
    rewriter.replaceOpWithNewOp<BroadcastInDimOp>(op, op.getType(),
                                                  inner.getOperand(), dims);
    return success();
  }
};
} // namespace

void BroadcastInDimOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                                   MLIRContext *context) {
  results.add<ComposeBroadcasts>(context);
}

OpFoldResult ReshapeOp::fold(FoldAdaptor adaptor) {
  if (getOperand().getType() == getType())
    return getOperand();
  // reshape(reshape(x)) -> reshape(x): only the final shape matters.
  if (auto inner = getOperand().getDefiningOp<ReshapeOp>()) {
    getOperandMutable().assign(inner.getOperand());
    return getResult();
  }
  if (auto dense = dyn_cast_or_null<DenseElementsAttr>(adaptor.getOperand()))
    return dense.reshape(getType());
  return {};
}

OpFoldResult TransposeOp::fold(FoldAdaptor adaptor) {
  ArrayRef<int64_t> perm = getPermutation();
  auto isIdentity = [](ArrayRef<int64_t> p) {
    for (auto [i, d] : llvm::enumerate(p))
      if (static_cast<int64_t>(i) != d)
        return false;
    return true;
  };
  if (isIdentity(perm))
    return getOperand();
  // transpose(transpose(x, inner), outer) = transpose(x, inner[outer[i]]).
  if (auto inner = getOperand().getDefiningOp<TransposeOp>()) {
    SmallVector<int64_t> composed;
    for (int64_t d : perm)
      composed.push_back(inner.getPermutation()[d]);
    if (isIdentity(composed))
      return inner.getOperand();
    getOperandMutable().assign(inner.getOperand());
    setPermutation(composed);
    return getResult();
  }
  return reshapeSplat(adaptor.getOperand(), getType());
}

OpFoldResult SliceOp::fold(FoldAdaptor adaptor) {
  // Same type and all strides 1 means the slice takes everything.
  if (getOperand().getType() == getType() &&
      llvm::all_of(getStrides(), [](int64_t s) { return s == 1; }))
    return getOperand();
  return reshapeSplat(adaptor.getOperand(), getType());
}

OpFoldResult ReverseOp::fold(FoldAdaptor adaptor) {
  // Reversing only size-1 dims (or none) moves nothing.
  RankedTensorType type = getType();
  if (llvm::all_of(getDimensions(),
                   [&](int64_t d) { return type.getDimSize(d) <= 1; }))
    return getOperand();
  // reverse(reverse(x, dims), dims) = x, in any order of the dims.
  if (auto inner = getOperand().getDefiningOp<ReverseOp>()) {
    auto outerDims = llvm::to_vector(getDimensions());
    auto innerDims = llvm::to_vector(inner.getDimensions());
    llvm::sort(outerDims);
    llvm::sort(innerDims);
    if (outerDims == innerDims)
      return inner.getOperand();
  }
  return reshapeSplat(adaptor.getOperand(), type);
}

OpFoldResult ConcatenateOp::fold(FoldAdaptor) {
  if (getInputs().size() == 1)
    return getInputs().front();
  return {};
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

OpFoldResult ReduceSumOp::fold(FoldAdaptor) {
  // No dims, or only size-1 dims kept: every output element is one input.
  if (getOperand().getType() == getType())
    return getOperand();
  return {};
}

OpFoldResult ReduceMaxOp::fold(FoldAdaptor adaptor) {
  if (getOperand().getType() == getType())
    return getOperand();
  return reshapeSplat(adaptor.getOperand(), getType());
}
