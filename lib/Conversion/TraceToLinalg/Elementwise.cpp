//===- Elementwise.cpp - elementwise trace ops to linalg ------------------===//
//
// The elementwise family: unary and binary arithmetic, transcendental
// functions, `trace.compare`, `trace.select` and `trace.convert`, each a
// `linalg.generic` with identity maps around a scalar body.
//
//===----------------------------------------------------------------------===//

#include "PopulatePatterns.h"
#include "Utils.h"

#include "trace/Dialect/Trace/IR/TraceOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;
using namespace mlir::trace;
using namespace mlir::trace::trace_to_linalg;

//===----------------------------------------------------------------------===//
// Scalar bodies of the elementwise ops
//===----------------------------------------------------------------------===//

/// Calls `fn` on `args`, first extending f16/bf16 arguments to f32 and
/// truncating the result back: libm and the LLVM intrinsics the CPU backend
/// lowers math ops to have no half-precision versions.
static Value computeInF32(OpBuilder &b, Location loc, ValueRange args,
                          ScalarFn fn) {
  Type type = args.front().getType();
  if (type.getIntOrFloatBitWidth() >= 32)
    return fn(b, loc, args);
  Type f32 = b.getF32Type();
  SmallVector<Value> wide;
  for (Value arg : args)
    wide.push_back(arith::ExtFOp::create(b, loc, f32, arg));
  return arith::TruncFOp::create(b, loc, type, fn(b, loc, wide));
}

/// A math op on float scalars, computed in f32 for f16 and bf16.
template <typename MathOp>
static Value createTranscendental(OpBuilder &b, Location loc, ValueRange args) {
  return computeInF32(b, loc, args,
                      [](OpBuilder &b, Location loc, ValueRange args) -> Value {
                        return MathOp::create(b, loc, args);
                      });
}

/// 1 / (1 + e^-x).
static Value createLogistic(OpBuilder &b, Location loc, ValueRange args) {
  return computeInF32(
      b, loc, args, [](OpBuilder &b, Location loc, ValueRange args) -> Value {
        Value x = args.front();
        Value one = createFloatConstant(b, loc, x.getType(), 1.0);
        Value exp =
            math::ExpOp::create(b, loc, arith::NegFOp::create(b, loc, x));
        return arith::DivFOp::create(b, loc, one,
                                     arith::AddFOp::create(b, loc, one, exp));
      });
}

