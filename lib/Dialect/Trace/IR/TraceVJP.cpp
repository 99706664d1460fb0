//===- TraceVJP.cpp - reverse-mode derivative rules of the trace ops ------===//
//
// `VJPOpInterface::buildVJP` of every differentiable op: given the cotangent
// `g` of the op's result, emit trace ops computing the cotangent of each
// operand. Conventions follow PyTorch's derivatives.yaml (ties of max/min,
// pow at zero, abs at zero), so gradients compare against torch.autograd.
//
// Common to every rule: a result that is not a float tensor (integer or bool
// arithmetic, a float-to-int convert) passes no gradient, and neither does an
// i1 operand (the condition of select). Such operands get a null cotangent.
//
// Every op a rule creates is created in a statement of its own, in the order
// it should appear: C++ leaves the order in which a call's arguments are
// evaluated unspecified, so `e.mul(e.full(..), e.neg(..))` would emit the
// full and the neg in an order that differs between compilers (and the
// schedule and live bytes of @f_grad follow op order).
//
//===----------------------------------------------------------------------===//

#include "trace/Dialect/Trace/IR/TraceOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"

using namespace mlir;
using namespace mlir::trace;

namespace {

constexpr double kTwoOverSqrtPi = 1.12837916709551257390; // 2 / sqrt(pi)

/// Builds trace ops at one location; the rules below read as formulas.
struct Emitter {
  OpBuilder &b;
  Location loc;

  Value add(Value x, Value y) { return AddOp::create(b, loc, x, y); }
  Value sub(Value x, Value y) { return SubOp::create(b, loc, x, y); }
  Value mul(Value x, Value y) { return MulOp::create(b, loc, x, y); }
  Value div(Value x, Value y) { return DivOp::create(b, loc, x, y); }
  Value neg(Value x) { return NegOp::create(b, loc, x); }
  Value select(Value c, Value x, Value y) {
    return SelectOp::create(b, loc, c, x, y);
  }
  Value cmp(ComparisonDirection dir, Value x, Value y) {
    return CompareOp::create(b, loc, dir, x, y);
  }

  /// A tensor of `like`'s type filled with `value`.
  Value full(Value like, double value) {
    auto type = cast<RankedTensorType>(like.getType());
    return FullOp::create(b, loc, type,
                          b.getFloatAttr(type.getElementType(), value));
  }
  Value zerosLike(Value like) { return full(like, 0.0); }
  /// Zeros of `like`'s element type in `shape`.
  Value zeros(Value like, ArrayRef<int64_t> shape) {
    auto type = cast<RankedTensorType>(like.getType()).clone(shape);
    return FullOp::create(b, loc, type,
                          b.getFloatAttr(type.getElementType(), 0.0));
  }

  Value reshape(Value x, ArrayRef<int64_t> shape) {
    auto type = cast<RankedTensorType>(x.getType());
    if (type.getShape() == shape)
      return x;
    return ReshapeOp::create(b, loc, type.clone(shape), x);
  }

  /// Sums a cotangent of `broadcast`'s result down to its operand's shape:
  /// over the new dims and over the operand's size-1 dims that were
  /// stretched, then a reshape drops the summed dims.
  Value sumToOperand(Value g, BroadcastInDimOp broadcast) {
    RankedTensorType operandType = broadcast.getOperand().getType();
    RankedTensorType resultType = broadcast.getType();
    ArrayRef<int64_t> dims = broadcast.getBroadcastDimensions();
    SmallVector<int64_t> summed;
    for (int64_t d = 0, e = resultType.getRank(); d < e; ++d) {
      const int64_t *it = llvm::find(dims, d);
      if (it == dims.end() ||
          (operandType.getDimSize(it - dims.begin()) == 1 &&
           resultType.getDimSize(d) != 1))
        summed.push_back(d);
    }
    if (!summed.empty())
      g = ReduceSumOp::create(b, loc, g, summed);
    return reshape(g, operandType.getShape());
  }

