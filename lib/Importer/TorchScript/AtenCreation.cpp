//===- AtenCreation.cpp - aten tensors from sizes and values --------------===//
//
// The aten operators of one family (tensors made from sizes and values): a
// handler each, named in the table at the end of the file, which importAten
// dispatches on (GraphWalk.cpp).
//
//===----------------------------------------------------------------------===//

#include "Importer.h"

using namespace mlir;
using namespace mlir::trace;
using namespace mlir::trace::ts;

/// aten::ones, aten::zeros, aten::full, aten::ones_like, aten::zeros_like,
/// aten::full_like.
void Importer::atenOnes(jit::Node *node, StringRef name) {
  bool like = StringRef(name).ends_with("_like");
  SmallVector<int64_t> shape;
  Type elt = builder.getF32Type();
  if (like) {
    Value ref = self(node);
    shape.assign(TensorBuilder::typeOf(ref).getShape().begin(),
                 TensorBuilder::typeOf(ref).getShape().end());
    elt = TensorBuilder::typeOf(ref).getElementType();
  } else {
    std::vector<int64_t> s = intListArg(node, "size");
    shape.assign(s.begin(), s.end());
  }
  StringRef op(name);
  Scalar value = op.starts_with("ones")  ? Scalar::ofInt(1)
                 : op.starts_with("zeros")
                     ? Scalar::ofInt(0)
                     : scalarOf(constArg(node, "fill_value"));
  if (!like && op.starts_with("full") && value.kind != Scalar::Kind::Float)
    elt = tb.scalarType(value);
  if (auto dt = dtypeArg(node, "dtype"))
    elt = *dt;
  return setResult(node, tb.full(shape, elt, value));
}

/// aten::arange.
void Importer::atenArange(jit::Node *node, StringRef name) {
  Scalar start = Scalar::ofInt(0), step = Scalar::ofInt(1);
  Scalar end = scalarOf(constArg(node, "end"));
  if (hasInput(node, "start"))
    start = scalarOf(constArg(node, "start"));
  if (hasInput(node, "step"))
    step = scalarOf(constArg(node, "step"));
  bool integral = start.kind != Scalar::Kind::Float &&
                  end.kind != Scalar::Kind::Float &&
                  step.kind != Scalar::Kind::Float;
  Type elt = integral ? Type(builder.getI64Type()) : Type(builder.getF32Type());
  if (auto dt = dtypeArg(node, "dtype"))
    elt = *dt;
  return setResult(node, tb.arange(start, end, step, elt));
}

ArrayRef<Importer::AtenEntry> Importer::creationAtenOps() {
  static const AtenEntry entries[] = {
      {"ones", &Importer::atenOnes},
      {"zeros", &Importer::atenOnes},
      {"full", &Importer::atenOnes},
      {"ones_like", &Importer::atenOnes},
      {"zeros_like", &Importer::atenOnes},
      {"full_like", &Importer::atenOnes},
      {"arange", &Importer::atenArange},
  };
  return entries;
}