static Value createScalar(NegOp, OpBuilder &b, Location loc, ValueRange args) {
  Value x = args.front();
  if (isFloat(x))
    return arith::NegFOp::create(b, loc, x);
  Value zero = createIntConstant(b, loc, x.getType(), 0);
  return arith::SubIOp::create(b, loc, zero, x);
}
static Value createScalar(AbsOp, OpBuilder &b, Location loc, ValueRange args) {
  return createArith<math::AbsFOp, math::AbsIOp>(b, loc, args);
}
static Value createScalar(ExpOp, OpBuilder &b, Location loc, ValueRange args) {
  return createTranscendental<math::ExpOp>(b, loc, args);
}
// log1p and expm1 are written out with Kahan's corrections instead of
// math.log1p / math.expm1: MLIR 22's math-to-llvm rewrites those to
// log(1 + x) and exp(x) - 1, which lose every digit for tiny x (f64, and f32
// without approximate-math). With u = 1 + x: log1p = x where u == 1, else
// log(u) * x / (u - 1), the rounding of u cancelling; with u = e^x:
// expm1 = x where u == 1, -1 where u - 1 == -1, else (u - 1) * x / log(u).
// Infinite u stays infinite.
static Value createLog1p(OpBuilder &b, Location loc, ValueRange args) {
  Value x = args[0];
  Value one = createFloatConstant(b, loc, x.getType(), 1.0);
  Value u = arith::AddFOp::create(b, loc, x, one);
  Value d = arith::SubFOp::create(b, loc, u, one);
  Value log = math::LogOp::create(b, loc, u);
  Value ratio = arith::DivFOp::create(b, loc, x, d);
  Value corrected = arith::MulFOp::create(b, loc, log, ratio);
  Value exact = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, d,
                                      createFloatConstant(b, loc, x.getType(), 0.0));
  Value inf = createFloatConstant(b, loc, x.getType(), INFINITY);
  Value infinite =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, u, inf);
  Value finite = arith::SelectOp::create(b, loc, exact, x, corrected);
  return arith::SelectOp::create(b, loc, infinite, u, finite);
}
static Value createExpm1(OpBuilder &b, Location loc, ValueRange args) {
  Value x = args[0];
  Type type = x.getType();
  Value one = createFloatConstant(b, loc, type, 1.0);
  Value u = math::ExpOp::create(b, loc, x);
  Value um1 = arith::SubFOp::create(b, loc, u, one);
  Value log = math::LogOp::create(b, loc, u);
  Value ratio = arith::DivFOp::create(b, loc, x, log);
  Value corrected = arith::MulFOp::create(b, loc, um1, ratio);
  Value exact =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, u, one);
  Value minusOne = createFloatConstant(b, loc, type, -1.0);
  Value saturated =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, um1, minusOne);
  Value inf = createFloatConstant(b, loc, type, INFINITY);
  Value infinite =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, u, inf);
  Value result = arith::SelectOp::create(b, loc, exact, x, corrected);
  result = arith::SelectOp::create(b, loc, saturated, minusOne, result);
  return arith::SelectOp::create(b, loc, infinite, u, result);
}
static Value createScalar(Expm1Op, OpBuilder &b, Location loc,
                          ValueRange args) {
  return computeInF32(b, loc, args, createExpm1);
}
static Value createScalar(Log1pOp, OpBuilder &b, Location loc,
                          ValueRange args) {
  return computeInF32(b, loc, args, createLog1p);
}
static Value createScalar(FloorOp, OpBuilder &b, Location loc,
                          ValueRange args) {
  return math::FloorOp::create(b, loc, args[0]);
}
static Value createScalar(CeilOp, OpBuilder &b, Location loc,
                          ValueRange args) {
  return math::CeilOp::create(b, loc, args[0]);
}
static Value createScalar(RoundOp, OpBuilder &b, Location loc,
                          ValueRange args) {
  return math::RoundEvenOp::create(b, loc, args[0]);
}
static Value createScalar(LogOp, OpBuilder &b, Location loc, ValueRange args) {
  return createTranscendental<math::LogOp>(b, loc, args);
}
static Value createScalar(SinOp, OpBuilder &b, Location loc, ValueRange args) {
  return createTranscendental<math::SinOp>(b, loc, args);
}
static Value createScalar(CosOp, OpBuilder &b, Location loc, ValueRange args) {
  return createTranscendental<math::CosOp>(b, loc, args);
}
static Value createScalar(TanhOp, OpBuilder &b, Location loc, ValueRange args) {
  return createTranscendental<math::TanhOp>(b, loc, args);
}
static Value createScalar(SqrtOp, OpBuilder &b, Location loc, ValueRange args) {
  return createTranscendental<math::SqrtOp>(b, loc, args);
}
static Value createScalar(RsqrtOp, OpBuilder &b, Location loc,
                          ValueRange args) {
  return createTranscendental<math::RsqrtOp>(b, loc, args);
}
static Value createScalar(ErfOp, OpBuilder &b, Location loc, ValueRange args) {
  return createTranscendental<math::ErfOp>(b, loc, args);
}
static Value createScalar(LogisticOp, OpBuilder &b, Location loc,
                          ValueRange args) {
  return createLogistic(b, loc, args);
}
static Value createScalar(AddOp, OpBuilder &b, Location loc, ValueRange args) {
  return createArith<arith::AddFOp, arith::AddIOp>(b, loc, args);
}
static Value createScalar(SubOp, OpBuilder &b, Location loc, ValueRange args) {
  return createArith<arith::SubFOp, arith::SubIOp>(b, loc, args);
}
static Value createScalar(MulOp, OpBuilder &b, Location loc, ValueRange args) {
  return createArith<arith::MulFOp, arith::MulIOp>(b, loc, args);
}
static Value createScalar(DivOp, OpBuilder &b, Location loc, ValueRange args) {
  if (isFloat(args.front()))
    return arith::DivFOp::create(b, loc, args);
  // divsi truncates toward zero, as the op's integer division does. It is
  // undefined for x / 0 and INT_MIN / -1 (x86 traps: SIGFPE), so those are
  // defined as XLA defines them: x / 0 = -1, INT_MIN / -1 = INT_MIN.
  Value lhs = args[0], rhs = args[1];
  auto type = cast<IntegerType>(lhs.getType());
  auto constant = [&](const APInt &value) -> Value {
    return arith::ConstantOp::create(b, loc, type,
                                     b.getIntegerAttr(type, value));
  };
  unsigned width = type.getWidth();
  Value zero = constant(APInt::getZero(width));
  Value one = constant(APInt(width, 1));
  Value minusOne = constant(APInt::getAllOnes(width));
  Value byZero =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, rhs, zero);
  Value lhsIsMin =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, lhs,
                            constant(APInt::getSignedMinValue(width)));
  Value rhsIsMinusOne =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, rhs, minusOne);
  Value overflow = arith::AndIOp::create(b, loc, lhsIsMin, rhsIsMinusOne);
  Value safe = arith::SelectOp::create(
      b, loc, arith::OrIOp::create(b, loc, byZero, overflow), one, rhs);
  Value quotient = arith::DivSIOp::create(b, loc, lhs, safe);
  return arith::SelectOp::create(b, loc, byZero, minusOne, quotient);
}
static Value createScalar(PowOp, OpBuilder &b, Location loc, ValueRange args) {
  return createTranscendental<math::PowFOp>(b, loc, args);
}
static Value createScalar(Atan2Op, OpBuilder &b, Location loc,
                          ValueRange args) {
  return createTranscendental<math::Atan2Op>(b, loc, args);
}
static Value createScalar(RemOp, OpBuilder &b, Location loc,
                          ValueRange args) {
  // remf is C's fmod: libm's on the CPU, libdevice's __nv_fmod in kernels
  // (convert-gpu-to-nvvm); f16 and bf16 operands are exact in f32, and so
  // is their fmod.
  return createTranscendental<arith::RemFOp>(b, loc, args);
}
static Value createScalar(MaximumOp, OpBuilder &b, Location loc,
                          ValueRange args) {
  // maximumf propagates NaN, like torch.maximum (maxnumf would not).
  return createArith<arith::MaximumFOp, arith::MaxSIOp>(b, loc, args);
}
static Value createScalar(MinimumOp, OpBuilder &b, Location loc,
                          ValueRange args) {
  return createArith<arith::MinimumFOp, arith::MinSIOp>(b, loc, args);
}
static Value createScalar(SelectOp, OpBuilder &b, Location loc,
                          ValueRange args) {
  return arith::SelectOp::create(b, loc, args[0], args[1], args[2]);
}

