//===- TraceToLinalg.cpp - trace to linalg/tensor/arith/math --------------===//
//
// The `trace-to-linalg` conversion: every trace op becomes upstream ops
// (linalg named and generic ops, tensor, arith, math), the project's export
// format. The output must be readable by a stock `mlir-opt` and lower to
// LLVM with upstream passes alone, which decides a few choices below:
//
// * Elementwise ops are `linalg.generic` ops with identity maps that write
//   into `tensor.empty`, so one-shot bufferization allocates their results.
// * f16/bf16 transcendental functions are computed in f32 (extf, op,
//   truncf): libm has no half-precision functions (math-to-libm leaves such
//   ops unlowered) and LLVM would only promote them one op at a time.
// * f16/bf16 sums and matmuls accumulate in f32 and round once, as PyTorch's
//   CPU kernels do.
// * Sources with one value (`trace.full`, reduction and matmul inits) are a
//   `linalg.fill` of a scalar constant, never a large dense constant.
// * `trace.random_uniform` is Philox4x32-10 spelled out in arith ops on i32
//   and i64, bit-identical to trace/Support/Philox.h on every backend.
//
//===----------------------------------------------------------------------===//

#include "trace/Conversion/TraceToLinalg/TraceToLinalg.h"
#include "trace/Conversion/Passes.h"
#include "trace/Dialect/Trace/IR/TraceOps.h"
#include "trace/Support/Philox.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Transforms/DialectConversion.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSwitch.h"

#include <array>
#include <cmath>

#define DEBUG_TYPE "trace-to-linalg"

namespace mlir::trace {
#define GEN_PASS_DEF_TRACETOLINALGPASS
#include "trace/Conversion/Passes.h.inc"
} // namespace mlir::trace

using namespace mlir;
using namespace mlir::trace;

//===----------------------------------------------------------------------===//
// Building blocks
//===----------------------------------------------------------------------===//

/// A `tensor.empty` of `type`: the destination of a destination-style op.
static Value createEmpty(OpBuilder &b, Location loc, RankedTensorType type) {
  return tensor::EmptyOp::create(b, loc, type.getShape(),
                                 type.getElementType());
}

/// A `tensor.empty` of `type` filled with the scalar `value`.
static Value createFilled(OpBuilder &b, Location loc, RankedTensorType type,
                          TypedAttr value) {
  Value scalar = arith::ConstantOp::create(b, loc, value);
  return linalg::FillOp::create(b, loc, scalar, createEmpty(b, loc, type))
      .getResult(0);
}

static Value createFloatConstant(OpBuilder &b, Location loc, Type type,
                                 double value) {
  return arith::ConstantOp::create(b, loc, b.getFloatAttr(type, value));
}

static Value createIntConstant(OpBuilder &b, Location loc, Type type,
                               uint64_t value) {
  unsigned width = type.getIntOrFloatBitWidth();
  return arith::ConstantOp::create(b, loc,
                                   b.getIntegerAttr(type, APInt(width, value)));
}

/// Computes a scalar from the scalars of the generic's inputs.
using ScalarFn = function_ref<Value(OpBuilder &, Location, ValueRange)>;

