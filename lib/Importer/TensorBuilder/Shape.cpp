//===- Shape.cpp - shape, view and indexing ops ---------------------------===//
//
// The builders of one family (broadcasts, reshapes, permutations, slices,
// squeezes, concatenation, splits, flips, stacks, and the gathers and
// scatters of indexing), as the importers' AtenShape.cpp.
//
//===----------------------------------------------------------------------===//

#include "trace/Importer/TensorBuilder.h"

#include "Detail.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <numeric>

using namespace mlir;
using namespace mlir::trace;
using namespace mlir::trace::detail;

//===----------------------------------------------------------------------===//
// Shapes
//===----------------------------------------------------------------------===//

std::optional<SmallVector<int64_t>>
TensorBuilder::broadcastShapes(ArrayRef<int64_t> x, ArrayRef<int64_t> y) {
  size_t rank = std::max(x.size(), y.size());
  SmallVector<int64_t> out(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t dx = i < rank - x.size() ? 1 : x[i - (rank - x.size())];
    int64_t dy = i < rank - y.size() ? 1 : y[i - (rank - y.size())];
    if (dx != dy && dx != 1 && dy != 1) {
      error("shapes " + shapeString(x) + " and " + shapeString(y) +
            " do not broadcast (dim " + Twine(i) + ": " + Twine(dx) +
            " vs " + Twine(dy) + ")");
      return std::nullopt;
    }
    out[i] = dx == 1 ? dy : dx;
  }
  return out;
}

Value TensorBuilder::broadcastTo(Value x, ArrayRef<int64_t> shape) {
  RankedTensorType type = typeOf(x);
  if (type.getShape() == shape)
    return x;
  int64_t rank = type.getRank(), outRank = shape.size();
  if (rank > outRank)
    return error("cannot broadcast " + shapeString(type.getShape()) + " to " +
                 shapeString(shape));
  SmallVector<int64_t> dims;
  for (int64_t i = 0; i < rank; ++i) {
    int64_t d = outRank - rank + i;
    if (type.getDimSize(i) != 1 && type.getDimSize(i) != shape[d])
      return error("cannot broadcast " + shapeString(type.getShape()) +
                   " to " + shapeString(shape));
    dims.push_back(d);
  }
  return BroadcastInDimOp::create(b, loc, type.clone(shape), x, dims);
}

Value TensorBuilder::reshape(Value x, ArrayRef<int64_t> sizes) {
  RankedTensorType type = typeOf(x);
  SmallVector<int64_t> shape(sizes);
  int64_t known = 1, inferred = -1;
  for (auto [i, d] : llvm::enumerate(shape)) {
    if (d == -1) {
      if (inferred >= 0)
        return error("only one dimension can be inferred (-1) in " +
                     shapeString(sizes));
      inferred = i;
    } else if (d < 0) {
      return error("invalid size " + Twine(d) + " in " + shapeString(sizes));
    } else {
      known *= d;
    }
  }
  int64_t numel = numElements(type.getShape());
  if (inferred >= 0) {
    if (known == 0 || numel % known != 0)
      return error("shape " + shapeString(sizes) +
                   " is invalid for input of size " + Twine(numel));
    shape[inferred] = numel / known;
  } else if (known != numel) {
    return error("shape " + shapeString(sizes) +
                 " is invalid for input of size " + Twine(numel));
  }
  if (type.getShape() == ArrayRef<int64_t>(shape))
    return x;
  return ReshapeOp::create(b, loc, type.clone(shape), x);
}

Value TensorBuilder::permute(Value x, ArrayRef<int64_t> perm) {
  RankedTensorType type = typeOf(x);
  if (int64_t(perm.size()) != type.getRank())
    return error("permute: " + Twine(perm.size()) +
                 " dims given for a tensor of rank " + Twine(type.getRank()));
  SmallVector<int64_t> p, shape;
  for (int64_t d : perm) {
    int64_t n = normalizeDim(d, type.getRank());
    if (n < 0)
      return Value();
    if (llvm::is_contained(p, n))
      return error("permute: dim " + Twine(d) + " repeats");
    p.push_back(n);
    shape.push_back(type.getDimSize(n));
  }
  if (llvm::equal(p, llvm::seq<int64_t>(0, type.getRank())))
    return x;
  return TransposeOp::create(b, loc, type.clone(shape), x,
                             b.getDenseI64ArrayAttr(p));
}

