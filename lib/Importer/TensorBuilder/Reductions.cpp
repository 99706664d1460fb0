//===- Reductions.cpp - sums, means, maxima, softmax ----------------------===//
//
// The builders of one family (sums, means and maxima over dims, and
// softmax, which is built from them), as the importers'
// AtenReductions.cpp.
//
//===----------------------------------------------------------------------===//

#include "trace/Importer/TensorBuilder.h"

#include "Detail.h"

#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace mlir::trace;
using namespace mlir::trace::detail;

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

Value TensorBuilder::sumOrMax(Value x, ArrayRef<int64_t> dims, bool keepdim,
                              bool isMax) {
  RankedTensorType type = typeOf(x);
  SmallVector<int64_t> all;
  if (dims.empty())
    all = llvm::to_vector(llvm::seq<int64_t>(0, type.getRank()));
  auto norm = normalizeDims(dims.empty() ? ArrayRef<int64_t>(all) : dims,
                            type.getRank());
  if (!norm)
    return Value();
  if (norm->empty())
    return x;
  SmallVector<int64_t> shape;
  for (auto [i, d] : llvm::enumerate(type.getShape())) {
    if (!llvm::is_contained(*norm, int64_t(i)))
      shape.push_back(d);
    else if (keepdim)
      shape.push_back(1);
  }
  auto resultType = type.clone(shape);
  UnitAttr keep = keepdim ? b.getUnitAttr() : UnitAttr();
  if (isMax)
    return ReduceMaxOp::create(b, loc, resultType, x,
                               b.getDenseI64ArrayAttr(*norm), keep);
  return ReduceSumOp::create(b, loc, resultType, x,
                             b.getDenseI64ArrayAttr(*norm), keep);
}

Value TensorBuilder::sum(Value x, ArrayRef<int64_t> dims, bool keepdim,
                         std::optional<Type> dtype) {
  Type elt = typeOf(x).getElementType();
  // torch.sum of bool and integer tensors accumulates in int64.
  Type acc = dtype ? *dtype : (isa<FloatType>(elt) ? elt : b.getI64Type());
  return sumOrMax(convert(x, acc), dims, keepdim, /*isMax=*/false);
}

Value TensorBuilder::mean(Value x, ArrayRef<int64_t> dims, bool keepdim,
                          std::optional<Type> dtype) {
  Type elt = dtype ? *dtype : typeOf(x).getElementType();
  if (!isa<FloatType>(elt))
    return error("mean needs a floating point tensor; pass dtype");
  RankedTensorType type = typeOf(x);
  Value s = sum(x, dims, keepdim, elt);
  if (!s)
    return s;
  // Elements folded into each output element.
  int64_t count = numElements(type.getShape()) /
                  std::max<int64_t>(numElements(typeOf(s).getShape()), 1);
  return binary(Binary::Div, s, Scalar::ofInt(count));
}

Value TensorBuilder::amax(Value x, ArrayRef<int64_t> dims, bool keepdim) {
  return sumOrMax(x, dims, keepdim, /*isMax=*/true);
}

Value TensorBuilder::softmax(Value x, int64_t dim, bool log) {
  x = convert(x, floatTypeFor(typeOf(x).getElementType()));
  RankedTensorType type = typeOf(x);
  if (type.getRank() == 0)
    return log ? full({}, type.getElementType(), Scalar::ofFloat(0.0))
               : full({}, type.getElementType(), Scalar::ofFloat(1.0));
  int64_t d = normalizeDim(dim, type.getRank());
  if (d < 0)
    return Value();
  // The shift by the row max only keeps exp in range: softmax does not
  // depend on it, so its gradient is cut (as torch's softmax backward,
  // y * (g - sum(y * g)), has no term for it). Through amax, autodiff
  // would spend a mask, a count and two passes over the input on a term
  // that sums to zero.
  Value max = stopGradient(amax(x, {d}, /*keepdim=*/true));
  Value shifted = binary(Binary::Sub, x, max);
  Value e = unary(Unary::Exp, shifted);
  Value total = sum(e, {d}, /*keepdim=*/true);
  if (log)
    return binary(Binary::Sub, shifted, unary(Unary::Log, total));
  return binary(Binary::Div, e, total);
}
