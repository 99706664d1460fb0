//===- TensorBuilder.cpp - trace primitives with PyTorch semantics --------===//
//
// Each composite is written as PyTorch's own decomposition (torch/_decomp,
// aten's CompositeImplicit kernels) so its numerics match eager: layer_norm
// with the biased variance, softmax shifted by the row max, gelu's erf and
// tanh forms, nll_loss's mean over the non-ignored targets.
//
// This file holds the core every family shares: errors, type promotion,
// dims and constants. The ops are in one file per family, named as the
// importers' Aten*.cpp: Creation, Elementwise, Shape, Reductions, NN, Conv.
//
//===----------------------------------------------------------------------===//

#include "trace/Importer/TensorBuilder.h"

#include "Detail.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/STLExtras.h"

#include <numeric>

using namespace mlir;
using namespace mlir::trace;

namespace mlir::trace::detail {

int64_t numElements(ArrayRef<int64_t> shape) {
  return std::accumulate(shape.begin(), shape.end(), int64_t(1),
                         std::multiplies<int64_t>());
}

std::string shapeString(ArrayRef<int64_t> shape) {
  std::string s = "[";
  llvm::interleave(
      shape, [&](int64_t d) { s += std::to_string(d); }, [&] { s += ", "; });
  return s + "]";
}

} // namespace mlir::trace::detail

namespace {

/// 0 bool, 1 int, 2 float: torch's promotion categories.
int category(Type t) {
  if (t.isInteger(1))
    return 0;
  return isa<FloatType>(t) ? 2 : 1;
}

int category(const Scalar &s) {
  switch (s.kind) {
  case Scalar::Kind::Bool:
    return 0;
  case Scalar::Kind::Int:
    return 1;
  case Scalar::Kind::Float:
    return 2;
  }
  return 2;
}

} // namespace

Value TensorBuilder::error(const Twine &message) {
  emitError(loc) << message << errorSuffix;
  return Value();
}

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

Type TensorBuilder::scalarType(const Scalar &s) {
  switch (s.kind) {
  case Scalar::Kind::Bool:
    return b.getI1Type();
  case Scalar::Kind::Int:
    return b.getI64Type();
  case Scalar::Kind::Float:
    return b.getF32Type();
  }
  return b.getF32Type();
}

Type TensorBuilder::floatTypeFor(Type element) {
  return isa<FloatType>(element) ? element : b.getF32Type();
}

Type TensorBuilder::promoteTypes(Type tx, Type ty) {
  if (tx == ty)
    return tx;
  int cx = category(tx), cy = category(ty);
  if (cx != cy)
    return cx > cy ? tx : ty;
  unsigned wx = tx.getIntOrFloatBitWidth(), wy = ty.getIntOrFloatBitWidth();
  if (wx != wy)
    return wx > wy ? tx : ty;
  return b.getF32Type(); // f16 with bf16
}

Type TensorBuilder::promote(const Operand &x, const Operand &y) {
  if (x.tensor && y.tensor) {
    Type tx = typeOf(x.tensor).getElementType();
    Type ty = typeOf(y.tensor).getElementType();
    bool zx = typeOf(x.tensor).getRank() == 0;
    bool zy = typeOf(y.tensor).getRank() == 0;
    if (zx == zy)
      return promoteTypes(tx, ty);
    // A 0-d tensor beside a tensor with dims counts by category only, as
    // torch's result_type (combine_categories): an f32 tensor times an
    // f64 0-d tensor is f32, an i32 tensor plus an i64 0-d one is i32,
    // an int tensor times an f64 0-d one is f64.
    Type dims = zx ? ty : tx, zero = zx ? tx : ty;
    if (isa<FloatType>(dims))
      return dims;
    if (dims.isInteger(1) || isa<FloatType>(zero))
      return promoteTypes(dims, zero);
    return dims;
  }
  if (x.tensor || y.tensor) {
    const Operand &t = x.tensor ? x : y;
    const Operand &s = x.tensor ? y : x;
    Type tt = typeOf(t.tensor).getElementType();
    // A Python scalar only raises the category (1.5 * int tensor is f32,
    // 1.5 * bf16 tensor stays bf16).
    return category(*s.scalar) > category(tt) ? scalarType(*s.scalar) : tt;
  }
  return category(*x.scalar) >= category(*y.scalar) ? scalarType(*x.scalar)
                                                    : scalarType(*y.scalar);
}

int64_t TensorBuilder::normalizeDim(int64_t dim, int64_t rank) {
  int64_t r = std::max<int64_t>(rank, 1);
  if (dim < -r || dim >= r) {
    error("dim " + Twine(dim) + " is out of range for a tensor of rank " +
          Twine(rank));
    return -1;
  }
  return dim < 0 ? dim + r : dim;
}

std::optional<SmallVector<int64_t>>
TensorBuilder::normalizeDims(ArrayRef<int64_t> dims, int64_t rank) {
  SmallVector<int64_t> out;
  for (int64_t d : dims) {
    int64_t n = normalizeDim(d, rank);
    if (n < 0)
      return std::nullopt;
    if (llvm::is_contained(out, n)) {
      error("dim " + Twine(d) + " appears more than once");
      return std::nullopt;
    }
    out.push_back(n);
  }
  // A 0-d tensor takes dim 0 or -1, as torch, and has no dim to reduce.
  if (rank == 0)
    out.clear();
  llvm::sort(out);
  return out;
}

std::optional<SmallVector<int64_t>>
TensorBuilder::reductionDims(ArrayRef<int64_t> dims, int64_t rank) {
  if (!dims.empty())
    return normalizeDims(dims, rank);
  return llvm::to_vector(llvm::seq<int64_t>(0, rank));
}

//===----------------------------------------------------------------------===//
// Constants
//===----------------------------------------------------------------------===//

Value TensorBuilder::floatConstant(RankedTensorType type,
                                   ArrayRef<double> values) {
  const llvm::fltSemantics &semantics =
      cast<FloatType>(type.getElementType()).getFloatSemantics();
  SmallVector<APFloat> elements;
  for (double v : values) {
    APFloat value(v);
    bool lost;
    value.convert(semantics, APFloat::rmNearestTiesToEven, &lost);
    elements.push_back(value);
  }
  return ConstantOp::create(b, loc, DenseElementsAttr::get(type, elements));
}

Value TensorBuilder::indexConstant(ArrayRef<int64_t> values) {
  auto type = RankedTensorType::get({int64_t(values.size())}, b.getI64Type());
  return ConstantOp::create(b, loc, DenseElementsAttr::get(type, values));
}
