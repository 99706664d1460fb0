//===- TensorBuilder.h - trace primitives with PyTorch semantics -*- C++ -*-===//
//
// Builds trace ops the way PyTorch's operators behave: numpy broadcasting,
// type promotion between tensors and Python scalars, negative dims, and the
// composites (linear, layer_norm, gelu, softmax, cross_entropy, ...) written
// out as trace primitives. The TorchScript importer maps each aten op onto
// one call here; the class has no LibTorch dependency, so it builds with
// MLIR's flags (no exceptions) and is usable from C++ tests and other
// front ends.
//
// Errors (incompatible shapes, a dim out of range) are reported with
// `emitError` at the current location and the call returns a null Value;
// no op is created that would fail verification or type inference.
//
//===----------------------------------------------------------------------===//

#ifndef TRACE_IMPORTER_TENSORBUILDER_H
#define TRACE_IMPORTER_TENSORBUILDER_H

#include "trace/Dialect/Trace/IR/TraceOps.h"

#include "mlir/IR/Builders.h"

#include <cmath>
#include <functional>
#include <limits>
#include <optional>

namespace mlir::trace {

/// A Python number (or a 0-d tensor known at compile time).
struct Scalar {
  enum class Kind { Bool, Int, Float };
  Kind kind = Kind::Float;
  double f = 0.0;
  int64_t i = 0;

  static Scalar ofInt(int64_t v) { return {Kind::Int, double(v), v}; }
  static Scalar ofFloat(double v) {
    return {Kind::Float, v, saturateToInt64(v)};
  }
  static Scalar ofBool(bool v) { return {Kind::Bool, double(v), int64_t(v)}; }
  double asDouble() const { return kind == Kind::Float ? f : double(i); }

  /// A double as int64, truncated toward zero, saturated at int64's range and
  /// 0 for NaN: a plain cast of -inf (masked_fill's usual value) or of
  /// anything out of range is undefined behaviour (found by UBSan).
  static int64_t saturateToInt64(double v) {
    if (std::isnan(v))
      return 0;
    if (v <= -9223372036854775808.0)
      return std::numeric_limits<int64_t>::min();
    if (v >= 9223372036854775808.0)
      return std::numeric_limits<int64_t>::max();
    return int64_t(v);
  }
};

/// An operand of an elementwise op: a tensor or a scalar.
struct Operand {
  Value tensor;
  std::optional<Scalar> scalar;
  Operand(Value v) : tensor(v) {}
  Operand(Scalar s) : scalar(s) {}
};

class TensorBuilder {
public:
  /// The elementwise functions of one tensor. Exp2 and the ones after it
  /// are formulas of the others (unaryComposite), written so that their
  /// values and gradients match torch's at zeros, ties and infinities.
  enum class Unary { Neg, Abs, Exp, Log, Sin, Cos, Tanh, Sqrt, Rsqrt, Erf,
                     Sigmoid, Relu, Silu, Square, Reciprocal, Log1p, Expm1,
                     Floor, Ceil, Round, Sign, Exp2, Log2, Log10, Sinh, Cosh,
                     Tan, Trunc, Frac, Atan, Asin, Acos, Asinh, Acosh, Atanh };
  enum class Binary { Add, Sub, Mul, Div, Pow, Max, Min };

  /// `seed` returns the rank-0 i64 seed of the random ops, materialized where
  /// the builder's insertion point is (it may be captured into a region).
  TensorBuilder(OpBuilder &builder, std::function<Value()> seed)
      : b(builder), seedFn(std::move(seed)) {}

  /// Location of the ops built next (and of their errors).
  void setLoc(Location l) { loc = l; }
  Location getLoc() const { return loc; }
  OpBuilder &getBuilder() { return b; }

  /// Text appended to every error (the importer names the module).
  void setErrorSuffix(std::string suffix) { errorSuffix = std::move(suffix); }

  /// Emits an error at the current location; returns a null Value.
  Value error(const Twine &message);