  /// Broadcasts `r`, the result of a reduction of a tensor of `type` over
  /// `reduced` (with or without keepdim), back to `type`.
  Value broadcastBack(Value r, ArrayRef<int64_t> reduced, bool keepdim,
                      RankedTensorType type) {
    SmallVector<int64_t> dims;
    for (int64_t d = 0, e = type.getRank(); d < e; ++d)
      if (keepdim || !llvm::is_contained(reduced, d))
        dims.push_back(d);
    return BroadcastInDimOp::create(b, loc, type.clone(type.getElementType()),
                                    r, dims);
  }

  /// Concatenates `before` and `after` zeros around `x` along `dim`.
  Value pad(Value x, int64_t dim, int64_t before, int64_t after) {
    auto shape = llvm::to_vector(cast<RankedTensorType>(x.getType()).getShape());
    SmallVector<Value> parts;
    Value beforeZeros;
    if (before > 0) {
      shape[dim] = before;
      parts.push_back(beforeZeros = zeros(x, shape));
    }
    parts.push_back(x);
    if (after > 0) {
      shape[dim] = after;
      parts.push_back(after == before ? beforeZeros : zeros(x, shape));
    }
    if (parts.size() == 1)
      return x;
    return ConcatenateOp::create(b, loc, parts, dim);
  }

  /// Swaps the last two dims (the matrix transpose of a batched matmul).
  Value transposeLast2(Value x) {
    int64_t rank = cast<RankedTensorType>(x.getType()).getRank();
    auto perm = llvm::to_vector(llvm::seq<int64_t>(0, rank));
    std::swap(perm[rank - 1], perm[rank - 2]);
    return TransposeOp::create(b, loc, x, perm);
  }
};

bool isFloatTensor(Value v) {
  return isa<FloatType>(cast<ShapedType>(v.getType()).getElementType());
}

/// Runs `rule(emitter, g)` for an op whose single result has cotangent
/// `cotangents[0]`; the rule pushes one cotangent per operand. An absent or
/// non-float cotangent gives every operand a null cotangent.
template <typename Rule>
LogicalResult vjp(Operation *op, OpBuilder &builder, ValueRange cotangents,
                  SmallVectorImpl<Value> &operandCotangents, Rule rule) {
  Value g = cotangents.empty() ? Value() : cotangents.front();
  if (!g || !isFloatTensor(g)) {
    operandCotangents.append(op->getNumOperands(), Value());
    return success();
  }
  Emitter e{builder, op->getLoc()};
  size_t before = operandCotangents.size();
  rule(e, g);
  if (operandCotangents.size() - before != op->getNumOperands())
    return op->emitOpError("VJP rule produced ")
           << operandCotangents.size() - before << " cotangents for "
           << op->getNumOperands() << " operands";
  return success();
}

} // namespace

// The rules, one per op; `g` is the result's cotangent, `x`/`a`/`b` the
// operands, `y` the result.

#define TRACE_VJP(OP)                                                          \
  LogicalResult OP::buildVJP(OpBuilder &builder, ValueRange cotangents,         \
                             SmallVectorImpl<Value> &out)

/// A unary rule: BODY computes `dx` from `g`, `x` and `y`, one created op
/// per statement.
#define TRACE_UNARY_VJP(OP, BODY)                                              \
  TRACE_VJP(OP) {                                                              \
    return vjp(*this, builder, cotangents, out, [&](Emitter &e, Value g) {     \
      [[maybe_unused]] Value x = getOperand(), y = getResult();                \
      Value dx;                                                                \
      BODY;                                                                    \
      out.push_back(dx);                                                       \
    });                                                                        \
  }

//===----------------------------------------------------------------------===//
// Unary elementwise
//===----------------------------------------------------------------------===//

