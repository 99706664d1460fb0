//===- NN.cpp - matrix products, norms, embeddings, losses ----------------===//
//
// The builders of one family (nn: matmul and linear, layer, batch and
// group norms, embedding, nll_loss and cross_entropy), as the importers'
// AtenNN.cpp.
//
//===----------------------------------------------------------------------===//

#include "trace/Importer/TensorBuilder.h"

#include "Detail.h"

#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace mlir::trace;
using namespace mlir::trace::detail;

//===----------------------------------------------------------------------===//
// Linear algebra
//===----------------------------------------------------------------------===//

Value TensorBuilder::matmul(Value x, Value y) {
  RankedTensorType tx = typeOf(x), ty = typeOf(y);
  if (tx.getRank() == 0 || ty.getRank() == 0)
    return error("matmul: both arguments need at least 1 dim");
  Type elt = promote(Operand(x), Operand(y));
  x = convert(x, elt);
  y = convert(y, elt);
  // 1-D operands: a row vector on the left, a column vector on the right,
  // the added dim dropped from the result.
  bool vecL = tx.getRank() == 1, vecR = ty.getRank() == 1;
  if (vecL)
    x = reshape(x, {1, tx.getDimSize(0)});
  if (vecR)
    y = reshape(y, {ty.getDimSize(0), 1});
  tx = typeOf(x);
  ty = typeOf(y);
  int64_t k = tx.getShape().back();
  if (k != ty.getDimSize(ty.getRank() - 2))
    return error("matmul: shapes " + shapeString(tx.getShape()) + " and " +
                 shapeString(ty.getShape()) + " cannot be multiplied (" +
                 Twine(k) + " vs " + Twine(ty.getDimSize(ty.getRank() - 2)) +
                 ")");
  int64_t n = ty.getShape().back();
  SmallVector<int64_t> outShape;
  Value result;
  if (ty.getRank() == 2) {
    // [..., M, K] x [K, N]: one [B*M, K] x [K, N] product.
    ArrayRef<int64_t> lead = tx.getShape().drop_back();
    int64_t rows = numElements(lead);
    Value flat = reshape(x, {rows, k});
    auto resType = RankedTensorType::get({rows, n}, elt);
    result = MatmulOp::create(b, loc, resType, flat, y);
    outShape.append(lead.begin(), lead.end());
    outShape.push_back(n);
    result = reshape(result, outShape);
  } else {
    ArrayRef<int64_t> bx = tx.getShape().drop_back(2);
    ArrayRef<int64_t> by = ty.getShape().drop_back(2);
    auto batch = broadcastShapes(bx, by);
    if (!batch)
      return Value();
    int64_t m = tx.getDimSize(tx.getRank() - 2);
    SmallVector<int64_t> sx(*batch), sy(*batch);
    sx.append({m, k});
    sy.append({k, n});
    Value lhs = broadcastTo(x, sx), rhs = broadcastTo(y, sy);
    if (!lhs || !rhs)
      return Value();
    outShape.assign(batch->begin(), batch->end());
    outShape.append({m, n});
    result = MatmulOp::create(b, loc, RankedTensorType::get(outShape, elt),
                              lhs, rhs);
  }
  if (!result || (!vecL && !vecR))
    return result;
  SmallVector<int64_t> squeezed(outShape);
  if (vecR)
    squeezed.pop_back();
  if (vecL)
    squeezed.erase(squeezed.end() - (vecR ? 1 : 2));
  return reshape(result, squeezed);
}

Value TensorBuilder::linear(Value x, Value w, Value bias) {
  if (typeOf(w).getRank() != 2)
    return error("linear: the weight must be 2-D, got shape " +
                 shapeString(typeOf(w).getShape()));
  Value wt = swapDims(w, 0, 1);
  Value y = matmul(x, wt);
  if (!y || !bias)
    return y;
  return binary(Binary::Add, y, bias);
}