  // Types -------------------------------------------------------------------
  static RankedTensorType typeOf(Value v) {
    return cast<RankedTensorType>(v.getType());
  }
  /// The element type torch computes `a op b` in (bool < int < float).
  Type promote(const Operand &a, const Operand &b);
  Type promoteTypes(Type a, Type b);
  /// Element type of a scalar alone: i1, i64 or f32.
  Type scalarType(const Scalar &s);
  /// Floats stay, everything else computes in f32 (torch's int -> float).
  Type floatTypeFor(Type element);
  /// Resolves a possibly negative dim against `rank`; -1 and an error when
  /// out of range.
  int64_t normalizeDim(int64_t dim, int64_t rank);

  // Sources -----------------------------------------------------------------
  Value full(ArrayRef<int64_t> shape, Type element, const Scalar &value);
  Value arange(const Scalar &start, const Scalar &end, const Scalar &step,
               Type element);
  /// Tensor from an operand: a scalar becomes `full` of `shape`/`element`.
  Value materialize(const Operand &x, ArrayRef<int64_t> shape, Type element);

  // Elementwise ---------------------------------------------------------------
  Value convert(Value x, Type element);
  Value unary(Unary kind, Value x);
  Value binary(Binary kind, const Operand &a, const Operand &b);
  Value compare(ComparisonDirection dir, const Operand &a, const Operand &b);
  /// torch.atan2(a, b), in a float type.
  Value atan2(const Operand &a, const Operand &b);
  /// torch.fmod(a, b) of float operands: exact, with the sign of a.
  Value fmod(const Operand &a, const Operand &b);
  /// torch.where(cond, a, b).
  Value where(Value cond, const Operand &a, const Operand &b);
  Value gelu(Value x, bool tanhApproximation);
  /// Training-mode dropout from the Philox op; identity when !train or p == 0.
  Value dropout(Value x, double p, bool train);
  /// torch.clamp: lo where x < lo, then hi where above hi (so hi when
  /// lo > hi), promoting as torch does; NaN stays NaN. At least one bound.
  /// At a scalar bound, `boundsPass` says whether x gets the gradient (not
  /// in PyTorch 2's clamp, hardtanh and relu6); at a tensor bound x and the
  /// bound share it, as PyTorch 2's clamp.Tensor does (maximum/minimum).
  Value clamp(Value x, std::optional<Operand> lo, std::optional<Operand> hi,
              bool boundsPass = false);
  // Activations, as torch.nn.functional computes them.
  /// relu6(x + 3) / 6.
  Value hardsigmoid(Value x);
  /// x * relu6(x + 3) / 6.
  Value hardswish(Value x);
  /// x > 0 ? x : slope * x.
  Value leakyRelu(Value x, const Scalar &slope);
  /// x > 0 ? scale * x : scale * alpha * (exp(inputScale * x) - 1).
  Value elu(Value x, const Scalar &alpha, const Scalar &scale,
            const Scalar &inputScale);
  /// beta * x > threshold ? x : log(1 + exp(beta * x)) / beta.
  Value softplus(Value x, const Scalar &beta, const Scalar &threshold);
  /// x * tanh(softplus(x)).
  Value mish(Value x);

