//===- Creation.cpp - tensors from sizes and values -----------------------===//
//
// The builders of one family (tensors made from sizes and values: full,
// arange, a scalar materialized as a tensor), as the importers'
// AtenCreation.cpp.
//
//===----------------------------------------------------------------------===//

#include "trace/Importer/TensorBuilder.h"

#include "Detail.h"

#include <cmath>

using namespace mlir;
using namespace mlir::trace;
using namespace mlir::trace::detail;

//===----------------------------------------------------------------------===//
// Sources
//===----------------------------------------------------------------------===//

Value TensorBuilder::full(ArrayRef<int64_t> shape, Type element,
                          const Scalar &value) {
  auto type = RankedTensorType::get(shape, element);
  TypedAttr attr;
  if (isa<FloatType>(element))
    attr = b.getFloatAttr(element, value.asDouble());
  else if (element.isInteger(1))
    attr = b.getBoolAttr(value.asDouble() != 0.0);
  else
    attr = b.getIntegerAttr(element, value.kind == Scalar::Kind::Float
                                         ? Scalar::saturateToInt64(value.f)
                                         : value.i);
  return FullOp::create(b, loc, type, attr);
}

Value TensorBuilder::materialize(const Operand &x, ArrayRef<int64_t> shape,
                                 Type element) {
  if (x.scalar)
    return full(shape, element, *x.scalar);
  Value v = convert(x.tensor, element);
  return v ? broadcastTo(v, shape) : v;
}

Value TensorBuilder::arange(const Scalar &start, const Scalar &end,
                            const Scalar &step, Type element) {
  double s = start.asDouble(), e = end.asDouble(), d = step.asDouble();
  if (d == 0.0 || (d > 0 && e < s) || (d < 0 && e > s))
    return error("arange: the step must move from start towards end");
  auto n = static_cast<int64_t>(std::ceil((e - s) / d));
  bool integral = start.kind != Scalar::Kind::Float &&
                  end.kind != Scalar::Kind::Float &&
                  step.kind != Scalar::Kind::Float;
  Type compute = integral ? Type(b.getI64Type()) : Type(b.getF64Type());
  Value idx = IotaOp::create(b, loc, RankedTensorType::get({n}, compute), 0);
  Value v = binary(Binary::Mul, idx, step);
  v = binary(Binary::Add, v, start);
  return convert(v, element);
}