/// A `linalg.generic` over all dims of `resultType` (all parallel, identity
/// maps) computing `result[i] = scalarFn(inputs[i]...)`. `inputs` may be
/// empty, for ops that compute from the indices alone.
static Value createElementwise(OpBuilder &b, Location loc,
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

/// Reshapes `source` (row-major) into `target`, which has as many elements:
/// one collapse or expand where the dims group up, else through 1-D.
static Value createReshape(OpBuilder &b, Location loc, Value source,
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
// Scalar bodies of the elementwise ops
//===----------------------------------------------------------------------===//

static bool isFloat(Value value) { return isa<FloatType>(value.getType()); }

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

/// `FloatOp` for float scalars, `IntOp` for integer ones.
template <typename FloatOp, typename IntOp>
static Value createArith(OpBuilder &b, Location loc, ValueRange args) {
  if (isFloat(args.front()))
    return FloatOp::create(b, loc, args);
  return IntOp::create(b, loc, args);
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

/// Converts a scalar to `to` with `trace.convert`'s semantics: floats round
/// to nearest even, floats to integers truncate toward zero, anything to i1
/// is `x != 0`, i1 to a number is 0 or 1.
static Value createConversion(OpBuilder &b, Location loc, Value x, Type to) {
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

//===----------------------------------------------------------------------===//
// Philox4x32-10
//===----------------------------------------------------------------------===//

namespace {

/// Writes Philox4x32-10 (trace/Support/Philox.h) as arith ops on i32 and
/// i64 at a builder's insertion point, creating each constant once so the
/// output reads like the reference.
class PhiloxEmitter {
public:
  PhiloxEmitter(OpBuilder &b, Location loc) : b(b), loc(loc) {}

  /// Low and high 32-bit halves of an i64.
  std::pair<Value, Value> split(Value x) {
    Value lo = arith::TruncIOp::create(b, loc, b.getI32Type(), x);
    Value hi = arith::TruncIOp::create(
        b, loc, b.getI32Type(), arith::ShRUIOp::create(b, loc, x, i64(32)));
    return {lo, hi};
  }

  /// philox::randomWord: word `index % 4` of Philox4x32-10 applied to the
  /// counter (lo(n), hi(n), 0, 0), n = offset + index / 4, under the key
  /// (key0, key1) = (lo(seed), hi(seed)). `index` is an i64.
  Value randomWord(Value key0, Value key1, uint64_t offset, Value index) {
    // One statement per op: the order of evaluation of a call's arguments
    // is unspecified (g++ and clang differ), and so would the IR be.
    Value quarter = arith::ShRUIOp::create(b, loc, index, i64(2));
    Value block = arith::AddIOp::create(b, loc, i64(offset), quarter);
    Value lane = arith::AndIOp::create(b, loc, index, i64(3));

    auto [blockLo, blockHi] = split(block);
    std::array<Value, 4> ctr = {blockLo, blockHi, i32(0), i32(0)};
    for (int round = 0; round < philox::kRounds; ++round) {
      auto [hi0, lo0] = mulHiLo(philox::kMul0, ctr[0]);
      auto [hi1, lo1] = mulHiLo(philox::kMul1, ctr[2]);
      ctr = {xorAll({hi1, ctr[1], key0}), lo1, xorAll({hi0, ctr[3], key1}),
             lo0};
      // The key after the last round is never read.
      if (round + 1 < philox::kRounds) {
        key0 = arith::AddIOp::create(b, loc, key0, i32(philox::kWeyl0));
        key1 = arith::AddIOp::create(b, loc, key1, i32(philox::kWeyl1));
      }
    }

    // ctr[lane] as a select chain: scalars cannot be indexed dynamically.
    Value word = ctr[3];
    for (int i = 2; i >= 0; --i) {
      Value isLane =
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, lane, i64(i));
      word = arith::SelectOp::create(b, loc, isLane, ctr[i], word);
    }
    return word;
  }

private:
  /// (mulhi, mullo) of a 32-bit constant and a 32-bit word, from one 64-bit
  /// product of the zero-extended operands.
  std::pair<Value, Value> mulHiLo(uint32_t multiplier, Value x) {
    Value wide = arith::ExtUIOp::create(b, loc, b.getI64Type(), x);
    Value product = arith::MulIOp::create(b, loc, i64(multiplier), wide);
    auto [lo, hi] = split(product);
    return {hi, lo};
  }

  Value xorAll(ArrayRef<Value> values) {
    Value result = values.front();
    for (Value value : values.drop_front())
      result = arith::XOrIOp::create(b, loc, result, value);
    return result;
  }

  Value i32(uint64_t value) { return constant(b.getI32Type(), value); }
  Value i64(uint64_t value) { return constant(b.getI64Type(), value); }
  Value constant(Type type, uint64_t value) {
    Value &cached = constants[{type, value}];
    if (!cached)
      cached = createIntConstant(b, loc, type, value);
    return cached;
  }

  OpBuilder &b;
  Location loc;
  llvm::SmallDenseMap<std::pair<Type, uint64_t>, Value> constants;
};

} // namespace

/// The row-major linear index (i64) of a generic's current element.
static Value createRowMajorIndex(OpBuilder &b, Location loc,
                                 ArrayRef<int64_t> shape) {
  Type i64 = b.getI64Type();
  Value linear;
  for (auto [dim, size] : llvm::enumerate(shape)) {
    Value index = arith::IndexCastUIOp::create(
        b, loc, i64, linalg::IndexOp::create(b, loc, dim));
    if (!linear) {
      linear = index;
      continue;
    }
    Value scaled = arith::MulIOp::create(b, loc, linear,
                                         createIntConstant(b, loc, i64, size));
    linear = arith::AddIOp::create(b, loc, scaled, index);
  }
  return linear ? linear : createIntConstant(b, loc, i64, 0);
}

/// philox::wordToUniform: the top p bits of `word` times 2^-p, computed in
/// f32 (f64 for f64), where every step is exact, then converted (exactly)
/// to `type`.
static Value createUniform(OpBuilder &b, Location loc, Value word, Type type) {
  int precision = type.isF64()    ? 32
                  : type.isF16()  ? 11
                  : type.isBF16() ? 8
                                  : 24;
  Value bits = word;
  if (precision < 32)
    bits = arith::ShRUIOp::create(
        b, loc, word,
        createIntConstant(b, loc, b.getI32Type(), 32 - precision));
  Type computeType = type.isF64() ? type : b.getF32Type();
  Value value = arith::UIToFPOp::create(b, loc, computeType, bits);
  Value scale =
      createFloatConstant(b, loc, computeType, std::ldexp(1.0, -precision));
  Value uniform = arith::MulFOp::create(b, loc, value, scale);
  if (computeType != type)
    uniform = arith::TruncFOp::create(b, loc, type, uniform);
  return uniform;
}

//===----------------------------------------------------------------------===//
// Reduction and matmul helpers
//===----------------------------------------------------------------------===//

/// The identity of `reduce_sum` in `type`: zero.
static TypedAttr getIdentity(OpBuilder &b, ReduceSumOp, Type type) {
  return b.getZeroAttr(type);
}
/// The identity of `reduce_max` in `type`: -inf, or the smallest integer.
static TypedAttr getIdentity(OpBuilder &b, ReduceMaxOp, Type type) {
  if (auto floatType = dyn_cast<FloatType>(type))
    return b.getFloatAttr(type, APFloat::getInf(floatType.getFloatSemantics(),
                                                /*Negative=*/true));
  return b.getIntegerAttr(
      type, APInt::getSignedMinValue(type.getIntOrFloatBitWidth()));
}

/// The type sums of `elementType` accumulate in: f32 for f16 and bf16, as
/// in PyTorch's CPU kernels (one rounding at the end instead of one per
/// addition, which loses whole units in a bf16 dot product of length 100),
/// else the element type itself.
static Type getSumAccumulatorType(Type elementType) {
  if (isa<Float16Type, BFloat16Type>(elementType))
    return Float32Type::get(elementType.getContext());
  return elementType;
}
static Type getAccumulatorType(ReduceSumOp, Type elementType) {
  return getSumAccumulatorType(elementType);
}
static Type getAccumulatorType(ReduceMaxOp, Type elementType) {
  // A maximum is exact in any type.
  return elementType;
}

/// `value` with its elements converted to `elementType` (for accumulators:
/// f32 to f16/bf16, rounding to nearest even).
static Value createElementCast(OpBuilder &b, Location loc, Value value,
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

/// Combines an input element into the accumulator, extending the input to
/// the accumulator's type first where they differ.
static Value createCombiner(OpBuilder &b, Location loc, ReduceSumOp,
                            Value input, Value accumulator) {
  if (input.getType() != accumulator.getType())
    input = arith::ExtFOp::create(b, loc, accumulator.getType(), input);
  return createArith<arith::AddFOp, arith::AddIOp>(b, loc,
                                                   {input, accumulator});
}
static Value createCombiner(OpBuilder &b, Location loc, ReduceMaxOp,
                            Value input, Value accumulator) {
  // NaN-propagating, like torch.amax.
  return createArith<arith::MaximumFOp, arith::MaxSIOp>(b, loc,
                                                        {input, accumulator});
}

/// The reassociation that expands the reduced tensor back to the `keepdim`
/// shape: each kept dim groups with the size-1 reduced dims that follow it
/// (leading reduced dims join the first kept dim).
static SmallVector<ReassociationIndices>
getKeepdimReassociation(int64_t rank, ArrayRef<int64_t> reducedDims) {
  SmallVector<ReassociationIndices> groups;
  ReassociationIndices leading;
  for (int64_t dim = 0; dim < rank; ++dim) {
    bool reduced = llvm::is_contained(reducedDims, dim);
    if (!reduced) {
      groups.emplace_back(leading);
      leading.clear();
      groups.back().push_back(dim);
    } else if (groups.empty()) {
      leading.push_back(dim);
    } else {
      groups.back().push_back(dim);
    }
  }
  return groups;
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

//===----------------------------------------------------------------------===//
// Sources
//===----------------------------------------------------------------------===//

struct ConstantLowering final : OpConversionPattern<ConstantOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ConstantOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto value = dyn_cast<TypedAttr>(op.getValue());
    if (!value)
      return rewriter.notifyMatchFailure(op, "constant value is not typed");
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(op, value);
    return success();
  }
};

struct FullLowering final : OpConversionPattern<FullOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(FullOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto value = dyn_cast<TypedAttr>(op.getValue());
    if (!value)
      return rewriter.notifyMatchFailure(op, "fill value is not typed");
    rewriter.replaceOp(op, createFilled(rewriter, op.getLoc(),
                                        cast<RankedTensorType>(op.getType()),
                                        value));
    return success();
  }
};

struct IotaLowering final : OpConversionPattern<IotaOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(IotaOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto resultType = cast<RankedTensorType>(op.getType());
    Type elementType = resultType.getElementType();
    uint64_t dim = op.getDimension();
    Value result = createElementwise(
        rewriter, op.getLoc(), resultType, /*inputs=*/{},
        [&](OpBuilder &b, Location loc, ValueRange) -> Value {
          Value index = linalg::IndexOp::create(b, loc, dim);
          if (!isa<FloatType>(elementType))
            return arith::IndexCastOp::create(b, loc, elementType, index);
          Value i64 = arith::IndexCastOp::create(b, loc, b.getI64Type(), index);
          return arith::SIToFPOp::create(b, loc, elementType, i64);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// Element `i` (row-major) of `trace.random_uniform` is philox::randomWord(
/// seed, offset, i) turned into [0, 1). Each element recomputes its block:
/// four elements sharing one is redundancy a vectorizing backend may remove,
/// and it keeps the op a single parallel generic.
struct RandomUniformLowering final : OpConversionPattern<RandomUniformOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(RandomUniformOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = cast<RankedTensorType>(op.getType());
    // The seed is a rank-0 tensor operand; the key is its two halves,
    // computed once above the generic, whose body reads them as scalars.
    Value seed = tensor::ExtractOp::create(rewriter, loc, adaptor.getSeed(),
                                           ValueRange{});
    Value key0, key1;
    std::tie(key0, key1) = PhiloxEmitter(rewriter, loc).split(seed);
    uint64_t offset = op.getOffset();
    Value result = createElementwise(
        rewriter, loc, resultType, /*inputs=*/{},
        [&](OpBuilder &b, Location loc, ValueRange) {
          Value index = createRowMajorIndex(b, loc, resultType.getShape());
          Value word =
              PhiloxEmitter(b, loc).randomWord(key0, key1, offset, index);
          return createUniform(b, loc, word, resultType.getElementType());
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Shape ops
//===----------------------------------------------------------------------===//

struct BroadcastInDimLowering final : OpConversionPattern<BroadcastInDimOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(BroadcastInDimOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value operand = adaptor.getOperand();
    auto operandType = cast<RankedTensorType>(operand.getType());
    auto resultType = cast<RankedTensorType>(op.getType());
    // Dims are strictly increasing, so equal types mean the identity.
    if (operandType == resultType) {
      rewriter.replaceOp(op, operand);
      return success();
    }
    // Operand dim k is read at result dim dims[k], or at 0 where a size-1
    // operand dim is stretched.
    MLIRContext *ctx = rewriter.getContext();
    SmallVector<AffineExpr> exprs;
    for (auto [k, dim] : llvm::enumerate(op.getBroadcastDimensions())) {
      bool stretched =
          operandType.getDimSize(k) == 1 && resultType.getDimSize(dim) != 1;
      exprs.push_back(stretched ? getAffineConstantExpr(0, ctx)
                                : getAffineDimExpr(dim, ctx));
    }
    unsigned rank = resultType.getRank();
    SmallVector<AffineMap> maps = {AffineMap::get(rank, 0, exprs, ctx),
                                   rewriter.getMultiDimIdentityMap(rank)};
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    rewriter.replaceOpWithNewOp<linalg::GenericOp>(
        op, TypeRange{resultType}, ValueRange{operand},
        ValueRange{createEmpty(rewriter, op.getLoc(), resultType)}, maps,
        iterators, [](OpBuilder &b, Location loc, ValueRange args) {
          linalg::YieldOp::create(b, loc, args.front());
        });
    return success();
  }
};

struct ReshapeLowering final : OpConversionPattern<ReshapeOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ReshapeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, createReshape(rewriter, op.getLoc(),
                                         adaptor.getOperand(),
                                         cast<RankedTensorType>(op.getType())));
    return success();
  }
};

struct TransposeLowering final : OpConversionPattern<TransposeOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(TransposeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    // linalg.transpose has the op's convention: result dim i is input dim
    // permutation[i].
    auto resultType = cast<RankedTensorType>(op.getType());
    auto transpose = linalg::TransposeOp::create(
        rewriter, op.getLoc(), adaptor.getOperand(),
        createEmpty(rewriter, op.getLoc(), resultType), op.getPermutation());
    rewriter.replaceOp(op, transpose.getResult());
    return success();
  }
};

struct SliceLowering final : OpConversionPattern<SliceOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(SliceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto resultType = cast<RankedTensorType>(op.getType());
    MLIRContext *ctx = rewriter.getContext();
    rewriter.replaceOpWithNewOp<tensor::ExtractSliceOp>(
        op, resultType, adaptor.getOperand(),
        getAsIndexOpFoldResult(ctx, op.getStartIndices()),
        getAsIndexOpFoldResult(ctx, resultType.getShape()),
        getAsIndexOpFoldResult(ctx, op.getStrides()));
    return success();
  }
};

struct ConcatenateLowering final : OpConversionPattern<ConcatenateOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ConcatenateOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (adaptor.getInputs().size() == 1) {
      rewriter.replaceOp(op, adaptor.getInputs().front());
      return success();
    }
    // tensor.concat bufferizes (to an allocation and one copy per input) in
    // MLIR 22, and reads better than the insert_slice chain it decomposes to.
    rewriter.replaceOpWithNewOp<tensor::ConcatOp>(
        op, op.getType(), op.getDimension(), adaptor.getInputs());
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Reductions and matmul
//===----------------------------------------------------------------------===//

template <typename OpTy>
struct ReduceLowering final : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  using OpAdaptor = typename OpTy::Adaptor;

  LogicalResult
  matchAndRewrite(OpTy op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value operand = adaptor.getOperand();
    auto operandType = cast<RankedTensorType>(operand.getType());
    auto resultType = cast<RankedTensorType>(op.getType());
    SmallVector<int64_t> dims(op.getDimensions());
    if (dims.empty()) {
      rewriter.replaceOp(op, operand);
      return success();
    }
    // linalg.reduce wants its dimensions sorted; the op takes any order.
    llvm::sort(dims);

    SmallVector<int64_t> reducedShape;
    for (auto [dim, size] : llvm::enumerate(operandType.getShape()))
      if (!llvm::is_contained(dims, static_cast<int64_t>(dim)))
        reducedShape.push_back(size);
    Type elementType = operandType.getElementType();
    Type accumulatorType = getAccumulatorType(op, elementType);
    auto reducedType = RankedTensorType::get(reducedShape, accumulatorType);
    Value init = createFilled(rewriter, loc, reducedType,
                              getIdentity(rewriter, op, accumulatorType));
    auto reduce = linalg::ReduceOp::create(
        rewriter, loc, ValueRange{operand}, ValueRange{init}, dims,
        [&](OpBuilder &b, Location loc, ValueRange args) {
          linalg::YieldOp::create(b, loc,
                                  createCombiner(b, loc, op, args[0], args[1]));
        });
    Value result =
        createElementCast(rewriter, loc, reduce.getResult(0), elementType);
    if (cast<RankedTensorType>(result.getType()) != resultType)
      result = tensor::ExpandShapeOp::create(
          rewriter, loc, resultType, result,
          getKeepdimReassociation(resultType.getRank(), dims));
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct MatmulLowering final : OpConversionPattern<MatmulOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(MatmulOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value lhs = adaptor.getLhs(), rhs = adaptor.getRhs();
    auto resultType = cast<RankedTensorType>(op.getType());
    int64_t rank = resultType.getRank();
    if (rank < 2)
      return rewriter.notifyMatchFailure(op, "matmul of rank below 2");
    // The named ops extend f16/bf16 operands to an f32 accumulator in their
    // body; the result is rounded once at the end.
    Type elementType = resultType.getElementType();
    Type accumulatorType = getSumAccumulatorType(elementType);
    TypedAttr zero = rewriter.getZeroAttr(accumulatorType);

    if (rank == 2) {
      Value init =
          createFilled(rewriter, loc, resultType.clone(accumulatorType), zero);
      Value product =
          linalg::MatmulOp::create(rewriter, loc, TypeRange{init.getType()},
                                   ValueRange{lhs, rhs}, ValueRange{init})
              .getResult(0);
      rewriter.replaceOp(
          op, createElementCast(rewriter, loc, product, elementType));
      return success();
    }

    // More than one batch dim: collapse them into one for batch_matmul
    // (the batch dims are contiguous in all three operands) and expand the
    // result back.
    SmallVector<ReassociationIndices> reassociation;
    if (rank > 3) {
      reassociation.push_back({});
      for (int64_t dim = 0; dim < rank - 2; ++dim)
        reassociation.back().push_back(dim);
      reassociation.push_back({rank - 2});
      reassociation.push_back({rank - 1});
      lhs = tensor::CollapseShapeOp::create(rewriter, loc, lhs, reassociation);
      rhs = tensor::CollapseShapeOp::create(rewriter, loc, rhs, reassociation);
    }
    auto batchType = RankedTensorType::get(
        {cast<RankedTensorType>(lhs.getType()).getDimSize(0),
         resultType.getDimSize(rank - 2), resultType.getDimSize(rank - 1)},
        accumulatorType);
    Value init = createFilled(rewriter, loc, batchType, zero);
    Value result =
        linalg::BatchMatmulOp::create(rewriter, loc, TypeRange{batchType},
                                      ValueRange{lhs, rhs}, ValueRange{init})
            .getResult(0);
    result = createElementCast(rewriter, loc, result, elementType);
    if (rank > 3)
      result = tensor::ExpandShapeOp::create(rewriter, loc, resultType, result,
                                             reassociation);
    rewriter.replaceOp(op, result);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Convolution and reverse
//===----------------------------------------------------------------------===//

/// `x` = [N, C, spatial...] dilated by `dilation` and padded by `padding`
/// (low, high per spatial dim, negative to crop): a zero fill the input is
/// inserted into at a stride, then a slice where a pad is negative. `x`
/// itself where there is nothing to do.
static Value createDilatedPadded(OpBuilder &b, Location loc, Value x,
                                 ArrayRef<int64_t> dilation,
                                 ArrayRef<int64_t> padding) {
  auto type = cast<RankedTensorType>(x.getType());
  int64_t rank = type.getRank();
  bool identity = llvm::all_of(dilation, [](int64_t d) { return d == 1; }) &&
                  llvm::all_of(padding, [](int64_t p) { return p == 0; });
  if (identity)
    return x;
  SmallVector<int64_t> grown(type.getShape()), offsets(rank, 0),
      strides(rank, 1), cropOffsets(rank, 0), cropped(type.getShape());
  bool crops = false;
  for (int64_t d = 0; d + 2 < rank; ++d) {
    int64_t size = type.getDimSize(d + 2);
    int64_t lo = padding[2 * d], hi = padding[2 * d + 1];
    int64_t dilated = (size - 1) * dilation[d] + 1;
    grown[d + 2] = dilated + std::max<int64_t>(lo, 0) + std::max<int64_t>(hi, 0);
    offsets[d + 2] = std::max<int64_t>(lo, 0);
    strides[d + 2] = dilation[d];
    cropOffsets[d + 2] = std::max<int64_t>(-lo, 0);
    cropped[d + 2] = dilated + lo + hi;
    crops |= lo < 0 || hi < 0;
  }
  MLIRContext *ctx = b.getContext();
  Value zeros = createFilled(b, loc, type.clone(grown),
                             b.getZeroAttr(type.getElementType()));
  Value result = tensor::InsertSliceOp::create(
      b, loc, x, zeros, getAsIndexOpFoldResult(ctx, offsets),
      getAsIndexOpFoldResult(ctx, type.getShape()),
      getAsIndexOpFoldResult(ctx, strides));
  if (!crops)
    return result;
  return tensor::ExtractSliceOp::create(
      b, loc, type.clone(cropped), result,
      getAsIndexOpFoldResult(ctx, cropOffsets),
      getAsIndexOpFoldResult(ctx, cropped),
      getAsIndexOpFoldResult(ctx, SmallVector<int64_t>(rank, 1)));
}

/// Splits dim `dim` of `x` into [groups, size / groups].
static Value createGroupSplit(OpBuilder &b, Location loc, Value x, int64_t dim,
                              int64_t groups) {
  auto type = cast<RankedTensorType>(x.getType());
  SmallVector<int64_t> shape(type.getShape());
  shape[dim] /= groups;
  shape.insert(shape.begin() + dim, groups);
  SmallVector<ReassociationIndices> reassociation;
  for (int64_t d = 0, rank = type.getRank(); d < rank; ++d) {
    if (d < dim)
      reassociation.push_back({d});
    else if (d == dim)
      reassociation.push_back({d, d + 1});
    else
      reassociation.push_back({d + 1});
  }
  return tensor::ExpandShapeOp::create(b, loc, type.clone(shape), x,
                                       reassociation);
}

/// Convolutions, after the input is dilated and padded (on the input split
/// [N, G, C/G, ...], the kernel [G, O/G, C/G, ...]), either
///
/// * direct: one `linalg.generic` over dims (n, g, o, c, k_0.., i_0..),
///   c and k the reductions:
///     y[n, g, o, i] += x[n, g, c, i * s + k * r] * w[g, o, c, k]
///   into [N, G, O/G, ...], collapsed back to [N, O, ...]. The output's
///   positions are the innermost loops, so that on the CPU they vectorize
///   with the kernel element invariant (3.4x faster than the window
///   innermost on a 7x7 stem, bench/conv_time.py); the GPU mapping puts
///   the parallel dims first anyway; or
/// * im2col: a `linalg.generic` copy of every window,
///     cols[g, c, k, n, i] = x[n, g, c, i * s + k * r],
///   collapsed to [G, C/G * K, N * I], a `linalg.matmul` (`batch_matmul`
///   over the groups) of the kernel [G, O/G, C/G * K] with it, and a
///   transpose of [G, O/G, N, I...] to [N, O, I...]. The matmul goes to
///   BLAS or cuBLAS (trace-linalg-to-blas) at the price of the columns
///   (K copies of the input) and the transpose.
///
/// f16/bf16 accumulate in f32, as the matmul does. The backends lower the
/// generics like any other (loops; one thread per output element).
struct ConvolutionPattern final : OpConversionPattern<ConvolutionOp> {
  ConvolutionPattern(MLIRContext *ctx, ConvolutionLowering mode)
      : OpConversionPattern(ctx), mode(mode) {}

  /// Auto's rule: a BLAS pays where each output element sums over enough
  /// products and each group has rows enough (depthwise convolutions, one
  /// row and a 3x3 window, stay direct; bench/conv_time.py), and where the
  /// columns (the window's elements for every output position) stay within
  /// kMaxIm2colBytes: the memory model (LiveBytes) does not see that
  /// transient, so it is kept small next to the step's.
  static bool worthIm2col(ConvolutionOp op) {
    RankedTensorType kernel = op.getRhs().getType();
    RankedTensorType result = op.getType();
    int64_t reduction = kernel.getNumElements() / kernel.getDimSize(0);
    int64_t rows = kernel.getDimSize(0) / op.getGroups();
    int64_t columns = result.getNumElements() / result.getDimSize(1);
    int64_t bytes = op.getGroups() * reduction * columns *
                    result.getElementTypeBitWidth() / 8;
    return reduction >= kMinIm2colReduction && rows >= kMinIm2colRows &&
           bytes <= kMaxIm2colBytes;
  }
  static constexpr int64_t kMinIm2colReduction = 16, kMinIm2colRows = 4;
  static constexpr int64_t kMaxIm2colBytes = int64_t{64} << 20;

  LogicalResult
  matchAndRewrite(ConvolutionOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = cast<RankedTensorType>(op.getType());
    int64_t groups = op.getGroups();
    Value input = createDilatedPadded(rewriter, loc, adaptor.getLhs(),
                                      op.getLhsDilation(), op.getPadding());
    input = createGroupSplit(rewriter, loc, input, 1, groups);
    Value kernel = createGroupSplit(rewriter, loc, adaptor.getRhs(), 0, groups);
    bool im2col = mode == ConvolutionLowering::Im2col ||
                  (mode == ConvolutionLowering::Auto && worthIm2col(op));
    Value result = im2col ? createIm2col(op, input, kernel, rewriter)
                          : createDirect(op, input, kernel, rewriter);
    Type elementType = resultType.getElementType();
    result = createElementCast(rewriter, loc, result, elementType);
    rewriter.replaceOp(op, result);
    return success();
  }

private:
  /// The window's input index along spatial dim `d`: i * s + k * r.
  static AffineExpr windowIndex(ConvolutionOp op, int64_t d, AffineExpr i,
                                AffineExpr k) {
    return i * op.getStrides()[d] + k * op.getRhsDilation()[d];
  }

  static Value createDirect(ConvolutionOp op, Value input, Value kernel,
                            ConversionPatternRewriter &rewriter) {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    auto resultType = cast<RankedTensorType>(op.getType());
    int64_t spatial = op.getNumSpatialDims(), groups = op.getGroups();
    Type accumulatorType = getSumAccumulatorType(resultType.getElementType());
    SmallVector<int64_t> outShape = {resultType.getDimSize(0), groups,
                                     resultType.getDimSize(1) / groups};
    outShape.append(resultType.getShape().begin() + 2,
                    resultType.getShape().end());
    Value init = createFilled(rewriter, loc,
                              RankedTensorType::get(outShape, accumulatorType),
                              rewriter.getZeroAttr(accumulatorType));

    int64_t numDims = 4 + 2 * spatial;
    auto dim = [&](int64_t d) { return getAffineDimExpr(d, ctx); };
    AffineExpr n = dim(0), g = dim(1), o = dim(2), c = dim(3);
    SmallVector<AffineExpr> inExprs = {n, g, c}, kernelExprs = {g, o, c},
                            outExprs = {n, g, o};
    for (int64_t d = 0; d < spatial; ++d) {
      AffineExpr k = dim(4 + d), i = dim(4 + spatial + d);
      inExprs.push_back(windowIndex(op, d, i, k));
      kernelExprs.push_back(k);
      outExprs.push_back(i);
    }
    SmallVector<AffineMap> maps = {
        AffineMap::get(numDims, 0, inExprs, ctx),
        AffineMap::get(numDims, 0, kernelExprs, ctx),
        AffineMap::get(numDims, 0, outExprs, ctx)};
    SmallVector<utils::IteratorType> iterators(3,
                                               utils::IteratorType::parallel);
    iterators.append(1 + spatial, utils::IteratorType::reduction);
    iterators.append(spatial, utils::IteratorType::parallel);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{init.getType()}, ValueRange{input, kernel},
        ValueRange{init}, maps, iterators,
        [&](OpBuilder &b, Location loc, ValueRange args) {
          Value x = args[0], w = args[1];
          if (x.getType() != accumulatorType) {
            x = arith::ExtFOp::create(b, loc, accumulatorType, x);
            w = arith::ExtFOp::create(b, loc, accumulatorType, w);
          }
          Value product = arith::MulFOp::create(b, loc, x, w);
          linalg::YieldOp::create(
              b, loc, ValueRange{arith::AddFOp::create(b, loc, args[2],
                                                       product)});
        });
    SmallVector<ReassociationIndices> merge = {{0}, {1, 2}};
    for (int64_t d = 0; d < spatial; ++d)
      merge.push_back({3 + d});
    return tensor::CollapseShapeOp::create(
        rewriter, loc, resultType.clone(accumulatorType),
        generic.getResult(0), merge);
  }

  static Value createIm2col(ConvolutionOp op, Value input, Value kernel,
                            ConversionPatternRewriter &rewriter) {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    auto resultType = cast<RankedTensorType>(op.getType());
    auto kernelType = cast<RankedTensorType>(kernel.getType());
    Type elementType = resultType.getElementType();
    Type accumulatorType = getSumAccumulatorType(elementType);
    int64_t spatial = op.getNumSpatialDims(), groups = op.getGroups();
    int64_t batch = resultType.getDimSize(0);
    int64_t rows = kernelType.getDimSize(1), channels = kernelType.getDimSize(2);
    ArrayRef<int64_t> window = kernelType.getShape().drop_front(3);
    ArrayRef<int64_t> out = resultType.getShape().drop_front(2);
    int64_t windowSize = 1, outSize = 1;
    for (int64_t d = 0; d < spatial; ++d) {
      windowSize *= window[d];
      outSize *= out[d];
    }

    // cols[g, c, k..., n, i...] = x[n, g, c, i * s + k * r]: all parallel.
    SmallVector<int64_t> colsShape = {groups, channels};
    colsShape.append(window.begin(), window.end());
    colsShape.push_back(batch);
    colsShape.append(out.begin(), out.end());
    int64_t numDims = colsShape.size();
    auto dim = [&](int64_t d) { return getAffineDimExpr(d, ctx); };
    SmallVector<AffineExpr> inExprs = {dim(2 + spatial), dim(0), dim(1)};
    for (int64_t d = 0; d < spatial; ++d) {
      AffineExpr i = dim(3 + spatial + d), k = dim(2 + d);
      inExprs.push_back(windowIndex(op, d, i, k));
    }
    auto colsType = RankedTensorType::get(colsShape, elementType);
    SmallVector<AffineMap> maps = {AffineMap::get(numDims, 0, inExprs, ctx),
                                   rewriter.getMultiDimIdentityMap(numDims)};
    SmallVector<utils::IteratorType> iterators(numDims,
                                               utils::IteratorType::parallel);
    Value cols =
        linalg::GenericOp::create(
            rewriter, loc, TypeRange{colsType}, ValueRange{input},
            ValueRange{createEmpty(rewriter, loc, colsType)}, maps, iterators,
            [](OpBuilder &b, Location loc, ValueRange args) {
              linalg::YieldOp::create(b, loc, ValueRange{args[0]});
            })
            .getResult(0);

    // [G, C*K, N*I] x [G, O, C*K]: one matmul per group.
    auto group = [&](ArrayRef<int64_t> shape) {
      SmallVector<int64_t> withGroup;
      if (groups > 1)
        withGroup.push_back(groups);
      withGroup.append(shape.begin(), shape.end());
      return withGroup;
    };
    auto colsMatrix = RankedTensorType::get(
        group({channels * windowSize, batch * outSize}), elementType);
    auto kernelMatrix = RankedTensorType::get(
        group({rows, channels * windowSize}), elementType);
    auto productType = RankedTensorType::get(group({rows, batch * outSize}),
                                             accumulatorType);
    cols = createReshape(rewriter, loc, cols, colsMatrix);
    Value weights = createReshape(rewriter, loc, kernel, kernelMatrix);
    Value init = createFilled(rewriter, loc, productType,
                              rewriter.getZeroAttr(accumulatorType));
    Value product =
        groups > 1
            ? linalg::BatchMatmulOp::create(rewriter, loc,
                                            TypeRange{productType},
                                            ValueRange{weights, cols},
                                            ValueRange{init})
                  .getResult(0)
            : linalg::MatmulOp::create(rewriter, loc, TypeRange{productType},
                                       ValueRange{weights, cols},
                                       ValueRange{init})
                  .getResult(0);

    // [G, O, N, I...] -> [N, G, O, I...] -> [N, G*O, I...].
    SmallVector<int64_t> split = {groups, rows, batch};
    split.append(out.begin(), out.end());
    product = createReshape(rewriter, loc, product,
                            RankedTensorType::get(split, accumulatorType));
    SmallVector<int64_t> perm = {2, 0, 1};
    for (int64_t d = 0; d < spatial; ++d)
      perm.push_back(3 + d);
    SmallVector<int64_t> moved = {batch, groups, rows};
    moved.append(out.begin(), out.end());
    auto movedType = RankedTensorType::get(moved, accumulatorType);
    Value transposed =
        linalg::TransposeOp::create(rewriter, loc, product,
                                    createEmpty(rewriter, loc, movedType), perm)
            .getResult()[0];
    return createReshape(rewriter, loc, transposed,
                         resultType.clone(accumulatorType));
  }

  ConvolutionLowering mode;
};

/// A copy whose input map counts the reversed dims down from their end.
struct ReverseLowering final : OpConversionPattern<ReverseOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ReverseOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    MLIRContext *ctx = rewriter.getContext();
    auto type = cast<RankedTensorType>(op.getType());
    int64_t rank = type.getRank();
    SmallVector<AffineExpr> exprs;
    for (int64_t d = 0; d < rank; ++d) {
      AffineExpr index = getAffineDimExpr(d, ctx);
      if (llvm::is_contained(op.getDimensions(), d))
        index = getAffineConstantExpr(type.getDimSize(d) - 1, ctx) - index;
      exprs.push_back(index);
    }
    SmallVector<AffineMap> maps = {AffineMap::get(rank, 0, exprs, ctx),
                                   rewriter.getMultiDimIdentityMap(rank)};
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    auto generic = linalg::GenericOp::create(
        rewriter, op.getLoc(), TypeRange{type}, ValueRange{adaptor.getOperand()},
        ValueRange{createEmpty(rewriter, op.getLoc(), type)}, maps, iterators,
        [](OpBuilder &b, Location loc, ValueRange args) {
          linalg::YieldOp::create(b, loc, ValueRange{args[0]});
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Indexing
//===----------------------------------------------------------------------===//

/// `index` (an i32 or i64 scalar) as an index.
static Value asIndex(OpBuilder &b, Location loc, Value index) {
  return arith::IndexCastOp::create(b, loc, b.getIndexType(), index);
}

/// `x + y` of a float or an integer scalar.
static Value addScalars(OpBuilder &b, Location loc, Value x, Value y) {
  if (isa<FloatType>(x.getType()))
    return arith::AddFOp::create(b, loc, x, y);
  return arith::AddIOp::create(b, loc, x, y);
}

/// A linalg.generic over the result (the indices' shape) whose body reads
/// the operand with `tensor.extract` at the clamped index: gathers are not
/// affine, so the operand is captured, not an input (as torch-mlir lowers
/// aten.gather).
struct GatherLowering final : OpConversionPattern<GatherOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(GatherOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getType());
    int64_t rank = type.getRank(), dim = op.getDimension();
    int64_t last = op.getOperand().getType().getDimSize(dim) - 1;
    Value operand = adaptor.getOperand();
    SmallVector<AffineMap> maps(2, rewriter.getMultiDimIdentityMap(rank));
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{type}, ValueRange{adaptor.getIndices()},
        ValueRange{createEmpty(rewriter, loc, type)}, maps, iterators,
        [&](OpBuilder &b, Location loc, ValueRange args) {
          Value zero = arith::ConstantIndexOp::create(b, loc, 0);
          Value top = arith::ConstantIndexOp::create(b, loc, last);
          Value index = asIndex(b, loc, args[0]);
          Value above = arith::MaxSIOp::create(b, loc, index, zero);
          Value clamped = arith::MinSIOp::create(b, loc, above, top);
          SmallVector<Value> at;
          for (int64_t d = 0; d < rank; ++d)
            at.push_back(d == dim ? clamped
                                  : linalg::IndexOp::create(b, loc, d));
          Value picked = tensor::ExtractOp::create(b, loc, operand, at);
          linalg::YieldOp::create(b, loc, ValueRange{picked});
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

/// `trace.scatter_add` as a nest of scf.for loops over the indices, each
/// step a `tensor.extract` and a `tensor.insert` of the running result
/// (bufferized in place): work in the updates' size. linalg has no
/// scatter; an update with an index out of range adds zero at index 0.
///
/// With `dense`, a linalg.generic over the result part the indices reach
/// and, as a reduction, the indexed dim of the updates: every result
/// element sums the updates whose index hits it. No loop-carried tensor,
/// so one GPU kernel, but work in the updates' size times the indexed
/// dim's (the one-hot product's).
struct ScatterAddLowering final : OpConversionPattern<ScatterAddOp> {
  ScatterAddLowering(MLIRContext *ctx, ScatterLowering mode)
      : OpConversionPattern(ctx), mode(mode) {}

  LogicalResult
  matchAndRewrite(ScatterAddOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value result = mode == ScatterLowering::Dense
                       ? buildDense(rewriter, op, adaptor)
                       : buildLoops(rewriter, op, adaptor);
    rewriter.replaceOp(op, result);
    return success();
  }

  /// Returns `(update, at)`: the update, or zero where its index is outside
  /// the dim of `size`, and the index clamped into it.
  static std::pair<Value, Value> inRange(OpBuilder &b, Location loc,
                                         Value update, Value index,
                                         int64_t size) {
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    Value end = arith::ConstantIndexOp::create(b, loc, size);
    Value atLeast = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge,
                                          index, zero);
    Value below = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt,
                                        index, end);
    Value valid = arith::AndIOp::create(b, loc, atLeast, below);
    Value none = arith::ConstantOp::create(
        b, loc, b.getZeroAttr(update.getType()));
    Value kept = arith::SelectOp::create(b, loc, valid, update, none);
    Value at = arith::SelectOp::create(b, loc, valid, index, zero);
    return {kept, at};
  }

  Value buildLoops(ConversionPatternRewriter &rewriter, ScatterAddOp op,
                   OpAdaptor adaptor) const {
    Location loc = op.getLoc();
    RankedTensorType indicesType = op.getIndices().getType();
    int64_t dim = op.getDimension();
    int64_t size = op.getOperand().getType().getDimSize(dim);
    Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
    Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
    SmallVector<Value> lbs, ubs, steps;
    for (int64_t extent : indicesType.getShape()) {
      lbs.push_back(zero);
      ubs.push_back(arith::ConstantIndexOp::create(rewriter, loc, extent));
      steps.push_back(one);
    }
    Value indices = adaptor.getIndices(), updates = adaptor.getUpdates();
    scf::LoopNest nest = scf::buildLoopNest(
        rewriter, loc, lbs, ubs, steps, ValueRange{adaptor.getOperand()},
        [&](OpBuilder &b, Location loc, ValueRange ivs,
            ValueRange iters) -> scf::ValueVector {
          Value raw = tensor::ExtractOp::create(b, loc, indices, ivs);
          Value update = tensor::ExtractOp::create(b, loc, updates, ivs);
          Value index = asIndex(b, loc, raw);
          auto [kept, at] = inRange(b, loc, update, index, size);
          SmallVector<Value> target(ivs);
          target[dim] = at;
          Value old = tensor::ExtractOp::create(b, loc, iters[0], target);
          Value sum = addScalars(b, loc, old, kept);
          return {tensor::InsertOp::create(b, loc, sum, iters[0], target)};
        });
    return nest.results.front();
  }

  Value buildDense(ConversionPatternRewriter &rewriter, ScatterAddOp op,
                   OpAdaptor adaptor) const {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    RankedTensorType operandType = op.getOperand().getType();
    RankedTensorType indicesType = op.getIndices().getType();
    int64_t rank = operandType.getRank(), dim = op.getDimension();
    // The part of the result the indices reach: their extent off `dim`.
    SmallVector<int64_t> part(indicesType.getShape());
    part[dim] = operandType.getDimSize(dim);
    Value base = adaptor.getOperand();
    bool whole = ArrayRef<int64_t>(part) == operandType.getShape();
    SmallVector<OpFoldResult> offsets(rank, rewriter.getIndexAttr(0));
    SmallVector<OpFoldResult> sizes, unit(rank, rewriter.getIndexAttr(1));
    for (int64_t extent : part)
      sizes.push_back(rewriter.getIndexAttr(extent));
    Value init = base;
    if (!whole)
      init = tensor::ExtractSliceOp::create(rewriter, loc, base, offsets,
                                            sizes, unit);
    // Dims (d_0 .. d_{rank-1}, r): r walks the indices' `dim`.
    SmallVector<AffineExpr> read;
    for (int64_t d = 0; d < rank; ++d)
      read.push_back(getAffineDimExpr(d == dim ? rank : d, ctx));
    AffineMap readMap = AffineMap::get(rank + 1, 0, read, ctx);
    AffineMap writeMap = AffineMap::getMultiDimIdentityMap(rank + 1, ctx)
                             .dropResult(rank);
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    iterators.push_back(utils::IteratorType::reduction);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{init.getType()},
        ValueRange{adaptor.getIndices(), adaptor.getUpdates()},
        ValueRange{init}, SmallVector<AffineMap>{readMap, readMap, writeMap},
        iterators, [&](OpBuilder &b, Location loc, ValueRange args) {
          Value index = asIndex(b, loc, args[0]);
          Value here = linalg::IndexOp::create(b, loc, dim);
          Value hit = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                            index, here);
          TypedAttr zero = b.getZeroAttr(args[1].getType());
          Value none = arith::ConstantOp::create(b, loc, zero);
          Value kept = arith::SelectOp::create(b, loc, hit, args[1], none);
          Value sum = addScalars(b, loc, args[2], kept);
          linalg::YieldOp::create(b, loc, ValueRange{sum});
        });
    Value summed = generic.getResult(0);
    if (whole)
      return summed;
    return tensor::InsertSliceOp::create(rewriter, loc, summed, base, offsets,
                                         sizes, unit);
  }

  ScatterLowering mode;
};

/// No gradient flows past it; its value is its operand's.
/// Outside the pipelines (keep-barriers), a barrier is its operand.
struct OptimizationBarrierLowering final
    : OpConversionPattern<OptimizationBarrierOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(OptimizationBarrierOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, adaptor.getOperand());
    return success();
  }
};