  // Shapes --------------------------------------------------------------------
  std::optional<SmallVector<int64_t>> broadcastShapes(ArrayRef<int64_t> a,
                                                      ArrayRef<int64_t> b);
  /// numpy-style broadcast (dims aligned from the right) to `shape`.
  Value broadcastTo(Value x, ArrayRef<int64_t> shape);
  /// view/reshape: at most one -1.
  Value reshape(Value x, ArrayRef<int64_t> sizes);
  Value permute(Value x, ArrayRef<int64_t> perm);
  Value swapDims(Value x, int64_t d0, int64_t d1);
  /// x[start:end:step] along `dim`, with Python's clamping of start and end.
  Value slice(Value x, int64_t dim, std::optional<int64_t> start,
              std::optional<int64_t> end, int64_t step);
  /// x.select(dim, index): the slice without the dim.
  Value select(Value x, int64_t dim, int64_t index);
  Value unsqueeze(Value x, int64_t dim);
  /// Drops size-1 dims: `dims` ones only, or all when empty.
  Value squeeze(Value x, ArrayRef<int64_t> dims);
  Value flatten(Value x, int64_t startDim, int64_t endDim);
  /// torch.expand: -1 keeps a dim; new leading dims allowed.
  Value expand(Value x, ArrayRef<int64_t> sizes);
  Value concat(ArrayRef<Value> xs, int64_t dim);
  /// Pieces of `sizes` along `dim`.
  std::optional<SmallVector<Value>> split(Value x, ArrayRef<int64_t> sizes,
                                          int64_t dim);
  /// tril (lower) / triu of the last two dims, diagonal offset `k`.
  Value triangle(Value x, int64_t k, bool lower);
  /// reflection_pad (reflect) and replication_pad: `pad` holds (before,
  /// after) pairs from the last dim backwards.
  Value padIndexed(Value x, ArrayRef<int64_t> pad, bool reflect);
  /// torch.Tensor.repeat.
  Value repeat(Value x, ArrayRef<int64_t> repeats);
  /// torch.diagonal: the diagonal of dims `dim1` and `dim2`, last.
  Value diagonal(Value x, int64_t offset, int64_t dim1, int64_t dim2);
  /// torch.slice_scatter: x with x[start:end:step] along `dim` set to src.
  Value sliceScatter(Value x, Value src, int64_t dim,
                     std::optional<int64_t> start, std::optional<int64_t> end,
                     int64_t step);
  /// x[indices] (aten.index.Tensor): a null entry is `:`; integer index
  /// tensors broadcast together. Boolean masks are refused: their result's
  /// size depends on the data.
  Value index(Value x, ArrayRef<Value> indices);
  /// aten.index_put: x with x[indices] set to (or, with `accumulate`,
  /// increased by) `values`. A position written twice without `accumulate`
  /// gets the mean of its values (torch leaves it undefined).
  Value indexPut(Value x, ArrayRef<Value> indices, Value values,
                 bool accumulate);

  // Reductions ----------------------------------------------------------------
  /// Empty `dims` reduces everything.
  Value sum(Value x, ArrayRef<int64_t> dims, bool keepdim,
            std::optional<Type> dtype = std::nullopt);
  Value mean(Value x, ArrayRef<int64_t> dims, bool keepdim,
             std::optional<Type> dtype = std::nullopt);
  Value amax(Value x, ArrayRef<int64_t> dims, bool keepdim);
  Value amin(Value x, ArrayRef<int64_t> dims, bool keepdim);
  /// ~x of an integer tensor, as -1 - x (no overflow at either end).
  Value flipBits(Value x);
  /// The mean of the squared deviations over N - correction (torch.var).
  Value variance(Value x, ArrayRef<int64_t> dims, double correction,
                 bool keepdim);
  /// torch.std: sqrt of the variance, with no gradient where it is 0.
  Value standardDeviation(Value x, ArrayRef<int64_t> dims, double correction,
                          bool keepdim);
  Value logsumexp(Value x, ArrayRef<int64_t> dims, bool keepdim);
  /// torch.cumsum: integers and bools accumulate in int64.
  Value cumsum(Value x, int64_t dim, std::optional<Type> dtype = std::nullopt);
  /// torch.prod over `dims` (all when empty).
  Value prod(Value x, ArrayRef<int64_t> dims, bool keepdim,
             std::optional<Type> dtype = std::nullopt);
  /// max.dim / min.dim: the extreme value and the first index holding it
  /// (NaN counts as extreme); over the flattened tensor without `dim`
  /// (argmax/argmin). Null values after an error.
  std::pair<Value, Value> extremum(Value x, std::optional<int64_t> dim,
                                   bool keepdim, bool isMax);
  /// torch.sort (stable; NaN last, first when descending): the values and
  /// their indices. Compares all pairs along `dim`.
  std::pair<Value, Value> sort(Value x, int64_t dim, bool descending);
  Value softmax(Value x, int64_t dim, bool log);