// neg: dx = -g
TRACE_UNARY_VJP(NegOp, dx = e.neg(g))
// abs: dx = g * sign(x), sign(0) = 0 (torch's sgn): selects, no sign op.
TRACE_UNARY_VJP(AbsOp, {
  Value zeros = e.zerosLike(x);
  Value positive = e.cmp(ComparisonDirection::GT, x, zeros);
  Value negative = e.cmp(ComparisonDirection::LT, x, zeros);
  Value negated = e.neg(g);
  Value ifNotPositive = e.select(negative, negated, zeros);
  dx = e.select(positive, g, ifNotPositive);
})
// exp: dx = g * y
TRACE_UNARY_VJP(ExpOp, dx = e.mul(g, y))
// expm1: dx = g * (y + 1)
TRACE_UNARY_VJP(Expm1Op, {
  Value one = e.full(y, 1.0);
  Value ey = e.add(y, one);
  dx = e.mul(g, ey);
})
// log1p: dx = g / (1 + x)
TRACE_UNARY_VJP(Log1pOp, {
  Value one = e.full(x, 1.0);
  Value shifted = e.add(x, one);
  dx = e.div(g, shifted);
})
// log: dx = g / x
TRACE_UNARY_VJP(LogOp, dx = e.div(g, x))
// sin: dx = g * cos(x)
TRACE_UNARY_VJP(SinOp, {
  Value cos = CosOp::create(builder, getLoc(), x);
  dx = e.mul(g, cos);
})
// cos: dx = -(g * sin(x))
TRACE_UNARY_VJP(CosOp, {
  Value sin = SinOp::create(builder, getLoc(), x);
  Value product = e.mul(g, sin);
  dx = e.neg(product);
})
// tanh: dx = g * (1 - y^2)
TRACE_UNARY_VJP(TanhOp, {
  Value one = e.full(y, 1.0);
  Value squared = e.mul(y, y);
  Value slope = e.sub(one, squared);
  dx = e.mul(g, slope);
})
// sqrt: dx = g / (2 y)
TRACE_UNARY_VJP(SqrtOp, {
  Value twice = e.add(y, y);
  dx = e.div(g, twice);
})
// rsqrt: dx = g * (-1/2 y^3)
TRACE_UNARY_VJP(RsqrtOp, {
  Value half = e.full(y, -0.5);
  Value squared = e.mul(y, y);
  Value cubed = e.mul(y, squared);
  Value slope = e.mul(half, cubed);
  dx = e.mul(g, slope);
})
// erf: dx = g * 2/sqrt(pi) * exp(-x^2)
TRACE_UNARY_VJP(ErfOp, {
  Value scale = e.full(x, kTwoOverSqrtPi);
  Value squared = e.mul(x, x);
  Value negated = e.neg(squared);
  Value exp = ExpOp::create(builder, getLoc(), negated);
  Value slope = e.mul(scale, exp);
  dx = e.mul(g, slope);
})
// logistic: dx = g * y * (1 - y)
TRACE_UNARY_VJP(LogisticOp, {
  Value one = e.full(y, 1.0);
  Value complement = e.sub(one, y);
  Value slope = e.mul(y, complement);
  dx = e.mul(g, slope);
})

#undef TRACE_UNARY_VJP

//===----------------------------------------------------------------------===//
// Binary elementwise
//===----------------------------------------------------------------------===//

/// A binary rule: BODY computes `da` and `db` from `g`, `a`, `b` and `y`,
/// one created op per statement.
#define TRACE_BINARY_VJP(OP, BODY)                                             \
  TRACE_VJP(OP) {                                                              \
    return vjp(*this, builder, cotangents, out, [&](Emitter &e, Value g) {     \
      [[maybe_unused]] Value a = getLhs(), b = getRhs(), y = getResult();      \
      Value da, db;                                                            \
      BODY;                                                                    \
      out.push_back(da);                                                       \
      out.push_back(db);                                                       \
    });                                                                        \
  }

// add: da = g, db = g
TRACE_BINARY_VJP(AddOp, da = db = g)
// sub: da = g, db = -g
TRACE_BINARY_VJP(SubOp, {
  da = g;
  db = e.neg(g);
})
// mul: da = g * b, db = g * a
TRACE_BINARY_VJP(MulOp, {
  da = e.mul(g, b);
  db = e.mul(g, a);
})
// div: da = g / b, db = -g * ((a / b) / b) (torch's form; a / b is y)
TRACE_BINARY_VJP(DivOp, {
  da = e.div(g, b);
  Value negated = e.neg(g);
  Value quotient = e.div(y, b);
  db = e.mul(negated, quotient);
})

