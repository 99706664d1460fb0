//===- AtenCreation.cpp - Core ATen tensor factories ----------------------===//
//
// The operators of one family (tensors made from numbers: arange, full,
// scalar_tensor): a handler each, named in the table at the end of the
// file, which importNode dispatches on (ExportImporter.cpp). They become
// trace.iota / trace.full, never data in the IR.
//
//===----------------------------------------------------------------------===//

#include "Importer.h"

using namespace mlir;
using namespace mlir::trace;
using namespace mlir::trace::pt2;

/// arange.default, arange.start, arange.start_step: integers unless a bound
/// is a float, as torch.arange.
void Importer::atenArange(const ex::Node &node, StringRef op) {
  Scalar start = scalarArg(node, "start", Scalar::ofInt(0));
  Scalar end = scalarArg(node, "end");
  Scalar step = scalarArg(node, "step", Scalar::ofInt(1));
  bool integral = start.kind != Scalar::Kind::Float &&
                  end.kind != Scalar::Kind::Float &&
                  step.kind != Scalar::Kind::Float;
  Type element =
      integral ? Type(builder.getI64Type()) : Type(builder.getF32Type());
  if (std::optional<Type> dtype = dtypeArg(node, "dtype"))
    element = *dtype;
  return setResult(node, tb.arange(start, end, step, element));
}

/// scalar_tensor: a 0-d tensor (f32 unless `dtype` says).
void Importer::atenScalarTensor(const ex::Node &node, StringRef op) {
  Scalar value = scalarArg(node, "s");
  Type element = dtypeArg(node, "dtype").value_or(builder.getF32Type());
  return setResult(node, tb.full({}, element, value));
}

/// full.default, full_like.default: the dtype of the value (a float is
/// f32), unless `dtype` says; full_like takes its reference's.
void Importer::atenFull(const ex::Node &node, StringRef op) {
  Scalar value = scalarArg(node, "fill_value");
  SmallVector<int64_t> shape;
  Type element = value.kind == Scalar::Kind::Float
                     ? Type(builder.getF32Type())
                     : tb.scalarType(value);
  if (op == "full_like") {
    RankedTensorType like = TensorBuilder::typeOf(self(node));
    shape.assign(like.getShape().begin(), like.getShape().end());
    element = like.getElementType();
  } else {
    shape = intsArg(node, "size");
  }
  if (std::optional<Type> dtype = dtypeArg(node, "dtype"))
    element = *dtype;
  return setResult(node, tb.full(shape, element, value));
}

/// empty.memory_format, empty_strided: zeros of the size and dtype (f32
/// unless given). torch leaves the values unset; zeros make a program that
/// reads them anyway deterministic.
void Importer::atenEmpty(const ex::Node &node, StringRef op) {
  SmallVector<int64_t> shape = intsArg(node, "size");
  Type element = dtypeArg(node, "dtype").value_or(builder.getF32Type());
  return setResult(node, tb.full(shape, element, Scalar::ofInt(0)));
}

ArrayRef<Importer::Entry> Importer::creationOps() {
  static const Entry entries[] = {
      {"torch.ops.aten.arange.default", &Importer::atenArange},
      {"torch.ops.aten.arange.start", &Importer::atenArange},
      {"torch.ops.aten.arange.start_step", &Importer::atenArange},
      {"torch.ops.aten.scalar_tensor.default", &Importer::atenScalarTensor},
      {"torch.ops.aten.full.default", &Importer::atenFull},
      {"torch.ops.aten.full_like.default", &Importer::atenFull},
      {"torch.ops.aten.empty.memory_format", &Importer::atenEmpty},
      {"torch.ops.aten.empty_strided.default", &Importer::atenEmpty},
  };
  return entries;
}