static arith::CmpFPredicate getFloatPredicate(ComparisonDirection direction) {
  // Ordered comparisons (false on NaN) except `ne`, which is true on NaN.
  switch (direction) {
  case ComparisonDirection::EQ:
    return arith::CmpFPredicate::OEQ;
  case ComparisonDirection::NE:
    return arith::CmpFPredicate::UNE;
  case ComparisonDirection::LT:
    return arith::CmpFPredicate::OLT;
  case ComparisonDirection::LE:
    return arith::CmpFPredicate::OLE;
  case ComparisonDirection::GT:
    return arith::CmpFPredicate::OGT;
  case ComparisonDirection::GE:
    return arith::CmpFPredicate::OGE;
  }
  llvm_unreachable("unknown comparison direction");
}

static arith::CmpIPredicate getIntPredicate(ComparisonDirection direction,
                                            bool isBool) {
  // i1 compares unsigned (false < true); i32 and i64 compare signed.
  switch (direction) {
  case ComparisonDirection::EQ:
    return arith::CmpIPredicate::eq;
  case ComparisonDirection::NE:
    return arith::CmpIPredicate::ne;
  case ComparisonDirection::LT:
    return isBool ? arith::CmpIPredicate::ult : arith::CmpIPredicate::slt;
  case ComparisonDirection::LE:
    return isBool ? arith::CmpIPredicate::ule : arith::CmpIPredicate::sle;
  case ComparisonDirection::GT:
    return isBool ? arith::CmpIPredicate::ugt : arith::CmpIPredicate::sgt;
  case ComparisonDirection::GE:
    return isBool ? arith::CmpIPredicate::uge : arith::CmpIPredicate::sge;
  }
  llvm_unreachable("unknown comparison direction");
}