// atan2, y = atan2(a, b) (torch's atan2_backward): with r = a^2 + b^2,
//   da = g * (b / r), db = g * (-a / r)
TRACE_BINARY_VJP(Atan2Op, {
  Value aa = e.mul(a, a);
  Value bb = e.mul(b, b);
  Value r = e.add(aa, bb);
  Value bOverR = e.div(b, r);
  da = e.mul(g, bOverR);
  Value negated = e.neg(a);
  Value aOverR = e.div(negated, r);
  db = e.mul(g, aOverR);
})

// rem, y = fmod(a, b) (torch's fmod backward): with q = a / b,
//   da = g, db = -g * trunc(q), trunc(q) = q < 0 ? ceil(q) : floor(q)
TRACE_BINARY_VJP(RemOp, {
  da = g;
  Value q = e.div(a, b);
  Value zero = e.zerosLike(q);
  Value negative = e.cmp(ComparisonDirection::LT, q, zero);
  Value up = CeilOp::create(e.b, e.loc, q);
  Value down = FloorOp::create(e.b, e.loc, q);
  Value whole = e.select(negative, up, down);
  Value scaled = e.mul(g, whole);
  db = e.neg(scaled);
})

#undef TRACE_BINARY_VJP

// pow, y = a^b (torch's pow_backward_self / pow_backward_exponent):
//   da = b == 0 ? 0 : g * b * a^(b - 1)
//   db = (a == 0 && b >= 0) ? 0 : g * y * log(a)
TRACE_VJP(PowOp) {
  return vjp(*this, builder, cotangents, out, [&](Emitter &e, Value g) {
    Value a = getLhs(), b = getRhs(), y = getResult();
    Value zeros = e.zerosLike(g);
    Value one = e.full(b, 1.0);
    Value bm1 = e.sub(b, one);
    Value powm1 = PowOp::create(builder, getLoc(), a, bm1);
    Value bZero = e.cmp(ComparisonDirection::EQ, b, zeros);
    Value slope = e.mul(b, powm1);
    Value product = e.mul(g, slope);
    out.push_back(e.select(bZero, zeros, product));
    Value log = LogOp::create(builder, getLoc(), a);
    Value ylog = e.mul(y, log);
    Value db = e.mul(g, ylog);
    Value aZero = e.cmp(ComparisonDirection::EQ, a, zeros);
    Value bNonNegative = e.cmp(ComparisonDirection::GE, b, zeros);
    Value atZero = e.select(bNonNegative, zeros, db);
    out.push_back(e.select(aZero, atZero, db));
  });
}

/// maximum / minimum (torch's max/min backward): a tie splits g in halves;
/// the operand that loses gets 0. With a NaN no comparison holds and both
/// operands get g, as in torch.
///   t = a == b ? g / 2 : g;  da = a loses ? 0 : t;  db = b loses ? 0 : t
static void minMaxVJP(Emitter &e, Value g, Value a, Value b,
                      ComparisonDirection aLoses, ComparisonDirection bLoses,
                      SmallVectorImpl<Value> &out) {
  Value zeros = e.zerosLike(g);
  Value tie = e.cmp(ComparisonDirection::EQ, a, b);
  Value half = e.full(g, 0.5);
  Value halved = e.mul(g, half);
  Value t = e.select(tie, halved, g);
  Value aLost = e.cmp(aLoses, a, b);
  out.push_back(e.select(aLost, zeros, t));
  Value bLost = e.cmp(bLoses, a, b);
  out.push_back(e.select(bLost, zeros, t));
}

// maximum: a loses where a < b, b where a > b.
TRACE_VJP(MaximumOp) {
  return vjp(*this, builder, cotangents, out, [&](Emitter &e, Value g) {
    minMaxVJP(e, g, getLhs(), getRhs(), ComparisonDirection::LT,
              ComparisonDirection::GT, out);
  });
}