struct StopGradientLowering final : OpConversionPattern<StopGradientOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(StopGradientOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, adaptor.getOperand());
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Region ops
//===----------------------------------------------------------------------===//

/// `trace.checkpoint` and `trace.fusion` only mark regions for autodiff,
/// rematerialization and kernel formation; once lowered, their bodies run
/// in place. Nested region ops are inlined when the driver reaches them.
template <typename OpTy>
struct InlineRegionLowering final : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  using OpAdaptor = typename OpTy::Adaptor;

  LogicalResult
  matchAndRewrite(OpTy op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Block &body = op.getBody().front();
    auto yield = cast<YieldOp>(body.getTerminator());
    // The results are the yielded values, where a yielded block argument
    // stands for the corresponding input.
    SmallVector<Value> results;
    for (Value value : yield.getValues()) {
      auto arg = dyn_cast<BlockArgument>(value);
      results.push_back(arg && arg.getOwner() == &body
                            ? adaptor.getInputs()[arg.getArgNumber()]
                            : value);
    }
    rewriter.inlineBlockBefore(&body, op, adaptor.getInputs());
    rewriter.replaceOp(op, results);
    rewriter.eraseOp(yield);
    return success();
  }
};

/// `trace.forward_end` marks the split for autodiff and remat; the lowered
/// function runs its forward and backward in one sequence.
struct ForwardEndLowering final : OpConversionPattern<ForwardEndOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ForwardEndOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