//===----------------------------------------------------------------------===//
// Model-level composites
//===----------------------------------------------------------------------===//

Value TensorBuilder::layerNorm(Value x, ArrayRef<int64_t> normalizedShape,
                               Value weight, Value bias, double eps) {
  RankedTensorType type = typeOf(x);
  int64_t n = normalizedShape.size();
  if (n == 0 || n > type.getRank() ||
      type.getShape().take_back(n) != normalizedShape)
    return error("layer_norm: normalized_shape " +
                 shapeString(normalizedShape) +
                 " does not match the trailing dims of input " +
                 shapeString(type.getShape()));
  x = convert(x, floatTypeFor(type.getElementType()));
  SmallVector<int64_t> dims =
      llvm::to_vector(llvm::seq<int64_t>(type.getRank() - n, type.getRank()));
  Value mu = mean(x, dims, /*keepdim=*/true);
  Value centered = binary(Binary::Sub, x, mu);
  Value var = mean(binary(Binary::Mul, centered, centered), dims,
                   /*keepdim=*/true);
  Value rstd = unary(Unary::Rsqrt,
                     binary(Binary::Add, var, Scalar::ofFloat(eps)));
  Value y = binary(Binary::Mul, centered, rstd);
  if (y && weight)
    y = binary(Binary::Mul, y, weight);
  if (y && bias)
    y = binary(Binary::Add, y, bias);
  return y;
}

/// `v` [C] as [C, 1, ...] for `rank`-D tensors [N, C, ...]: a per-channel
/// operand.
static Value perChannel(TensorBuilder &tb, Value v, int64_t rank) {
  SmallVector<int64_t> shape(rank - 1, 1);
  shape[0] = TensorBuilder::typeOf(v).getDimSize(0);
  return tb.reshape(v, shape);
}

TensorBuilder::BatchNorm
TensorBuilder::batchNorm(Value x, Value weight, Value bias, Value runningMean,
                         Value runningVar, bool training, double momentum,
                         double eps) {
  RankedTensorType type = typeOf(x);
  int64_t rank = type.getRank();
  if (rank < 2)
    return {error("batch_norm: needs an input [N, C, ...], got " +
                  shapeString(type.getShape())), {}, {}};
  int64_t channels = type.getDimSize(1);
  if (type.getNumElements() == 0)
    return {error("batch_norm: the input " + shapeString(type.getShape()) +
                  " is empty"), {}, {}};
  for (Value v : {weight, bias, runningMean, runningVar})
    if (v && (typeOf(v).getRank() != 1 || typeOf(v).getDimSize(0) != channels))
      return {error("batch_norm: weight, bias and running statistics must "
                    "have shape [" + Twine(channels) + "], got " +
                    shapeString(typeOf(v).getShape())), {}, {}};
  if (!training && (!runningMean || !runningVar))
    return {error("batch_norm: eval mode needs running_mean and "
                  "running_var"), {}, {}};
  x = convert(x, floatTypeFor(type.getElementType()));
  SmallVector<int64_t> dims = {0};
  for (int64_t d = 2; d < rank; ++d)
    dims.push_back(d);
  BatchNorm result;
  Value centered, rstd;
  if (training) {
    Value mu = mean(x, dims, /*keepdim=*/true);
    centered = binary(Binary::Sub, x, mu);
    Value squares = binary(Binary::Mul, centered, centered);
    Value var = mean(squares, dims, /*keepdim=*/true);
    Value shifted = binary(Binary::Add, var, Scalar::ofFloat(eps));
    rstd = unary(Unary::Rsqrt, shifted);
    if (runningMean && runningVar) {
      // running = (1 - momentum) running + momentum batch, the variance
      // unbiased (n / (n - 1)), as PyTorch's kernels update them.
      int64_t n = type.getNumElements() / channels;
      Value batchMean = reshape(mu, {channels});
      Value batchVar = reshape(var, {channels});
      Value unbiased = binary(Binary::Mul, batchVar,
                              Scalar::ofFloat(n > 1 ? double(n) / (n - 1)
                                                    : 1.0));
      Value keptMean = binary(Binary::Mul, runningMean,
                              Scalar::ofFloat(1.0 - momentum));
      Value newMean = binary(Binary::Mul, batchMean, Scalar::ofFloat(momentum));
      result.runningMean = binary(Binary::Add, keptMean, newMean);
      Value keptVar = binary(Binary::Mul, runningVar,
                             Scalar::ofFloat(1.0 - momentum));
      Value newVar = binary(Binary::Mul, unbiased, Scalar::ofFloat(momentum));
      result.runningVar = binary(Binary::Add, keptVar, newVar);
    }
  } else {
    Value mu = perChannel(*this, runningMean, rank);
    centered = binary(Binary::Sub, x, mu);
    Value var = perChannel(*this, runningVar, rank);
    Value shifted = binary(Binary::Add, var, Scalar::ofFloat(eps));
    rstd = unary(Unary::Rsqrt, shifted);
  }
  Value y = binary(Binary::Mul, centered, rstd);
  if (y && weight)
    y = binary(Binary::Mul, y, perChannel(*this, weight, rank));
  if (y && bias)
    y = binary(Binary::Add, y, perChannel(*this, bias, rank));
  result.output = y;
  return result;
}