// minimum: a loses where a > b, b where a < b.
TRACE_VJP(MinimumOp) {
  return vjp(*this, builder, cotangents, out, [&](Emitter &e, Value g) {
    minMaxVJP(e, g, getLhs(), getRhs(), ComparisonDirection::GT,
              ComparisonDirection::LT, out);
  });
}

//===----------------------------------------------------------------------===//
// Select, convert
//===----------------------------------------------------------------------===//

// select: dcond = none, don_true = c ? g : 0, don_false = c ? 0 : g
TRACE_VJP(SelectOp) {
  return vjp(*this, builder, cotangents, out, [&](Emitter &e, Value g) {
    Value zeros = e.zerosLike(g);
    out.push_back(Value());
    out.push_back(e.select(getCond(), g, zeros));
    out.push_back(e.select(getCond(), zeros, g));
  });
}

// convert: float -> float passes g back converted to the source type;
// anything from or to an integer or bool type passes nothing.
TRACE_VJP(ConvertOp) {
  return vjp(*this, builder, cotangents, out, [&](Emitter &e, Value g) {
    if (!isFloatTensor(getOperand())) {
      out.push_back(Value());
      return;
    }
    out.push_back(ConvertOp::create(builder, getLoc(),
                                    getOperand().getType(), g));
  });
}

//===----------------------------------------------------------------------===//
// Shape ops
//===----------------------------------------------------------------------===//

// broadcast_in_dim: dx = reshape(reduce_sum(g, new and stretched dims))
TRACE_VJP(BroadcastInDimOp) {
  return vjp(*this, builder, cotangents, out, [&](Emitter &e, Value g) {
    out.push_back(e.sumToOperand(g, *this));
  });
}

// reshape: dx = reshape(g, shape(x))
TRACE_VJP(ReshapeOp) {
  return vjp(*this, builder, cotangents, out, [&](Emitter &e, Value g) {
    out.push_back(e.reshape(g, getOperand().getType().getShape()));
  });
}

// transpose: dx = transpose(g, inverse(perm))
TRACE_VJP(TransposeOp) {
  return vjp(*this, builder, cotangents, out, [&](Emitter &e, Value g) {
    ArrayRef<int64_t> perm = getPermutation();
    SmallVector<int64_t> inverse(perm.size());
    for (auto [i, p] : llvm::enumerate(perm))
      inverse[p] = i;
    out.push_back(TransposeOp::create(builder, getLoc(), g, inverse));
  });
}

// slice: dx = g scattered into zeros of x's shape, one dim at a time. A
// stride s spreads the m elements s apart: reshape [m] -> [m, 1],
// concatenate zeros [m, s - 1], reshape to [m * s], keep the first
// (m - 1) * s + 1; then zeros are concatenated before `start` and after.
TRACE_VJP(SliceOp) {
  return vjp(*this, builder, cotangents, out, [&](Emitter &e, Value g) {
    RankedTensorType operandType = getOperand().getType();
    if (getType().getNumElements() == 0) {
      out.push_back(e.zeros(g, operandType.getShape()));
      return;
    }
    Value c = g;
    for (int64_t d = 0, rank = operandType.getRank(); d < rank; ++d) {
      int64_t start = getStartIndices()[d], stride = getStrides()[d];
      auto shape = llvm::to_vector(cast<RankedTensorType>(c.getType()).getShape());
      int64_t m = shape[d];
      if (stride > 1 && m > 1) {
        SmallVector<int64_t> split(shape);
        split.insert(split.begin() + d + 1, 1);
        c = e.reshape(c, split);
        c = e.pad(c, d + 1, 0, stride - 1);
        SmallVector<int64_t> spread(shape);
        spread[d] = m * stride;
        c = e.reshape(c, spread);
        SmallVector<int64_t> starts(rank, 0), limits(spread), strides(rank, 1);
        limits[d] = (m - 1) * stride + 1;
        c = SliceOp::create(builder, getLoc(), c, starts, limits, strides);
      }
      int64_t length = cast<RankedTensorType>(c.getType()).getDimSize(d);
      c = e.pad(c, d, start, operandType.getDimSize(d) - start - length);
    }
    out.push_back(c);
  });
}