  // Linear algebra --------------------------------------------------------------
  /// torch.matmul: 1-D operands, batch broadcasting; a weight shared by a
  /// batch multiplies one flattened matrix (one GEMM, and one for its grad).
  Value matmul(Value a, Value b);
  /// x @ w^T + bias, w of shape [out, in].
  Value linear(Value x, Value w, Value bias);
  /// aten::_convolution: `x` [N, C, spatial...] or unbatched [C, ...], `w`
  /// [O, C / groups, kernel...] ([C, O / groups, kernel...] when
  /// `transposed`), `bias` [O] or null. One entry per spatial dim in
  /// `stride`, `dilation` and `outputPadding`; two in `padding` (before,
  /// after). Transposed, the padding and output padding are the
  /// ConvTranspose's (the forward convolution's it inverts).
  Value convolution(Value x, Value w, Value bias, ArrayRef<int64_t> stride,
                    ArrayRef<int64_t> padding, ArrayRef<int64_t> dilation,
                    bool transposed, ArrayRef<int64_t> outputPadding,
                    int64_t groups);
  /// torch.flip.
  Value flip(Value x, ArrayRef<int64_t> dims);

  // Indexing (integer indices, i32 or i64; out of range is clamped by a
  // gather and dropped by a scatter, where torch would raise) -------------
  /// torch.gather: `index` of x's rank, at most x's size off `dim`.
  Value gather(Value x, int64_t dim, Value index);
  /// torch.scatter_add: `src` at least `index`'s size in every dim.
  Value scatterAdd(Value x, int64_t dim, Value index, Value src);
  /// scatter_reduce with reduce "sum" or "mean" (torch's include_self),
  /// and torch.scatter as "replace", where a position written twice gets
  /// the mean of its values (torch leaves it undefined).
  Value scatterReduce(Value x, int64_t dim, Value index, Value src,
                      StringRef reduce, bool includeSelf = true);
  /// torch.index_select: `index` 0-D or 1-D; a gather of the index
  /// broadcast over the other dims.
  Value indexSelect(Value x, int64_t dim, Value index);
  /// x.detach(): the value, through which no gradient flows.
  Value stopGradient(Value x);
  Value stack(ArrayRef<Value> xs, int64_t dim);
  /// upsample_nearest{1,2,3}d and upsample_{linear1d,bilinear2d,
  /// trilinear3d}: x [N, C, spatial...] resized to `outputSize`, PyTorch's
  /// source positions and weights per dim (`scales[d]` > 0: the
  /// scale_factor given, else in / out). Nearest at an integer factor is a
  /// broadcast; otherwise an index_select per tap, weighted.
  enum class Interpolation { Nearest, Linear };
  Value upsample(Value x, ArrayRef<int64_t> outputSize,
                 ArrayRef<double> scales, Interpolation mode,
                 bool alignCorners);

  // Pooling, over the last kernel.size() dims (one entry per spatial dim in
  // every list; an empty stride is the kernel) ------------------------------
  /// max_pool: the max of each window (padded with -inf), taken in the
  /// window's row-major order with a strict >, so that the gradient goes
  /// to the first maximal element, as in PyTorch; NaN wins, as there.
  /// With `indices`, also each maximum's flat index in its input plane
  /// (max_pool's second output, int64).
  Value maxPool(Value x, ArrayRef<int64_t> kernel, ArrayRef<int64_t> stride,
                ArrayRef<int64_t> padding, ArrayRef<int64_t> dilation,
                bool ceilMode, Value *indices = nullptr);
  /// avg_pool: a window sum (a one-channel convolution with a kernel of
  /// ones) times PyTorch's divisor per output position.
  Value avgPool(Value x, ArrayRef<int64_t> kernel, ArrayRef<int64_t> stride,
                ArrayRef<int64_t> padding, bool ceilMode,
                bool countIncludePad, std::optional<int64_t> divisorOverride);
  /// adaptive_avg_pool: per dim, a reshape and a mean where the size
  /// divides, else PyTorch's windows [floor(i n / o), ceil((i + 1) n / o)).
  Value adaptiveAvgPool(Value x, ArrayRef<int64_t> outputSize);