Value TensorBuilder::groupNorm(Value x, int64_t groups, Value weight,
                               Value bias, double eps) {
  RankedTensorType type = typeOf(x);
  int64_t rank = type.getRank();
  if (rank < 2 || groups < 1 || type.getDimSize(1) % groups != 0)
    return error("group_norm: " + Twine(groups) + " groups do not divide the "
                 "channels of the input " + shapeString(type.getShape()));
  if (type.getNumElements() == 0)
    return error("group_norm: the input " + shapeString(type.getShape()) +
                 " is empty");
  for (Value v : {weight, bias})
    if (v && (typeOf(v).getRank() != 1 ||
              typeOf(v).getDimSize(0) != type.getDimSize(1)))
      return error("group_norm: weight and bias must have shape [" +
                   Twine(type.getDimSize(1)) + "], got " +
                   shapeString(typeOf(v).getShape()));
  int64_t batch = type.getDimSize(0);
  int64_t perGroup = type.getNumElements() / (batch * groups);
  Value grouped = reshape(x, {batch, groups, perGroup});
  grouped = convert(grouped, floatTypeFor(type.getElementType()));
  Value mu = mean(grouped, {2}, /*keepdim=*/true);
  Value centered = binary(Binary::Sub, grouped, mu);
  Value squares = binary(Binary::Mul, centered, centered);
  Value var = mean(squares, {2}, /*keepdim=*/true);
  Value shifted = binary(Binary::Add, var, Scalar::ofFloat(eps));
  Value rstd = unary(Unary::Rsqrt, shifted);
  Value normalized = binary(Binary::Mul, centered, rstd);
  Value y = reshape(normalized, type.getShape());
  if (y && weight)
    y = binary(Binary::Mul, y, perChannel(*this, weight, rank));
  if (y && bias)
    y = binary(Binary::Add, y, perChannel(*this, bias, rank));
  return y;
}