// concatenate: dx_i = slice of g along `dim` at x_i's offset
TRACE_VJP(ConcatenateOp) {
  return vjp(*this, builder, cotangents, out, [&](Emitter &e, Value g) {
    int64_t dim = getDimension(), offset = 0;
    for (Value input : getInputs()) {
      auto type = cast<RankedTensorType>(input.getType());
      SmallVector<int64_t> starts(type.getRank(), 0),
          limits(getType().getShape()), strides(type.getRank(), 1);
      starts[dim] = offset;
      offset += type.getDimSize(dim);
      limits[dim] = offset;
      out.push_back(
          SliceOp::create(builder, getLoc(), g, starts, limits, strides));
    }
  });
}

//===----------------------------------------------------------------------===//
// Reductions and matmul
//===----------------------------------------------------------------------===//

// reduce_sum: dx = broadcast g back over the reduced dims
TRACE_VJP(ReduceSumOp) {
  return vjp(*this, builder, cotangents, out, [&](Emitter &e, Value g) {
    out.push_back(e.broadcastBack(g, getDimensions(), getKeepdim(),
                                  getOperand().getType()));
  });
}

// reduce_max (torch.amax): g is shared evenly among the maximal elements.
//   mask = x == broadcast(y);  dx = mask * broadcast(g / sum(mask))
TRACE_VJP(ReduceMaxOp) {
  return vjp(*this, builder, cotangents, out, [&](Emitter &e, Value g) {
    RankedTensorType type = getOperand().getType();
    auto back = [&](Value r) {
      return e.broadcastBack(r, getDimensions(), getKeepdim(), type);
    };
    Value maxima = back(getResult());
    Value isMax = e.cmp(ComparisonDirection::EQ, getOperand(), maxima);
    Value mask = ConvertOp::create(builder, getLoc(), type, isMax);
    Value count = ReduceSumOp::create(builder, getLoc(), mask, getDimensions(),
                                      getKeepdim());
    Value share = e.div(g, count);
    Value spread = back(share);
    out.push_back(e.mul(mask, spread));
  });
}

// matmul: da = g @ b^T, db = a^T @ g (transposes of the last two dims)
TRACE_VJP(MatmulOp) {
  return vjp(*this, builder, cotangents, out, [&](Emitter &e, Value g) {
    Value rhsT = e.transposeLast2(getRhs());
    out.push_back(MatmulOp::create(builder, getLoc(), g, rhsT));
    Value lhsT = e.transposeLast2(getLhs());
    out.push_back(MatmulOp::create(builder, getLoc(), lhsT, g));
  });
}

//===----------------------------------------------------------------------===//
// Convolution and reverse
//===----------------------------------------------------------------------===//

namespace {

/// Permutes `x`'s dims: result dim i is x's dim perm[i].
Value permute(Emitter &e, Value x, ArrayRef<int64_t> perm) {
  return TransposeOp::create(e.b, e.loc, x, perm);
}

/// The identity permutation of `rank` dims with `a` and `b` exchanged.
SmallVector<int64_t> swapped(int64_t rank, int64_t a, int64_t b) {
  auto perm = llvm::to_vector(llvm::seq<int64_t>(0, rank));
  std::swap(perm[a], perm[b]);
  return perm;
}

/// Regroups `x` = [A, G*B, rest...] into [B, G*A, rest...]:
/// `out[b, g*A + a] = x[a, g*B + b]`, dim 0 and the group's dims exchanged.
Value swapWithinGroups(Emitter &e, Value x, int64_t groups) {
  auto shape = llvm::to_vector(cast<RankedTensorType>(x.getType()).getShape());
  int64_t rank = shape.size();
  if (groups == 1)
    return permute(e, x, swapped(rank, 0, 1));
  int64_t a = shape[0], b = shape[1] / groups;
  SmallVector<int64_t> split = {a, groups, b};
  split.append(shape.begin() + 2, shape.end());
  Value grouped = e.reshape(x, split);
  Value moved = permute(e, grouped, swapped(rank + 1, 0, 2));
  SmallVector<int64_t> merged = {b, groups * a};
  merged.append(shape.begin() + 2, shape.end());
  return e.reshape(moved, merged);
}

} // namespace