  // Model-level composites -------------------------------------------------------
  Value layerNorm(Value x, ArrayRef<int64_t> normalizedShape, Value weight,
                  Value bias, double eps);
  /// batch_norm over every dim but 1 of `x` [N, C, ...]. In training, with
  /// the batch's statistics; the running ones (null if not tracked) then
  /// come back updated, PyTorch's way (the unbiased variance, weighted by
  /// `momentum`). In eval, with the running statistics.
  struct BatchNorm {
    Value output, runningMean, runningVar;
  };
  BatchNorm batchNorm(Value x, Value weight, Value bias, Value runningMean,
                      Value runningVar, bool training, double momentum,
                      double eps);
  /// group_norm: `x` [N, C, ...] normalized over each group of C / groups
  /// channels and the spatial dims, then a per-channel affine.
  Value groupNorm(Value x, int64_t groups, Value weight, Value bias,
                  double eps);
  /// weight[indices]: an index_select of the rows, [...] -> [..., D]. The
  /// rows picked at `paddingIdx` get no gradient, as in torch.
  Value embedding(Value weight, Value indices,
                  std::optional<int64_t> paddingIdx = std::nullopt);
  /// embedding_bag in mode 0 (sum) or 1 (mean) over 1-D `indices` split
  /// into bags at the sorted `offsets`: a scatter-add of the rows picked
  /// into their bags. An empty bag is zeros, as torch's.
  Value embeddingBag(Value weight, Value indices, Value offsets, int64_t mode,
                     Value perSampleWeights, bool includeLastOffset,
                     std::optional<int64_t> paddingIdx);
  /// reduction: 0 none, 1 mean, 2 sum (torch's Reduction enum).
  Value nllLoss(Value logProbs, Value target, Value weight, int64_t reduction,
                int64_t ignoreIndex, double labelSmoothing = 0.0);
  Value crossEntropy(Value logits, Value target, Value weight,
                     int64_t reduction, int64_t ignoreIndex,
                     double labelSmoothing);

  /// Philox counters used so far by `dropout` (the next op's offset).
  int64_t getRandomOffset() const { return randomOffset; }

private:
  /// Both operands as tensors of their broadcast shape in `element`; null
  /// values after an error.
  std::pair<Value, Value> broadcastOperands(const Operand &x, const Operand &y,
                                            Type element);
  /// The Unary kinds from Exp2 on, as formulas of primitives.
  Value unaryComposite(Unary kind, Value x);
  /// How index and indexPut address x: the indexed dims (in order) moved
  /// first and flattened into `rows` rows, one linear row index per
  /// position of the broadcast index shape, and the kept dims after.
  struct IndexPlan {
    SmallVector<int64_t> dims, perm, indexShape, rest;
    Value linear;
    int64_t rows = 1;
    int64_t before = 0;
    bool adjacent = false;
  };
  FailureOr<IndexPlan> planIndex(Value x, ArrayRef<Value> indices);
  Value sumOrMax(Value x, ArrayRef<int64_t> dims, bool keepdim, bool isMax);
  /// The dims a reduction reduces: all of them when `dims` is empty (as
  /// torch's dim=None), else `dims` normalized.
  std::optional<SmallVector<int64_t>> reductionDims(ArrayRef<int64_t> dims,
                                                    int64_t rank);
  std::optional<SmallVector<int64_t>> normalizeDims(ArrayRef<int64_t> dims,
                                                    int64_t rank);
  /// An i32 or i64 tensor.
  static bool isIndexTensor(Value x);
  /// "a float tensor", "a bool tensor", ...: for errors about indices.
  static std::string describeElements(Value x);
  /// A 1-D i64 constant.
  Value indexConstant(ArrayRef<int64_t> values);
  /// A float constant of `type`, `values` rounded to its element type.
  Value floatConstant(RankedTensorType type, ArrayRef<double> values);

  OpBuilder &b;
  std::function<Value()> seedFn;
  Location loc = UnknownLoc::get(b.getContext());
  int64_t randomOffset = 0;
  std::string errorSuffix;
};

} // namespace mlir::trace

#endif // TRACE_IMPORTER_TENSORBUILDER_H