Value TensorBuilder::embedding(Value weight, Value indices,
                               std::optional<int64_t> paddingIdx) {
  RankedTensorType wt = typeOf(weight);
  if (wt.getRank() != 2)
    return error("embedding: the weight must be 2-D, got shape " +
                 shapeString(wt.getShape()));
  if (!isIndexTensor(indices))
    return error("embedding: expected integer indices, got " +
                 describeElements(indices));
  RankedTensorType it = typeOf(indices);
  int64_t count = numElements(it.getShape());
  // Rows of the weight picked by a gather: its backward is a scatter-add
  // over the indices (work in the rows picked, not the vocabulary).
  Value rows = indexSelect(weight, 0, reshape(indices, {count}));
  if (rows && paddingIdx) {
    // torch's embedding backward leaves the padding row's gradient at zero:
    // where the index is padding_idx, the value comes through
    // stop_gradient.
    Value isPad = compare(ComparisonDirection::EQ, reshape(indices, {count, 1}),
                          Scalar::ofInt(*paddingIdx));
    Value frozen = stopGradient(rows);
    rows = where(isPad, frozen, rows);
  }
  SmallVector<int64_t> shape(it.getShape());
  shape.push_back(wt.getDimSize(1));
  return rows ? reshape(rows, shape) : rows;
}

Value TensorBuilder::nllLoss(Value logProbs, Value target, Value weight,
                             int64_t reduction, int64_t ignoreIndex,
                             double labelSmoothing) {
  RankedTensorType type = typeOf(logProbs);
  RankedTensorType tt = typeOf(target);
  if (type.getRank() != 2 && type.getRank() != 1)
    return error("nll_loss: expected input of shape [N, C] or [C], got " +
                 shapeString(type.getShape()));
  if (tt.getRank() != type.getRank() - 1 ||
      (type.getRank() == 2 && tt.getDimSize(0) != type.getDimSize(0)))
    return error("nll_loss: target of shape " + shapeString(tt.getShape()) +
                 " does not match input of shape " +
                 shapeString(type.getShape()));
  if (weight)
    return error("nll_loss: class weights are not supported");
  if (reduction < 0 || reduction > 2)
    return error("nll_loss: unknown reduction " + Twine(reduction));
  int64_t classes = type.getShape().back();
  Type elt = type.getElementType();
  if (!isIndexTensor(target))
    return error("nll_loss: expected integer targets, got " +
                 describeElements(target));
  int64_t classDim = type.getRank() - 1;
  // -logp[target] per sample, a gather along the classes (its gradient a
  // scatter of one element per sample); 0 where the target is
  // ignore_index, which the gather clamps into range and the select below
  // then drops.
  SmallVector<int64_t> column(tt.getShape());
  column.push_back(1);
  Value index = reshape(target, column);
  Value gathered = gather(logProbs, classDim, index);
  Value picked = gathered ? reshape(gathered, tt.getShape()) : gathered;
  if (!picked)
    return picked;
  Value valid = compare(ComparisonDirection::NE, target,
                        Scalar::ofInt(ignoreIndex));
  Value perSample = unary(Unary::Neg, picked);
  if (labelSmoothing > 0.0) {
    // (1 - e) * nll + e * mean_c(-logp), as torch's label_smoothing.
    Value total = sum(logProbs, {classDim}, false);
    Value negated = unary(Unary::Neg, total);
    Value smooth = binary(Binary::Div, negated, Scalar::ofInt(classes));
    Value kept =
        binary(Binary::Mul, perSample, Scalar::ofFloat(1.0 - labelSmoothing));
    Value spread = binary(Binary::Mul, smooth, Scalar::ofFloat(labelSmoothing));
    perSample = binary(Binary::Add, kept, spread);
  }
  perSample = where(valid, perSample, Scalar::ofFloat(0.0));
  if (!perSample || reduction == 0)
    return perSample;
  Value total = sum(perSample, {}, false);
  if (reduction == 2)
    return total;
  Value count = sum(convert(valid, elt), {}, false);
  return binary(Binary::Div, total, count);
}

Value TensorBuilder::crossEntropy(Value logits, Value target, Value weight,
                                  int64_t reduction, int64_t ignoreIndex,
                                  double labelSmoothing) {
  RankedTensorType type = typeOf(logits);
  if (isa<FloatType>(typeOf(target).getElementType()))
    return error("cross_entropy with class probabilities as target is not "
                 "supported; pass class indices");
  if (type.getRank() != 2 && type.getRank() != 1)
    return error("cross_entropy: expected logits of shape [N, C] or [C], got " +
                 shapeString(type.getShape()));
  Value logp = softmax(logits, -1, /*log=*/true);
  return logp ? nllLoss(logp, target, weight, reduction, ignoreIndex,
                        labelSmoothing)
              : logp;
}