static Value createScalar(CompareOp op, OpBuilder &b, Location loc,
                          ValueRange args) {
  Value lhs = args[0], rhs = args[1];
  if (isFloat(lhs))
    return arith::CmpFOp::create(b, loc, getFloatPredicate(op.getDirection()),
                                 lhs, rhs);
  bool isBool = lhs.getType().isInteger(1);
  return arith::CmpIOp::create(
      b, loc, getIntPredicate(op.getDirection(), isBool), lhs, rhs);
}

//===----------------------------------------------------------------------===//
// Elementwise ops
//===----------------------------------------------------------------------===//

namespace {

/// Any elementwise op whose scalar body `createScalar` builds.
template <typename OpTy>
struct ElementwiseLowering final : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  using OpAdaptor = typename OpTy::Adaptor;

  LogicalResult
  matchAndRewrite(OpTy op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto resultType = cast<RankedTensorType>(op.getType());
    Value result = createElementwise(
        rewriter, op.getLoc(), resultType, adaptor.getOperands(),
        [&](OpBuilder &b, Location loc, ValueRange args) {
          return createScalar(op, b, loc, args);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct ConvertLowering final : OpConversionPattern<ConvertOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ConvertOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType resultType = op.getType();
    if (adaptor.getOperand().getType() == resultType) {
      rewriter.replaceOp(op, adaptor.getOperand());
      return success();
    }
    Type to = resultType.getElementType();
    Value result = createElementwise(
        rewriter, op.getLoc(), resultType, adaptor.getOperand(),
        [&](OpBuilder &b, Location loc, ValueRange args) {
          return createConversion(b, loc, args.front(), to);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void mlir::trace::trace_to_linalg::populateElementwisePatterns(
    RewritePatternSet &patterns) {
  patterns.add<
      // Unary and binary elementwise.
      ElementwiseLowering<NegOp>, ElementwiseLowering<AbsOp>,
      ElementwiseLowering<ExpOp>, ElementwiseLowering<LogOp>,
      ElementwiseLowering<Expm1Op>, ElementwiseLowering<Log1pOp>,
      ElementwiseLowering<FloorOp>, ElementwiseLowering<CeilOp>,
      ElementwiseLowering<RoundOp>,
      ElementwiseLowering<SinOp>, ElementwiseLowering<CosOp>,
      ElementwiseLowering<TanhOp>, ElementwiseLowering<SqrtOp>,
      ElementwiseLowering<RsqrtOp>, ElementwiseLowering<ErfOp>,
      ElementwiseLowering<LogisticOp>, ElementwiseLowering<AddOp>,
      ElementwiseLowering<SubOp>, ElementwiseLowering<MulOp>,
      ElementwiseLowering<DivOp>, ElementwiseLowering<PowOp>,
      ElementwiseLowering<Atan2Op>, ElementwiseLowering<RemOp>,
      ElementwiseLowering<MaximumOp>, ElementwiseLowering<MinimumOp>,
      ElementwiseLowering<CompareOp>, ElementwiseLowering<SelectOp>,
      ConvertLowering>(patterns.getContext());
}