// convolution (XLA's rules). Per spatial dim, with s the stride, r the
// kernel dilation, l the input dilation, [lo, hi] the padding, K the
// dilated kernel (k - 1) r + 1 and rem what the last window leaves of the
// padded input ((P - K) mod s):
//   dx = conv(g, reverse(regroup(w)), strides = l, lhs_dilation = s,
//             rhs_dilation = r, padding = [K - 1 - lo, K - 1 - hi + rem])
//        (a transposed convolution: g spread s apart, the kernel's in and
//        out channels exchanged per group and its window reversed);
//   dw = conv(regroup(x), transpose(g), strides = r, lhs_dilation = l,
//             rhs_dilation = s, padding = [lo, hi - rem]), transposed back
//        (a correlation of x with g: batch and channels exchanged, the
//        groups kept, so each output feature sums over the batch).
TRACE_VJP(ConvolutionOp) {
  return vjp(*this, builder, cotangents, out, [&](Emitter &e, Value g) {
    RankedTensorType lhsType = getLhs().getType();
    RankedTensorType rhsType = getRhs().getType();
    int64_t spatial = getNumSpatialDims(), rank = spatial + 2;
    int64_t groups = getGroups();
    ArrayRef<int64_t> strides = getStrides(), padding = getPadding();
    ArrayRef<int64_t> lhsDilation = getLhsDilation();
    ArrayRef<int64_t> rhsDilation = getRhsDilation();
    SmallVector<int64_t> inputPadding, kernelPadding;
    for (int64_t d = 0; d < spatial; ++d) {
      int64_t in = lhsType.getDimSize(d + 2);
      int64_t lo = padding[2 * d], hi = padding[2 * d + 1];
      int64_t padded = (in - 1) * lhsDilation[d] + 1 + lo + hi;
      int64_t window = (rhsType.getDimSize(d + 2) - 1) * rhsDilation[d] + 1;
      int64_t rem = (padded - window) % strides[d];
      inputPadding.append({window - 1 - lo, window - 1 - hi + rem});
      kernelPadding.append({lo, hi - rem});
    }

    Value flipped = ConvolutionOp::buildTransposedKernel(builder, getLoc(),
                                                         getRhs(), groups);
    out.push_back(ConvolutionOp::create(
        builder, getLoc(), g, flipped, /*strides=*/lhsDilation, inputPadding,
        /*lhs_dilation=*/strides, rhsDilation, groups));

    Value lhsT = swapWithinGroups(e, getLhs(), groups);
    Value gT = permute(e, g, swapped(rank, 0, 1));
    Value kernelT = ConvolutionOp::create(
        builder, getLoc(), lhsT, gT, /*strides=*/rhsDilation, kernelPadding,
        lhsDilation, /*rhs_dilation=*/strides, groups);
    out.push_back(permute(e, kernelT, swapped(rank, 0, 1)));
  });
}

// reverse: dx = reverse(g) over the same dims
TRACE_VJP(ReverseOp) {
  return vjp(*this, builder, cotangents, out, [&](Emitter &e, Value g) {
    out.push_back(ReverseOp::create(builder, getLoc(), g, getDimensions()));
  });
}

// gather: doperand = scatter_add(g into zeros, indices); the indices get
// nothing. Repeated indices sum, as torch's gather backward does.
TRACE_VJP(GatherOp) {
  return vjp(*this, builder, cotangents, out, [&](Emitter &e, Value g) {
    Value zeros = e.zerosLike(getOperand());
    out.push_back(ScatterAddOp::create(builder, getLoc(), zeros, getIndices(),
                                       g, getDimension()));
    out.push_back(Value());
  });
}

// scatter_add: doperand = g, dupdates = gather(g, indices).
TRACE_VJP(ScatterAddOp) {
  return vjp(*this, builder, cotangents, out, [&](Emitter &e, Value g) {
    out.push_back(g);
    out.push_back(Value());
    out.push_back(
        GatherOp::create(builder, getLoc(), g, getIndices(), getDimension()));
  });
}

#undef TRACE_VJP
