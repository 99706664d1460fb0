//===- AtenShape.cpp - aten shape and view operators ----------------------===//
//
// The aten operators of one family (shape and view operators): a handler
// each, named in the table at the end of the file, which importAten
// dispatches on (GraphWalk.cpp).
//
//===----------------------------------------------------------------------===//

#include "Importer.h"

using namespace mlir;
using namespace mlir::trace;
using namespace mlir::trace::ts;

/// The node's `dim` as a dimension of `v` (negative counts from the end),
/// and its size.
std::pair<int64_t, int64_t> Importer::dimArg(jit::Node *node, Value v) {
  int64_t nd = tb.normalizeDim(intArg(node, "dim"),
                               TensorBuilder::typeOf(v).getRank());
  if (nd < 0)
    throw ImportError();
  return {nd, TensorBuilder::typeOf(v).getDimSize(nd)};
}

/// aten::view, aten::reshape, aten::_reshape_alias.
void Importer::atenView(jit::Node *node, StringRef name) {
  Value v = self(node);
  // view and _reshape_alias name it `size`, reshape `shape`.
  std::vector<int64_t> sizes =
      intListArg(node, name == "reshape" ? "shape" : "size");
  return setResult(node, tb.reshape(v, sizes));
}

/// aten::view_as, aten::reshape_as, aten::expand_as.
void Importer::atenViewAs(jit::Node *node, StringRef name) {
  ArrayRef<int64_t> shape =
      TensorBuilder::typeOf(tensorArg(node, "other")).getShape();
  if (name == "expand_as")
    return setResult(node, tb.expand(self(node), shape));
  return setResult(node, tb.reshape(self(node), shape));
}

/// aten::flatten.
void Importer::atenFlatten(jit::Node *node, StringRef name) {
  return setResult(node, tb.flatten(tensorArg(node, "self"),
                        intArg(node, "start_dim"), intArg(node, "end_dim")));
}

/// aten::unflatten: dim `dim` split into `sizes` (one may be -1), as
/// PyTorch 2's MultiheadAttention splits its packed projection.
void Importer::atenUnflatten(jit::Node *node, StringRef name) {
  Value v = self(node);
  auto type = TensorBuilder::typeOf(v);
  int64_t dim = tb.normalizeDim(intArg(node, "dim"), type.getRank());
  if (dim < 0)
    throw ImportError();
  std::vector<int64_t> sizes = intListArg(node, "sizes");
  SmallVector<int64_t> shape(type.getShape().take_front(dim));
  shape.append(sizes.begin(), sizes.end());
  shape.append(type.getShape().begin() + dim + 1, type.getShape().end());
  return setResult(node, tb.reshape(v, shape));
}

/// aten::transpose.
void Importer::atenTranspose(jit::Node *node, StringRef name) {
  Value v = self(node);
  return setResult(
      node, tb.swapDims(v, intArg(node, "dim0"), intArg(node, "dim1")));
}

/// aten::flip.
void Importer::atenFlip(jit::Node *node, StringRef name) {
  Value v = self(node);
  return setResult(node, tb.flip(v, intListArg(node, "dims")));
}

/// aten::t.
void Importer::atenT(jit::Node *node, StringRef name) {
  Value v = self(node);
  return setResult(node, TensorBuilder::typeOf(v).getRank() < 2 ? v
                                                     : tb.swapDims(v, 0, 1));
}

/// aten::permute.
void Importer::atenPermute(jit::Node *node, StringRef name) {
  return setResult(node, tb.permute(self(node), intListArg(node, "dims")));
}

/// aten::contiguous, aten::clone, aten::alias, aten::lift_fresh.
void Importer::atenContiguous(jit::Node *node, StringRef name) {
  return setResult(node, self(node));
}

/// aten::detach.
void Importer::atenDetach(jit::Node *node, StringRef name) {
  return setResult(node, tb.stopGradient(self(node)));
}

/// aten::unsqueeze.
void Importer::atenUnsqueeze(jit::Node *node, StringRef name) {
  return setResult(node, tb.unsqueeze(self(node), intArg(node, "dim")));
}

/// aten::squeeze.
void Importer::atenSqueeze(jit::Node *node, StringRef name) {
  std::vector<int64_t> dims;
  if (hasInput(node, "dim"))
    dims = intListArg(node, "dim");
  return setResult(node, tb.squeeze(self(node), dims));
}

/// aten::expand.
void Importer::atenExpand(jit::Node *node, StringRef name) {
  return setResult(node, tb.expand(self(node), intListArg(node, "size")));
}

/// aten::slice.
void Importer::atenSlice(jit::Node *node, StringRef name) {
  int64_t step = intArg(node, "step");
  Value v = self(node);
  return setResult(node, tb.slice(v, intArg(node, "dim"),
                                  optIntArg(node, "start"),
                                  optIntArg(node, "end"), step));
}

/// aten::select.
void Importer::atenSelect(jit::Node *node, StringRef name) {
  Value v = self(node);
  return setResult(
      node, tb.select(v, intArg(node, "dim"), intArg(node, "index")));
}