//===----------------------------------------------------------------------===//
// Entry points
//===----------------------------------------------------------------------===//

void mlir::trace::populateTraceToLinalgPatterns(
    RewritePatternSet &patterns, ConvolutionLowering convolutions,
    ScatterLowering scatters) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<ConvolutionPattern>(ctx, convolutions);
  patterns.add<ScatterAddLowering>(ctx, scatters);
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
      ElementwiseLowering<MaximumOp>, ElementwiseLowering<MinimumOp>,
      ElementwiseLowering<CompareOp>, ElementwiseLowering<SelectOp>,
      ConvertLowering,
      // Sources.
      ConstantLowering, FullLowering, IotaLowering, RandomUniformLowering,
      // Shape ops.
      BroadcastInDimLowering, ReshapeLowering, TransposeLowering, SliceLowering,
      ConcatenateLowering,
      // Reductions and matmul.
      ReduceLowering<ReduceSumOp>, ReduceLowering<ReduceMaxOp>, MatmulLowering,
      ReverseLowering,
      // Indexing.
      GatherLowering, StopGradientLowering, OptimizationBarrierLowering,
      // Regions.
      InlineRegionLowering<CheckpointOp>, InlineRegionLowering<FusionOp>,
      ForwardEndLowering>(ctx);
}

