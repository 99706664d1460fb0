//===- Sources.cpp - trace source ops to linalg ---------------------------===//
//
// The source ops, which make a tensor from their attributes alone or from
// a seed: `trace.constant`, `trace.full`, `trace.iota`, and
// `trace.random_uniform` with the Philox4x32-10 emitter it is built from.
//
//===----------------------------------------------------------------------===//

#include "PopulatePatterns.h"
#include "Utils.h"

#include "trace/Dialect/Trace/IR/TraceOps.h"
#include "trace/Support/Philox.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/DialectConversion.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"

#include <array>
#include <cmath>

using namespace mlir;
using namespace mlir::trace;
using namespace mlir::trace::trace_to_linalg;

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
// Sources
//===----------------------------------------------------------------------===//

namespace {

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

} // namespace

void mlir::trace::trace_to_linalg::populateSourcePatterns(
    RewritePatternSet &patterns) {
  patterns.add<ConstantLowering, FullLowering, IotaLowering,
               RandomUniformLowering>(patterns.getContext());
}