/// aten::narrow.
void Importer::atenNarrow(jit::Node *node, StringRef name) {
  int64_t start = intArg(node, "start"), length = intArg(node, "length");
  Value v = self(node);
  auto [nd, size] = dimArg(node, v);
  if (start < 0)
    start += size;
  if (start < 0 || length < 0 || start + length > size)
    fail("aten::narrow: start " + Twine(start) + " + length " +
         Twine(length) + " exceeds dim size " + Twine(size));
  return setResult(node, tb.slice(v, nd, start, start + length, 1));
}

/// The node's `tensors` argument, a list of tensors (`name` names the op
/// in the error).
SmallVector<Value> Importer::tensorListArg(jit::Node *node, StringRef name) {
  const jit::Value *listValue = input(node, "tensors");
  TSValue &list = lookup(listValue);
  if (list.kind != TSValue::Kind::List)
    fail("aten::" + name + " of a value that is not a list");
  SmallVector<Value> parts;
  for (const TSValue &e : list.elements)
    parts.push_back(asTensor(e, listValue));
  return parts;
}

/// aten::cat, aten::concat.
void Importer::atenCat(jit::Node *node, StringRef name) {
  return setResult(node, tb.concat(tensorListArg(node, "cat"),
                                   intArg(node, "dim")));
}

/// aten::stack.
void Importer::atenStack(jit::Node *node, StringRef name) {
  return setResult(node, tb.stack(tensorListArg(node, "stack"),
                                  intArg(node, "dim")));
}

/// aten::gather, aten::scatter_add, aten::index_select.
void Importer::atenGather(jit::Node *node, StringRef name) {
  Value v = self(node);
  Value index = tensorArg(node, "index");
  int64_t dim = intArg(node, "dim");
  if (name == "index_select")
    return setResult(node, tb.indexSelect(v, dim, index));
  if (name == "scatter_add")
    return setResult(node,
                     tb.scatterAdd(v, dim, index, tensorArg(node, "src")));
  return setResult(node, tb.gather(v, dim, index));
}

/// aten::split, aten::split_with_sizes, aten::chunk, aten::unsafe_split,
/// aten::unsafe_chunk.
void Importer::atenSplit(jit::Node *node, StringRef name) {
  Value v = self(node);
  auto [nd, size] = dimArg(node, v);
  std::vector<int64_t> sizes;
  if (StringRef(name).ends_with("chunk")) {
    int64_t chunks = intArg(node, "chunks");
    if (chunks <= 0)
      fail("aten::chunk: chunks must be positive");
    int64_t each = (size + chunks - 1) / chunks;
    for (int64_t s = 0; s < size; s += each)
      sizes.push_back(std::min(each, size - s));
  } else if (name == "split_with_sizes") {
    sizes = intListArg(node, "split_sizes");
  } else {
    c10::IValue arg = constArg(node, "split_size");
    if (arg.isInt()) {
      int64_t each = arg.toInt();
      if (each <= 0)
        fail("aten::split: split_size must be positive");
      for (int64_t s = 0; s < size; s += each)
        sizes.push_back(std::min(each, size - s));
    } else {
      sizes = intListArg(node, "split_size");
    }
  }
  auto pieces = tb.split(v, sizes, nd);
  if (!pieces)
    throw ImportError();
  std::vector<TSValue> elems;
  for (Value p : *pieces)
    elems.push_back(TSValue::ofTensor(p));
  env[node->output()] = TSValue::ofList(std::move(elems));
  return;
}

ArrayRef<Importer::AtenEntry> Importer::shapeAtenOps() {
  static const AtenEntry entries[] = {
      {"view", &Importer::atenView},
      {"reshape", &Importer::atenView},
      {"_reshape_alias", &Importer::atenView},
      {"view_as", &Importer::atenViewAs},
      {"reshape_as", &Importer::atenViewAs},
      {"expand_as", &Importer::atenViewAs},
      {"flatten", &Importer::atenFlatten},
      {"unflatten", &Importer::atenUnflatten},
      {"transpose", &Importer::atenTranspose},
      {"t", &Importer::atenT},
      {"permute", &Importer::atenPermute},
      {"flip", &Importer::atenFlip},
      {"contiguous", &Importer::atenContiguous},
      {"clone", &Importer::atenContiguous},
      {"alias", &Importer::atenContiguous},
      {"lift_fresh", &Importer::atenContiguous},
      {"detach", &Importer::atenDetach},
      {"unsqueeze", &Importer::atenUnsqueeze},
      {"squeeze", &Importer::atenSqueeze},
      {"expand", &Importer::atenExpand},
      {"slice", &Importer::atenSlice},
      {"select", &Importer::atenSelect},
      {"narrow", &Importer::atenNarrow},
      {"cat", &Importer::atenCat},
      {"stack", &Importer::atenStack},
      {"gather", &Importer::atenGather},
      {"scatter_add", &Importer::atenGather},
      {"index_select", &Importer::atenGather},
      {"concat", &Importer::atenCat},
      {"split", &Importer::atenSplit},
      {"split_with_sizes", &Importer::atenSplit},
      {"chunk", &Importer::atenSplit},
      {"unsafe_split", &Importer::atenSplit},
      {"unsafe_chunk", &Importer::atenSplit},
  };
  return entries;
}