void mlir::trace::configureTraceToLinalgTarget(ConversionTarget &target) {
  target.addIllegalDialect<TraceDialect>();
  target.addLegalDialect<arith::ArithDialect, linalg::LinalgDialect,
                         math::MathDialect, scf::SCFDialect,
                         tensor::TensorDialect>();
}

/// True for attribute names in the trace namespace (`trace.name`).
static bool isTraceAttrName(StringAttr name) {
  return name.strref().starts_with("trace.");
}

/// Drops discardable `trace.*` attributes from `op` (and from its function
/// arguments and results): they name values for readability and policies,
/// and mean nothing once the trace ops are gone.
static void dropTraceAttrs(Operation *op) {
  for (NamedAttribute attr : llvm::to_vector(op->getDiscardableAttrs()))
    if (isTraceAttrName(attr.getName()))
      op->removeDiscardableAttr(attr.getName());
  auto function = dyn_cast<FunctionOpInterface>(op);
  if (!function)
    return;
  // `trace.donated` on an argument is part of the function's contract (the
  // callee owns and may overwrite the buffer; trace-free-donated frees it),
  // as JAX's exported functions keep `jax.buffer_donor`: it stays.
  for (unsigned i = 0, e = function.getNumArguments(); i < e; ++i)
    for (NamedAttribute attr : function.getArgAttrs(i))
      if (isTraceAttrName(attr.getName()) &&
          attr.getName() != TraceDialect::kDonatedAttrName)
        function.removeArgAttr(i, attr.getName());
  for (unsigned i = 0, e = function.getNumResults(); i < e; ++i)
    for (NamedAttribute attr : function.getResultAttrs(i))
      if (isTraceAttrName(attr.getName()))
        function.removeResultAttr(i, attr.getName());
}