Value TensorBuilder::swapDims(Value x, int64_t d0, int64_t d1) {
  int64_t rank = typeOf(x).getRank();
  if (rank == 0)
    return x;
  d0 = normalizeDim(d0, rank);
  d1 = normalizeDim(d1, rank);
  if (d0 < 0 || d1 < 0)
    return Value();
  SmallVector<int64_t> perm = llvm::to_vector(llvm::seq<int64_t>(0, rank));
  std::swap(perm[d0], perm[d1]);
  return permute(x, perm);
}

Value TensorBuilder::slice(Value x, int64_t dim, std::optional<int64_t> start,
                           std::optional<int64_t> end, int64_t step) {
  RankedTensorType type = typeOf(x);
  dim = normalizeDim(dim, type.getRank());
  if (dim < 0)
    return Value();
  if (step < 1)
    return error("slice step must be positive, got " + Twine(step));
  int64_t size = type.getDimSize(dim);
  auto clamp = [&](int64_t v) {
    if (v < 0)
      v += size;
    return std::clamp<int64_t>(v, 0, size);
  };
  int64_t lo = start ? clamp(*start) : 0;
  int64_t hi = end ? clamp(*end) : size;
  hi = std::max(hi, lo);
  if (lo == 0 && hi == size && step == 1)
    return x;
  SmallVector<int64_t> starts(type.getRank(), 0), limits(type.getShape()),
      strides(type.getRank(), 1), shape(type.getShape());
  starts[dim] = lo;
  limits[dim] = hi;
  strides[dim] = step;
  shape[dim] = (hi - lo + step - 1) / step;
  return SliceOp::create(b, loc, type.clone(shape), x,
                         b.getDenseI64ArrayAttr(starts),
                         b.getDenseI64ArrayAttr(limits),
                         b.getDenseI64ArrayAttr(strides));
}

Value TensorBuilder::select(Value x, int64_t dim, int64_t index) {
  RankedTensorType type = typeOf(x);
  dim = normalizeDim(dim, type.getRank());
  if (dim < 0)
    return Value();
  int64_t size = type.getDimSize(dim);
  if (index < -size || index >= size)
    return error("index " + Twine(index) + " is out of range for dim " +
                 Twine(dim) + " of size " + Twine(size));
  if (index < 0)
    index += size;
  Value s = slice(x, dim, index, index + 1, 1);
  SmallVector<int64_t> shape(type.getShape());
  shape.erase(shape.begin() + dim);
  return s ? reshape(s, shape) : s;
}

Value TensorBuilder::unsqueeze(Value x, int64_t dim) {
  RankedTensorType type = typeOf(x);
  int64_t rank = type.getRank();
  if (dim < -(rank + 1) || dim > rank)
    return error("unsqueeze: dim " + Twine(dim) +
                 " is out of range for a tensor of rank " + Twine(rank));
  if (dim < 0)
    dim += rank + 1;
  SmallVector<int64_t> shape(type.getShape());
  shape.insert(shape.begin() + dim, 1);
  return reshape(x, shape);
}

Value TensorBuilder::squeeze(Value x, ArrayRef<int64_t> dims) {
  RankedTensorType type = typeOf(x);
  auto norm = normalizeDims(dims, type.getRank());
  if (!norm)
    return Value();
  SmallVector<int64_t> shape;
  for (auto [i, d] : llvm::enumerate(type.getShape())) {
    bool listed = dims.empty() || llvm::is_contained(*norm, int64_t(i));
    if (!(listed && d == 1))
      shape.push_back(d);
  }
  return reshape(x, shape);
}

Value TensorBuilder::flatten(Value x, int64_t startDim, int64_t endDim) {
  RankedTensorType type = typeOf(x);
  if (type.getRank() == 0)
    return reshape(x, {1});
  startDim = normalizeDim(startDim, type.getRank());
  endDim = normalizeDim(endDim, type.getRank());
  if (startDim < 0 || endDim < 0)
    return Value();
  if (startDim > endDim)
    return error("flatten: start_dim cannot come after end_dim");
  SmallVector<int64_t> shape;
  ArrayRef<int64_t> in = type.getShape();
  shape.append(in.begin(), in.begin() + startDim);
  shape.push_back(numElements(in.slice(startDim, endDim - startDim + 1)));
  shape.append(in.begin() + endDim + 1, in.end());
  return reshape(x, shape);
}

Value TensorBuilder::expand(Value x, ArrayRef<int64_t> sizes) {
  RankedTensorType type = typeOf(x);
  int64_t rank = type.getRank(), outRank = sizes.size();
  if (outRank < rank)
    return error("expand: " + Twine(outRank) +
                 " sizes given for a tensor of rank " + Twine(rank));
  SmallVector<int64_t> shape(sizes);
  for (int64_t i = 0; i < outRank; ++i) {
    int64_t src = i - (outRank - rank);
    if (shape[i] == -1) {
      if (src < 0)
        return error("expand: -1 is not allowed for a new leading dim");
      shape[i] = type.getDimSize(src);
    }
  }
  return broadcastTo(x, shape);
}

Value TensorBuilder::concat(ArrayRef<Value> xs, int64_t dim) {
  if (xs.empty())
    return error("cat of an empty list");
  // Promotes to a common dtype, as torch.cat does.
  Type elt = typeOf(xs.front()).getElementType();
  for (Value x : xs.drop_front())
    elt = promoteTypes(elt, typeOf(x).getElementType());
  RankedTensorType first = typeOf(xs.front());
  dim = normalizeDim(dim, first.getRank());
  if (dim < 0)
    return Value();
  SmallVector<Value> inputs;
  SmallVector<int64_t> shape(first.getShape());
  shape[dim] = 0;
  for (Value x : xs) {
    RankedTensorType t = typeOf(x);
    if (t.getRank() != first.getRank())
      return error("cat: tensors of rank " + Twine(first.getRank()) + " and " +
                   Twine(t.getRank()));
    for (int64_t d = 0; d < t.getRank(); ++d)
      if (d != dim && t.getDimSize(d) != first.getDimSize(d))
        return error("cat: sizes " + shapeString(first.getShape()) + " and " +
                     shapeString(t.getShape()) + " differ outside dim " +
                     Twine(dim));
    shape[dim] += t.getDimSize(dim);
    inputs.push_back(convert(x, elt));
  }
  if (inputs.size() == 1)
    return inputs.front();
  return ConcatenateOp::create(b, loc, RankedTensorType::get(shape, elt),
                               inputs, b.getI64IntegerAttr(dim));
}

std::optional<SmallVector<Value>>
TensorBuilder::split(Value x, ArrayRef<int64_t> sizes, int64_t dim) {
  RankedTensorType type = typeOf(x);
  dim = normalizeDim(dim, type.getRank());
  if (dim < 0)
    return std::nullopt;
  int64_t total = std::accumulate(sizes.begin(), sizes.end(), int64_t(0));
  if (total != type.getDimSize(dim)) {
    error("split sizes " + shapeString(sizes) + " do not add up to " +
          Twine(type.getDimSize(dim)));
    return std::nullopt;
  }
  SmallVector<Value> pieces;
  int64_t start = 0;
  for (int64_t s : sizes) {
    pieces.push_back(slice(x, dim, start, start + s, 1));
    start += s;
  }
  return pieces;
}

Value TensorBuilder::triangle(Value x, int64_t k, bool lower) {
  RankedTensorType type = typeOf(x);
  if (type.getRank() < 2)
    return error(Twine(lower ? "tril" : "triu") +
                 ": the tensor needs at least 2 dims");
  auto idxType = RankedTensorType::get(type.getShape(), b.getI64Type());
  int64_t rank = type.getRank();
  Value row = IotaOp::create(b, loc, idxType, uint64_t(rank - 2));
  Value col = IotaOp::create(b, loc, idxType, uint64_t(rank - 1));
  // tril keeps col - row <= k, triu keeps col - row >= k.
  Value diff = binary(Binary::Sub, col, row);
  Value keep = compare(lower ? ComparisonDirection::LE
                             : ComparisonDirection::GE,
                       diff, Scalar::ofInt(k));
  return where(keep, x, full({}, type.getElementType(), Scalar::ofInt(0)));
}

Value TensorBuilder::flip(Value x, ArrayRef<int64_t> dims) {
  RankedTensorType type = typeOf(x);
  auto norm = normalizeDims(dims, type.getRank());
  if (!norm)
    return Value();
  return ReverseOp::create(b, loc, x, *norm);
}

//===----------------------------------------------------------------------===//
// Indexing
//===----------------------------------------------------------------------===//

bool TensorBuilder::isIndexTensor(Value x) {
  Type element = typeOf(x).getElementType();
  return element.isInteger(32) || element.isInteger(64);
}

std::string TensorBuilder::describeElements(Value x) {
  Type element = typeOf(x).getElementType();
  if (isa<FloatType>(element))
    return "a float tensor";
  if (element.isInteger(1))
    return "a bool tensor";
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "a tensor of " << element;
  return text;
}

Value TensorBuilder::gather(Value x, int64_t dim, Value index) {
  RankedTensorType type = typeOf(x), it = typeOf(index);
  if (!isIndexTensor(index))
    return error("gather: expected integer indices, got " +
                 describeElements(index));
  // torch treats a 0-d tensor as 1-d here, and gives a 0-d result for a
  // 0-d index.
  bool scalar = it.getRank() == 0;
  if (type.getRank() == 0)
    x = reshape(x, {1});
  if (scalar)
    index = reshape(index, {1});
  type = typeOf(x);
  it = typeOf(index);
  dim = normalizeDim(dim, type.getRank());
  if (dim < 0)
    return Value();
  if (it.getRank() != type.getRank())
    return error("gather: index of shape " + shapeString(it.getShape()) +
                 " does not have the rank of input " +
                 shapeString(type.getShape()));
  for (int64_t d = 0; d < type.getRank(); ++d)
    if (d != dim && it.getDimSize(d) > type.getDimSize(d))
      return error("gather: index of shape " + shapeString(it.getShape()) +
                   " is larger than input " + shapeString(type.getShape()) +
                   " in dim " + Twine(d));
  if (type.getDimSize(dim) == 0 && it.getNumElements() > 0)
    return error("gather: dim " + Twine(dim) + " of input " +
                 shapeString(type.getShape()) + " is empty");
  Value picked = GatherOp::create(b, loc, x, index, dim);
  return scalar ? reshape(picked, {}) : picked;
}

Value TensorBuilder::scatterAdd(Value x, int64_t dim, Value index, Value src) {
  RankedTensorType type = typeOf(x), it = typeOf(index), st = typeOf(src);
  if (!isIndexTensor(index))
    return error("scatter_add: expected integer indices, got " +
                 describeElements(index));
  dim = normalizeDim(dim, type.getRank());
  if (dim < 0)
    return Value();
  if (it.getRank() != type.getRank() || st.getRank() != type.getRank())
    return error("scatter_add: index " + shapeString(it.getShape()) +
                 " and src " + shapeString(st.getShape()) +
                 " must have the rank of self " +
                 shapeString(type.getShape()));
  for (int64_t d = 0; d < type.getRank(); ++d) {
    if (it.getDimSize(d) > st.getDimSize(d))
      return error("scatter_add: index " + shapeString(it.getShape()) +
                   " is larger than src " + shapeString(st.getShape()) +
                   " in dim " + Twine(d));
    if (d != dim && it.getDimSize(d) > type.getDimSize(d))
      return error("scatter_add: index " + shapeString(it.getShape()) +
                   " is larger than self " + shapeString(type.getShape()) +
                   " in dim " + Twine(d));
  }
  // torch reads src only where the index has elements.
  for (int64_t d = 0; d < st.getRank() && src; ++d)
    if (st.getDimSize(d) != it.getDimSize(d))
      src = slice(src, d, 0, it.getDimSize(d), 1);
  src = src ? convert(src, type.getElementType()) : src;
  if (!src)
    return src;
  return ScatterAddOp::create(b, loc, x, index, src, dim);
}

Value TensorBuilder::indexSelect(Value x, int64_t dim, Value index) {
  RankedTensorType type = typeOf(x), it = typeOf(index);
  if (!isIndexTensor(index))
    return error("index_select: expected integer indices, got " +
                 describeElements(index));
  if (it.getRank() > 1)
    return error("index_select: the index must be 0-D or 1-D, got shape " +
                 shapeString(it.getShape()));
  // A 0-d input gives a 0-d result (its one element, picked).
  bool scalar = type.getRank() == 0;
  if (scalar)
    x = reshape(x, {1});
  type = typeOf(x);
  dim = normalizeDim(dim, type.getRank());
  if (dim < 0)
    return Value();
  // The index along `dim`, broadcast over the other dims (a view the
  // gather's lowering reads in place).
  int64_t count = it.getNumElements();
  SmallVector<int64_t> shape(type.getShape());
  shape[dim] = count;
  Value flat = reshape(index, {count});
  Value spread = BroadcastInDimOp::create(b, loc, it.clone(shape), flat,
                                          ArrayRef<int64_t>{dim});
  Value picked = gather(x, dim, spread);
  return scalar && picked && count == 1 ? reshape(picked, {}) : picked;
}

Value TensorBuilder::stopGradient(Value x) {
  return StopGradientOp::create(b, loc, x);
}

Value TensorBuilder::stack(ArrayRef<Value> xs, int64_t dim) {
  if (xs.empty())
    return error("stack of an empty list");
  RankedTensorType first = typeOf(xs.front());
  int64_t rank = first.getRank();
  if (dim < -(rank + 1) || dim > rank)
    return error("stack: dim " + Twine(dim) +
                 " is out of range for tensors of rank " + Twine(rank));
  if (dim < 0)
    dim += rank + 1;
  SmallVector<Value> parts;
  for (Value x : xs) {
    if (typeOf(x).getShape() != first.getShape())
      return error("stack: tensors of shapes " +
                   shapeString(first.getShape()) + " and " +
                   shapeString(typeOf(x).getShape()));
    parts.push_back(unsqueeze(x, dim));
  }
  return concat(parts, dim);
}

//===----------------------------------------------------------------------===//
// Pads, repeats, diagonals and scatters into slices
//===----------------------------------------------------------------------===//

Value TensorBuilder::padIndexed(Value x, ArrayRef<int64_t> pad,
                                bool reflect) {
  int64_t rank = typeOf(x).getRank();
  if (pad.size() % 2 != 0 || int64_t(pad.size()) > 2 * rank)
    return error("pad has " + Twine(pad.size()) + " entries for a rank-" +
                 Twine(rank) + " tensor");
  // Per padded dim, one index_select of constant source positions: the
  // gradient of each input element is then the sum over the positions that
  // read it, as torch's reflection/replication backward.
  for (size_t i = 0; i < pad.size(); i += 2) {
    int64_t dim = rank - 1 - int64_t(i / 2);
    int64_t before = pad[i], after = pad[i + 1];
    int64_t size = typeOf(x).getDimSize(dim);
    if (reflect && (before >= size || after >= size))
      return error("reflection pad of (" + Twine(before) + ", " +
                   Twine(after) + ") must be less than dim " + Twine(dim) +
                   "'s size " + Twine(size));
    if (size == 0 || size + before + after < 0)
      return error("pad of (" + Twine(before) + ", " + Twine(after) +
                   ") does not fit dim " + Twine(dim) + " of size " +
                   Twine(size));
    SmallVector<int64_t> source;
    for (int64_t j = -before; j < size + after; ++j) {
      int64_t k = j;
      if (reflect) {
        // Mirror without repeating the edge; the bound checks above keep
        // one reflection enough.
        if (k < 0)
          k = -k;
        if (k >= size)
          k = 2 * (size - 1) - k;
      } else {
        k = std::clamp<int64_t>(k, 0, size - 1);
      }
      source.push_back(k);
    }
    x = indexSelect(x, dim, indexConstant(source));
    if (!x)
      return x;
  }
  return x;
}

Value TensorBuilder::repeat(Value x, ArrayRef<int64_t> repeats) {
  RankedTensorType type = typeOf(x);
  int64_t rank = repeats.size();
  if (rank < type.getRank())
    return error("repeat: " + Twine(rank) +
                 " repeats for a tensor of rank " + Twine(type.getRank()));
  // [s0, s1, ..] -> [1, s0, 1, s1, ..] -> expand to [r0, s0, r1, s1, ..]
  // -> [r0 s0, r1 s1, ..]; the gradient sums the copies.
  SmallVector<int64_t> shape(rank - type.getRank(), 1);
  llvm::append_range(shape, type.getShape());
  SmallVector<int64_t> spread, expanded, result;
  for (int64_t d = 0; d < rank; ++d) {
    if (repeats[d] < 0)
      return error("repeat: negative repeat " + Twine(repeats[d]));
    spread.append({1, shape[d]});
    expanded.append({repeats[d], shape[d]});
    result.push_back(repeats[d] * shape[d]);
  }
  Value v = reshape(x, spread);
  v = v ? broadcastTo(v, expanded) : v;
  return v ? reshape(v, result) : v;
}

Value TensorBuilder::diagonal(Value x, int64_t offset, int64_t dim1,
                              int64_t dim2) {
  RankedTensorType type = typeOf(x);
  int64_t rank = type.getRank();
  int64_t d1 = normalizeDim(dim1, rank), d2 = normalizeDim(dim2, rank);
  if (d1 < 0 || d2 < 0)
    return Value();
  if (d1 == d2)
    return error("diagonal: dim1 and dim2 are both " + Twine(d1));
  // The two dims last, then flattened: element (i, i + offset) is at
  // i (m + 1) + offset of the flat dim, a strided slice.
  SmallVector<int64_t> perm;
  for (int64_t d = 0; d < rank; ++d)
    if (d != d1 && d != d2)
      perm.push_back(d);
  perm.append({d1, d2});
  Value v = permute(x, perm);
  if (!v)
    return v;
  int64_t n = type.getDimSize(d1), m = type.getDimSize(d2);
  int64_t count = offset >= 0 ? std::min(n, m - offset)
                              : std::min(n + offset, m);
  count = std::max<int64_t>(count, 0);
  SmallVector<int64_t> flatShape(typeOf(v).getShape().drop_back(2));
  flatShape.push_back(n * m);
  v = reshape(v, flatShape);
  int64_t start = offset >= 0 ? offset : -offset * m;
  if (count == 0) {
    SmallVector<int64_t> empty(flatShape);
    empty.back() = 0;
    return full(empty, type.getElementType(), Scalar::ofInt(0));
  }
  return slice(v, rank - 2, start, start + (count - 1) * (m + 1) + 1, m + 1);
}

Value TensorBuilder::sliceScatter(Value x, Value src, int64_t dim,
                                  std::optional<int64_t> start,
                                  std::optional<int64_t> end, int64_t step) {
  RankedTensorType type = typeOf(x);
  int64_t d = normalizeDim(dim, type.getRank());
  if (d < 0)
    return Value();
  if (step < 1)
    return error("slice_scatter: step must be positive, got " + Twine(step));
  int64_t size = type.getDimSize(d);
  auto clampIndex = [&](std::optional<int64_t> v, int64_t byDefault) {
    int64_t i = v.value_or(byDefault);
    if (i < 0)
      i += size;
    return std::clamp<int64_t>(i, 0, size);
  };
  int64_t lo = clampIndex(start, 0), hi = std::max(clampIndex(end, size), lo);
  int64_t count = (hi - lo + step - 1) / step;
  SmallVector<int64_t> expected(type.getShape());
  expected[d] = count;
  if (typeOf(src).getShape() != ArrayRef<int64_t>(expected))
    return error("slice_scatter: src of shape " +
                 shapeString(typeOf(src).getShape()) +
                 " for a slice of shape " + shapeString(expected));
  if (count == 0)
    return x;
  // Position j takes src[(j - lo) / step] where it is on the slice: an
  // index_select of src by constant positions and a select by a constant
  // mask, so each side's gradient is the part it gave.
  SmallVector<int64_t> source;
  SmallVector<bool> taken;
  for (int64_t j = 0; j < size; ++j) {
    bool on = j >= lo && j < hi && (j - lo) % step == 0;
    taken.push_back(on);
    source.push_back(on ? (j - lo) / step : 0);
  }
  Value converted = convert(src, type.getElementType());
  Value spread = indexSelect(converted, d, indexConstant(source));
  SmallVector<int64_t> along(type.getRank(), 1);
  along[d] = size;
  auto maskType = RankedTensorType::get({size}, b.getI1Type());
  Value mask = ConstantOp::create(
      b, loc, DenseElementsAttr::get(maskType, ArrayRef<bool>(taken)));
  return spread ? where(reshape(mask, along), spread, x) : spread;
}

//===----------------------------------------------------------------------===//
// Advanced indexing
//===----------------------------------------------------------------------===//

FailureOr<TensorBuilder::IndexPlan>
TensorBuilder::planIndex(Value x, ArrayRef<Value> indices) {
  RankedTensorType type = typeOf(x);
  IndexPlan plan;
  if (int64_t(indices.size()) > type.getRank()) {
    error("index: " + Twine(indices.size()) + " indices for a tensor of rank " +
          Twine(type.getRank()));
    return failure();
  }
  SmallVector<Value> used;
  for (auto [d, index] : llvm::enumerate(indices)) {
    if (!index)
      continue;
    if (typeOf(index).getElementType().isInteger(1)) {
      error("index: a boolean mask selects a number of elements known only "
            "from the data, which a compiled step cannot have; use "
            "torch.where or a multiplication by the mask");
      return failure();
    }
    if (!isIndexTensor(index)) {
      error("index: expected integer or boolean indices, got " +
            describeElements(index));
      return failure();
    }
    plan.dims.push_back(d);
    used.push_back(index);
  }
  if (plan.dims.empty()) {
    error("index: no index tensor");
    return failure();
  }
  SmallVector<int64_t> shape(typeOf(used.front()).getShape());
  for (Value index : used) {
    auto s = broadcastShapes(shape, typeOf(index).getShape());
    if (!s) {
      error("index: index tensors of shapes " + shapeString(shape) + " and " +
            shapeString(typeOf(index).getShape()) + " do not broadcast");
      return failure();
    }
    shape = *s;
  }
  plan.indexShape = shape;
  // Indexed dims next to each other keep the index's dims in their place;
  // apart, the index's dims come first (numpy's rule, as torch).
  plan.adjacent = plan.dims.back() - plan.dims.front() + 1 ==
                  int64_t(plan.dims.size());
  // The indexed dims first, flattened into one: the row-major linear index
  // of each indexed position, negative indices wrapped, reads one row.
  for (int64_t d : plan.dims)
    plan.perm.push_back(d);
  for (int64_t d = 0; d < type.getRank(); ++d)
    if (!llvm::is_contained(plan.dims, d))
      plan.perm.push_back(d);
  Value linear;
  for (auto [k, d] : llvm::enumerate(plan.dims)) {
    int64_t size = type.getDimSize(d);
    Value index = broadcastTo(convert(used[k], b.getI64Type()), shape);
    Value negative = compare(ComparisonDirection::LT, index, Scalar::ofInt(0));
    Value wrapped = binary(Binary::Add, index, Scalar::ofInt(size));
    index = where(negative, wrapped, index);
    linear = linear ? binary(Binary::Add,
                             binary(Binary::Mul, linear, Scalar::ofInt(size)),
                             index)
                    : index;
    plan.rows *= size;
    if (!linear)
      return failure();
  }
  plan.linear = reshape(linear, {numElements(shape)});
  for (int64_t d : ArrayRef<int64_t>(plan.perm).drop_front(plan.dims.size()))
    plan.rest.push_back(type.getDimSize(d));
  plan.before = plan.adjacent ? plan.dims.front() : 0;
  return plan;
}

/// The permutation that takes [index dims..., kept dims...] to the result's
/// order: the index's dims where the first indexed dim was, when adjacent.
static SmallVector<int64_t> resultOrder(int64_t indexRank, int64_t kept,
                                        int64_t before) {
  SmallVector<int64_t> perm;
  for (int64_t k = 0; k < before; ++k)
    perm.push_back(indexRank + k);
  for (int64_t k = 0; k < indexRank; ++k)
    perm.push_back(k);
  for (int64_t k = before; k < kept; ++k)
    perm.push_back(indexRank + k);
  return perm;
}

Value TensorBuilder::index(Value x, ArrayRef<Value> indices) {
  FailureOr<IndexPlan> plan = planIndex(x, indices);
  if (failed(plan))
    return Value();
  SmallVector<int64_t> rows{plan->rows};
  llvm::append_range(rows, plan->rest);
  Value flat = reshape(permute(x, plan->perm), rows);
  // One row per indexed position; the gradient scatters back (gather's).
  Value picked = indexSelect(flat, 0, plan->linear);
  if (!picked)
    return picked;
  SmallVector<int64_t> shape(plan->indexShape);
  llvm::append_range(shape, plan->rest);
  Value v = reshape(picked, shape);
  return permute(v, resultOrder(plan->indexShape.size(), plan->rest.size(),
                                plan->before));
}

Value TensorBuilder::indexPut(Value x, ArrayRef<Value> indices, Value values,
                              bool accumulate) {
  RankedTensorType type = typeOf(x);
  if (!isa<FloatType>(type.getElementType()))
    return error("index_put: only floating point tensors are supported, "
                 "got " + describeElements(x));
  FailureOr<IndexPlan> plan = planIndex(x, indices);
  if (failed(plan))
    return Value();
  int64_t indexRank = plan->indexShape.size();
  // The values in x[indices]'s shape, then in the flat [positions, kept...]
  // order the rows are written in.
  SmallVector<int64_t> picked(plan->indexShape);
  llvm::append_range(picked, plan->rest);
  SmallVector<int64_t> order =
      resultOrder(indexRank, plan->rest.size(), plan->before);
  SmallVector<int64_t> resultShape;
  for (int64_t k : order)
    resultShape.push_back(picked[k]);
  Value v = broadcastTo(convert(values, type.getElementType()), resultShape);
  if (!v)
    return v;
  SmallVector<int64_t> inverse(order.size());
  for (auto [k, o] : llvm::enumerate(order))
    inverse[o] = k;
  v = permute(v, inverse);
  SmallVector<int64_t> flatShape{numElements(plan->indexShape)};
  llvm::append_range(flatShape, plan->rest);
  v = reshape(v, flatShape);
  SmallVector<int64_t> rows{plan->rows};
  llvm::append_range(rows, plan->rest);
  Value flat = reshape(permute(x, plan->perm), rows);
  SmallVector<int64_t> along(flatShape.size(), 1);
  along[0] = flatShape[0];
  Value index = broadcastTo(reshape(plan->linear, along), flatShape);
  Value zeros = full(rows, type.getElementType(), Scalar::ofInt(0));
  Value written = scatterAdd(zeros, 0, index, v);
  Value out;
  if (accumulate) {
    out = binary(Binary::Add, flat, written);
  } else {
    // Rows written more than once get the mean of their values: torch
    // leaves which one wins undefined. Rows written once get theirs, and
    // the rest keep x's (and its gradient).
    Value ones = full(flatShape, type.getElementType(), Scalar::ofInt(1));
    Value count = scatterAdd(zeros, 0, index, ones);
    Value hit = compare(ComparisonDirection::GT, count, Scalar::ofInt(0));
    Value safe = where(hit, count, Scalar::ofInt(1));
    out = where(hit, binary(Binary::Div, written, safe), flat);
  }
  if (!out)
    return out;
  SmallVector<int64_t> permuted;
  for (int64_t d : plan->perm)
    permuted.push_back(type.getDimSize(d));
  out = reshape(out, permuted);
  SmallVector<int64_t> back(plan->perm.size());
  for (auto [k, d] : llvm::enumerate(plan->perm))
    back[d] = k;
  return permute(out, back);
}

Value TensorBuilder::scatterReduce(Value x, int64_t dim, Value index,
                                   Value src, StringRef reduce,
                                   bool includeSelf) {
  RankedTensorType type = typeOf(x);
  if (!isa<FloatType>(type.getElementType()))
    return error("scatter: only floating point tensors are supported, got " +
                 describeElements(x));
  if (reduce != "sum" && reduce != "mean" && reduce != "replace")
    return error("scatter_reduce: reduce='" + reduce +
                 "' is not supported (sum and mean are; amax, amin and prod "
                 "have no scatter primitive here)");
  // How many src elements land on each position, and their sum: the one
  // scatter primitive, scatter_add, twice.
  Value zeros = full(type.getShape(), type.getElementType(), Scalar::ofInt(0));
  Value ones = full(typeOf(index).getShape(), type.getElementType(),
                    Scalar::ofInt(1));
  Value count = scatterAdd(zeros, dim, index, ones);
  Value total = scatterAdd(zeros, dim, index, src);
  if (!count || !total)
    return Value();
  Value hit = compare(ComparisonDirection::GT, count, Scalar::ofInt(0));
  if (reduce == "sum")
    return includeSelf ? binary(Binary::Add, x, total)
                       : where(hit, total, x);
  if (reduce == "mean") {
    // torch divides by the count, plus one for self when included.
    Value n = includeSelf ? binary(Binary::Add, count, Scalar::ofInt(1))
                          : count;
    Value sum = includeSelf ? binary(Binary::Add, x, total) : total;
    Value safe = where(hit, n, Scalar::ofInt(1));
    return where(hit, binary(Binary::Div, sum, safe), x);
  }
  // scatter (replace): a position written more than once gets the mean of
  // its values (torch leaves which one wins undefined).
  Value safe = where(hit, count, Scalar::ofInt(1));
  return where(hit, binary(Binary::Div, total, safe), x);
}