Value TensorBuilder::embeddingBag(Value weight, Value indices, Value offsets,
                                  int64_t mode, Value perSampleWeights,
                                  bool includeLastOffset,
                                  std::optional<int64_t> paddingIdx) {
  if (mode != 0 && mode != 1)
    return error("embedding_bag: mode='max' is not supported (no scatter "
                 "maximum here); sum and mean are");
  if (typeOf(indices).getRank() != 1 || typeOf(offsets).getRank() != 1)
    return error("embedding_bag: expected 1-D indices and offsets, got " +
                 shapeString(typeOf(indices).getShape()) + " and " +
                 shapeString(typeOf(offsets).getShape()));
  if (!isIndexTensor(offsets))
    return error("embedding_bag: expected integer offsets, got " +
                 describeElements(offsets));
  int64_t n = typeOf(indices).getDimSize(0);
  int64_t bags = typeOf(offsets).getDimSize(0) - (includeLastOffset ? 1 : 0);
  if (bags < 0)
    return error("embedding_bag: include_last_offset needs an offset");
  // torch takes per-sample weights only with mode='sum', one per index.
  if (perSampleWeights && mode != 0)
    return error("embedding_bag: per_sample_weights needs mode='sum'");
  if (perSampleWeights &&
      typeOf(perSampleWeights).getShape() != ArrayRef<int64_t>{n})
    return error("embedding_bag: expected per_sample_weights of shape " +
                 shapeString({n}) + " (one per index), got " +
                 shapeString(typeOf(perSampleWeights).getShape()));
  Value rows = embedding(weight, indices, paddingIdx); // [n, D]
  if (!rows)
    return rows;
  Type element = typeOf(rows).getElementType();
  int64_t width = typeOf(rows).getDimSize(1);
  // Index i belongs to the last bag whose offset is at most i: the count
  // of such offsets, less one (offsets are sorted, as torch requires).
  Value starts = reshape(convert(bags == typeOf(offsets).getDimSize(0)
                                     ? offsets
                                     : slice(offsets, 0, 0, bags, 1),
                                 b.getI64Type()),
                         {1, bags});
  Value position = reshape(
      IotaOp::create(b, loc, RankedTensorType::get({n}, b.getI64Type()), 0),
      {n, 1});
  Value started = compare(ComparisonDirection::LE, starts, position);
  Value bag = binary(Binary::Sub, sum(started, {1}, false), Scalar::ofInt(1));
  // Padding indices count in no bag, as torch's.
  Value counted = full({n}, element, Scalar::ofInt(1));
  if (paddingIdx) {
    Value isPad = compare(ComparisonDirection::EQ, indices,
                          Scalar::ofInt(*paddingIdx));
    counted = where(isPad, Scalar::ofInt(0), counted);
    rows = where(reshape(isPad, {n, 1}), Scalar::ofInt(0), rows);
  }
  if (perSampleWeights)
    rows = binary(Binary::Mul, rows, reshape(perSampleWeights, {n, 1}));
  Value target = broadcastTo(reshape(bag, {n, 1}), {n, width});
  Value zeros = full({bags, width}, element, Scalar::ofInt(0));
  Value out = scatterAdd(zeros, 0, target, rows);
  if (mode == 0 || !out)
    return out;
  Value count = scatterAdd(full({bags}, element, Scalar::ofInt(0)), 0, bag,
                           counted);
  Value safe = where(compare(ComparisonDirection::GT, count, Scalar::ofInt(0)),
                     count, Scalar::ofInt(1));
  return binary(Binary::Div, out, reshape(safe, {bags, 1}));
}