/// Reports an attribute of the trace dialect (e.g. a `#trace.policy`) that
/// some non-trace op still carries: stock MLIR could not parse the output.
static LogicalResult verifyNoTraceAttrs(Operation *op) {
  Attribute found;
  op->getAttrDictionary().walk([&](Attribute attr) {
    if (!found && isa_and_nonnull<TraceDialect>(&attr.getDialect()))
      found = attr;
  });
  if (!found)
    return success();
  return op->emitError("cannot export attribute ")
         << found << " of the trace dialect";
}

namespace {

struct TraceToLinalgPass final
    : trace::impl::TraceToLinalgPassBase<TraceToLinalgPass> {
  using Base::Base;

  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    ConversionTarget target(*ctx);
    configureTraceToLinalgTarget(target);
    if (keepBarriers)
      target.addLegalOp<OptimizationBarrierOp>();
    if (keepFusions) {
      target.addLegalOp<FusionOp>();
      target.addDynamicallyLegalOp<YieldOp>([](YieldOp yield) {
        return isa<FusionOp>(yield->getParentOp());
      });
    }
    std::optional<ConvolutionLowering> lowering =
        llvm::StringSwitch<std::optional<ConvolutionLowering>>(convolutions)
            .Case("direct", ConvolutionLowering::Direct)
            .Case("im2col", ConvolutionLowering::Im2col)
            .Case("auto", ConvolutionLowering::Auto)
            .Default(std::nullopt);
    if (!lowering) {
      emitError(getOperation()->getLoc())
          << "trace-to-linalg: convolutions='" << convolutions
          << "' is none of direct, im2col, auto";
      return signalPassFailure();
    }
    std::optional<ScatterLowering> scatter =
        llvm::StringSwitch<std::optional<ScatterLowering>>(scatters)
            .Case("loops", ScatterLowering::Loops)
            .Case("dense", ScatterLowering::Dense)
            .Default(std::nullopt);
    if (!scatter) {
      emitError(getOperation()->getLoc())
          << "trace-to-linalg: scatters='" << scatters
          << "' is none of loops, dense";
      return signalPassFailure();
    }
    RewritePatternSet patterns(ctx);
    populateTraceToLinalgPatterns(patterns, *lowering, *scatter);
    // Partial: func, and whatever else surrounds the trace ops, stays. A
    // trace op no pattern converts fails the pass with an error at the op.
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      return signalPassFailure();

    WalkResult result = getOperation()->walk([](Operation *op) {
      dropTraceAttrs(op);
      return failed(verifyNoTraceAttrs(op)) ? WalkResult::interrupt()
                                            : WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace
