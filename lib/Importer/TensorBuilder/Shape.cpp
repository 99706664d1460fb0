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
