//===- Values.cpp - the values of the graph walk --------------------------===//
//
// What a TorchScript value becomes in trace IR: a tensor is used through
// the region being filled (passed into it on first use: trace.checkpoint is
// isolated from above), a constant tensor becomes trace.full (a splat) or
// trace.constant, and the dropout seed is a function argument made on first
// use. A module buffer written in place is tracked so that its last value
// leaves the function (and any enclosing checkpoint region) as a result.
//
//===----------------------------------------------------------------------===//

#include "Importer.h"

#include "trace/Dialect/Trace/IR/TraceDialect.h"

#include "mlir/IR/BuiltinAttributes.h"

using namespace mlir;
using namespace mlir::trace;

namespace mlir::trace::ts {

//===----------------------------------------------------------------------===//
// Values
//===----------------------------------------------------------------------===//

Value Importer::capture(Scope *s, Value v) {
  if (!s || v.getParentBlock() == s->block)
    return v;
  auto it = s->captured.find(v);
  if (it != s->captured.end())
    return it->second;
  Value outer = capture(s->parent, v);
  Value arg = s->block->addArgument(v.getType(), v.getLoc());
  s->captured[v] = arg;
  s->outerValues.push_back(outer);
  return arg;
}

Value Importer::use(Value v) { return capture(scope, v); }

Value Importer::bufferArg(const jit::Node *node, const char *name) {
  if (!hasInput(node, name))
    return Value();
  const TSValue &v = lookup(input(node, name));
  if (v.kind != TSValue::Kind::Tensor)
    return Value();
  if (bufferNames.count(v.tensor))
    return v.tensor;
  // num_batches_tracked.add_(1) twice: the second adds to the first's.
  return bufferOfUpdate.lookup(v.tensor);
}

void Importer::updateBuffer(const jit::Node *node, Value buffer,
                            Value updated) {
  // A region's values leave it only through its results: the update is
  // one when the region closes. PyTorch's checkpoint updates the buffer
  // again when it recomputes the region in the backward (momentum applied
  // twice); the compiled step's recomputation does not, so it matches the
  // model without checkpoints. Said once, after the walk.
  if (scope && scope->parent && !llvm::is_contained(scope->updatedBuffers,
                                                     buffer)) {
    if (regionBufferUpdates.insert(buffer).second && !firstRegionUpdate)
      firstRegionUpdate = {tb.getLoc(), bufferNames.lookup(buffer),
                           scope->path};
    scope->updatedBuffers.push_back(buffer);
  }
  bufferUpdates[buffer] = updated;
  bufferOfUpdate[updated] = buffer;
}

Value Importer::getSeed() {
  if (!seed) {
    seed = entry->addArgument(RankedTensorType::get({}, builder.getI64Type()),
                              UnknownLoc::get(ctx));
    argAttrs.push_back(builder.getDictionaryAttr(
        {builder.getNamedAttr(TraceDialect::kNameAttrName,
                              builder.getStringAttr("seed"))}));
  }
  return seed;
}

Type Importer::elementTypeOf(c10::ScalarType st) {
  switch (st) {
  case c10::ScalarType::Float:
    return builder.getF32Type();
  case c10::ScalarType::Double:
    return builder.getF64Type();
  case c10::ScalarType::Half:
    return builder.getF16Type();
  case c10::ScalarType::BFloat16:
    return builder.getBF16Type();
  case c10::ScalarType::Long:
    return builder.getI64Type();
  case c10::ScalarType::Int:
    return builder.getI32Type();
  case c10::ScalarType::Short:
    return builder.getI16Type();
  case c10::ScalarType::Char:
  case c10::ScalarType::Byte:
    return builder.getI8Type();
  case c10::ScalarType::Bool:
    return builder.getI1Type();
  default:
    fail(Twine("unsupported dtype ") + c10::toString(st));
  }
}

Value Importer::constantTensor(const at::Tensor &value) {
  at::Tensor t = value.contiguous();
  Type elt = elementTypeOf(t.scalar_type());
  SmallVector<int64_t> shape(t.sizes().begin(), t.sizes().end());
  // Splats become trace.full: readable, and no data in the IR.
  if (t.numel() > 0) {
    at::Tensor first = t.flatten()[0];
    if (t.eq(first).all().item<bool>()) {
      Scalar s = isa<FloatType>(elt) ? Scalar::ofFloat(first.item<double>())
                 : elt.isInteger(1)  ? Scalar::ofBool(first.item<bool>())
                                     : Scalar::ofInt(first.item<int64_t>());
      return tb.full(shape, elt, s);
    }
  }
  auto type = RankedTensorType::get(shape, elt);
  DenseElementsAttr attr;
  if (elt.isInteger(1)) {
    SmallVector<bool> data;
    auto acc = t.to(at::kBool).flatten();
    for (int64_t i = 0; i < t.numel(); ++i)
      data.push_back(acc[i].item<bool>());
    attr = DenseElementsAttr::get(type, data);
  } else {
    auto *bytes = static_cast<const char *>(t.data_ptr());
    attr = DenseElementsAttr::getFromRawBuffer(
        type, ArrayRef<char>(bytes, t.numel() * t.element_size()));
  }
  return ConstantOp::create(builder, tb.getLoc(), cast<ElementsAttr>(attr));
}

TSValue &Importer::lookup(const jit::Value *v) {
  auto it = env.find(v);
  if (it == env.end())
    fail("internal: value %" + v->debugName() + " used before definition");
  return it->second;
}

Value Importer::asTensor(const TSValue &v, const jit::Value *origin) {
  switch (v.kind) {
  case TSValue::Kind::Tensor:
    return use(v.tensor);
  case TSValue::Kind::Const:
    if (v.constant.isTensor())
      return constantTensor(v.constant.toTensor());
    if (v.constant.isInt() || v.constant.isDouble() || v.constant.isBool()) {
      Scalar s = scalarOf(v.constant);
      return tb.full({}, tb.scalarType(s), s);
    }
    break;
  default:
    break;
  }
  fail("expected a tensor for %" + origin->debugName());
}

} // namespace mlir::trace::ts
