//===- AtenShape.cpp - Core ATen shape and indexing operators -------------===//
//
// The operators of one family (views, reshapes, splits, concatenation,
// gathers): a handler each, named in the table at the end of the file,
// which importNode dispatches on (ExportImporter.cpp). Sizes that are
// symbolic in the program are numbers here (the input shapes bound them).
//
//===----------------------------------------------------------------------===//

#include "Importer.h"

using namespace mlir;
using namespace mlir::trace;
using namespace mlir::trace::pt2;

/// view, _unsafe_view, reshape.
void Importer::atenView(const ex::Node &node, StringRef op) {
  Value x = self(node);
  SmallVector<int64_t> sizes = intsArg(node, op == "reshape" ? "shape" : "size");
  return setResult(node, tb.reshape(x, sizes));
}

/// permute.
void Importer::atenPermute(const ex::Node &node, StringRef op) {
  Value x = self(node);
  return setResult(node, tb.permute(x, intsArg(node, "dims")));
}

/// transpose.int, t.
void Importer::atenTranspose(const ex::Node &node, StringRef op) {
  Value x = self(node);
  if (op == "t") {
    if (TensorBuilder::typeOf(x).getRank() < 2)
      return setResult(node, x);
    return setResult(node, tb.swapDims(x, 0, 1));
  }
  return setResult(node,
                   tb.swapDims(x, intArg(node, "dim0"), intArg(node, "dim1")));
}

/// expand.
void Importer::atenExpand(const ex::Node &node, StringRef op) {
  Value x = self(node);
  return setResult(node, tb.expand(x, intsArg(node, "size")));
}

/// squeeze.default (every size-1 dim), squeeze.dim, squeeze.dims.
void Importer::atenSqueeze(const ex::Node &node, StringRef op) {
  Value x = self(node);
  SmallVector<int64_t> dims = intsArg(node, findArg(node, "dims") ? "dims"
                                                                   : "dim");
  // Dims whose size is not 1 stay, as in torch.
  int64_t rank = TensorBuilder::typeOf(x).getRank();
  SmallVector<int64_t> ones;
  for (int64_t d : dims) {
    int64_t nd = tb.normalizeDim(d, std::max<int64_t>(rank, 1));
    if (nd < 0)
      throw ImportError();
    if (rank > 0 && TensorBuilder::typeOf(x).getDimSize(nd) == 1)
      ones.push_back(nd);
  }
  if (!dims.empty() && ones.empty())
    return setResult(node, x);
  return setResult(node, tb.squeeze(x, ones));
}

/// unsqueeze.
void Importer::atenUnsqueeze(const ex::Node &node, StringRef op) {
  Value x = self(node);
  return setResult(node, tb.unsqueeze(x, intArg(node, "dim")));
}

/// split_with_sizes, split.Tensor: a list of pieces (one output holding
/// their names).
void Importer::atenSplit(const ex::Node &node, StringRef op) {
  Value x = self(node);
  int64_t rank = TensorBuilder::typeOf(x).getRank();
  int64_t dim = tb.normalizeDim(intArg(node, "dim", 0), rank);
  if (dim < 0)
    throw ImportError();
  int64_t size = TensorBuilder::typeOf(x).getDimSize(dim);
  SmallVector<int64_t> sizes;
  if (op == "split_with_sizes") {
    sizes = intsArg(node, "split_sizes");
  } else {
    int64_t each = intArg(node, "split_size");
    if (each <= 0)
      fail(node.get_target() + ": split_size must be positive");
    for (int64_t s = 0; s < size; s += each)
      sizes.push_back(std::min(each, size - s));
  }
  std::optional<SmallVector<Value>> pieces = tb.split(x, sizes, dim);
  if (!pieces)
    throw ImportError();
  const std::vector<ex::Argument> &outputs = node.get_outputs();
  if (outputs.size() != 1 ||
      outputs[0].tag() != ex::Argument::Tag::AS_TENSORS ||
      outputs[0].get_as_tensors().size() != pieces->size())
    fail(node.get_target() + ": expected one output listing " +
         Twine(pieces->size()) + " tensors");
  for (auto [piece, out] : llvm::zip(*pieces, outputs[0].get_as_tensors())) {
    values[out.get_name()] = piece;
    nodeResults[currentNode].push_back(piece);
  }
}

/// slice.Tensor.
void Importer::atenSlice(const ex::Node &node, StringRef op) {
  Value x = self(node);
  int64_t dim = intArg(node, "dim", 0);
  std::optional<int64_t> start = optIntArg(node, "start");
  std::optional<int64_t> end = optIntArg(node, "end");
  int64_t step = intArg(node, "step", 1);
  return setResult(node, tb.slice(x, dim, start, end, step));
}

/// select.int.
void Importer::atenSelect(const ex::Node &node, StringRef op) {
  Value x = self(node);
  return setResult(node,
                   tb.select(x, intArg(node, "dim"), intArg(node, "index")));
}

/// cat.
void Importer::atenCat(const ex::Node &node, StringRef op) {
  const ex::Argument &list = arg(node, "tensors");
  if (list.tag() != ex::Argument::Tag::AS_TENSORS)
    badArg(node, "tensors", list, "a list of tensors");
  SmallVector<Value> parts;
  for (const ex::TensorArgument &t : list.get_as_tensors())
    parts.push_back(valueNamed(t.get_name()));
  return setResult(node, tb.concat(parts, intArg(node, "dim", 0)));
}

/// gather.
void Importer::atenGather(const ex::Node &node, StringRef op) {
  Value x = self(node);
  Value index = tensorArg(node, "index");
  if (boolArg(node, "sparse_grad", false))
    fail(node.get_target() + ": sparse gradients are not supported");
  return setResult(node, tb.gather(x, intArg(node, "dim"), index));
}

/// index_select.
void Importer::atenIndexSelect(const ex::Node &node, StringRef op) {
  Value x = self(node);
  Value index = tensorArg(node, "index");
  return setResult(node, tb.indexSelect(x, intArg(node, "dim"), index));
}

/// scatter_add: x with src added at index along dim.
void Importer::atenScatterAdd(const ex::Node &node, StringRef op) {
  Value x = self(node);
  Value index = tensorArg(node, "index");
  Value src = tensorArg(node, "src");
  return setResult(node, tb.scatterAdd(x, intArg(node, "dim"), index, src));
}

/// scatter.src, scatter.value (a number for every index), scatter_reduce.two
/// (sum, mean).
void Importer::atenScatter(const ex::Node &node, StringRef op) {
  Value x = self(node);
  Value index = tensorArg(node, "index");
  Value src;
  if (op == "scatter" && !findArg(node, "src")) {
    RankedTensorType type = TensorBuilder::typeOf(x);
    src = check(tb.full(TensorBuilder::typeOf(index).getShape(),
                        type.getElementType(), scalarArg(node, "value")));
  } else {
    src = tensorArg(node, "src");
  }
  std::string reduce =
      op == "scatter" ? "replace" : stringArg(node, "reduce").value_or("");
  return setResult(node, tb.scatterReduce(x, intArg(node, "dim"), index, src,
                                          reduce,
                                          boolArg(node, "include_self", true)));
}

/// constant_pad_nd: `pad` holds (before, after) pairs from the last dim
/// backwards; a negative amount crops. Padding is a concatenation with a
/// constant block, so the gradient of the input is the matching slice.
void Importer::atenConstantPad(const ex::Node &node, StringRef op) {
  Value x = self(node);
  SmallVector<int64_t> pad = intsArg(node, "pad");
  Scalar value = scalarArg(node, "value", Scalar::ofInt(0));
  int64_t rank = TensorBuilder::typeOf(x).getRank();
  if (pad.size() % 2 != 0 || int64_t(pad.size()) > 2 * rank)
    fail(node.get_target() + ": pad has " + Twine(pad.size()) +
         " entries for a rank-" + Twine(rank) + " tensor");
  for (size_t i = 0; i < pad.size(); i += 2) {
    int64_t dim = rank - 1 - int64_t(i / 2);
    int64_t before = pad[i], after = pad[i + 1];
    int64_t size = TensorBuilder::typeOf(x).getDimSize(dim);
    if (size + std::min<int64_t>(before, 0) + std::min<int64_t>(after, 0) < 0)
      fail(node.get_target() + ": crops more than dim " + Twine(dim) +
           " holds");
    if (before < 0 || after < 0)
      x = check(tb.slice(x, dim, std::max<int64_t>(-before, 0),
                         size - std::max<int64_t>(-after, 0), 1));
    SmallVector<Value> parts;
    auto block = [&](int64_t n) {
      SmallVector<int64_t> shape(TensorBuilder::typeOf(x).getShape());
      shape[dim] = n;
      parts.push_back(check(tb.full(
          shape, TensorBuilder::typeOf(x).getElementType(), value)));
    };
    if (before > 0)
      block(before);
    parts.push_back(x);
    if (after > 0)
      block(after);
    if (parts.size() > 1)
      x = check(tb.concat(parts, dim));
  }
  return setResult(node, x);
}

/// flip.default.
void Importer::atenFlip(const ex::Node &node, StringRef op) {
  return setResult(node, tb.flip(self(node), intsArg(node, "dims")));
}

/// repeat.default.
void Importer::atenRepeat(const ex::Node &node, StringRef op) {
  return setResult(node, tb.repeat(self(node), intsArg(node, "repeats")));
}

/// diagonal.default.
void Importer::atenDiagonal(const ex::Node &node, StringRef op) {
  return setResult(node, tb.diagonal(self(node), intArg(node, "offset", 0),
                                     intArg(node, "dim1", 0),
                                     intArg(node, "dim2", 1)));
}

/// slice_scatter.default, select_scatter.default (the slice of one index,
/// src without the dim).
void Importer::atenSliceScatter(const ex::Node &node, StringRef op) {
  Value x = self(node);
  Value src = tensorArg(node, "src");
  int64_t dim = intArg(node, "dim", 0);
  if (op == "select_scatter") {
    int64_t rank = TensorBuilder::typeOf(x).getRank();
    int64_t d = tb.normalizeDim(dim, rank);
    if (d < 0)
      throw ImportError();
    int64_t size = TensorBuilder::typeOf(x).getDimSize(d);
    int64_t index = intArg(node, "index");
    if (index < -size || index >= size)
      fail(node.get_target() + ": index " + Twine(index) +
           " is out of range for dim " + Twine(d) + " of size " +
           Twine(size));
    if (index < 0)
      index += size;
    return setResult(node, tb.sliceScatter(x, check(tb.unsqueeze(src, d)), d,
                                           index, index + 1, 1));
  }
  return setResult(node, tb.sliceScatter(x, src, dim, optIntArg(node, "start"),
                                         optIntArg(node, "end"),
                                         intArg(node, "step", 1)));
}

/// The `indices` of index.Tensor and index_put: a null Value for None.
SmallVector<Value> Importer::optionalTensorsArg(const ex::Node &node,
                                                StringRef name) {
  const ex::Argument &a = arg(node, name);
  SmallVector<Value> out;
  if (a.tag() == ex::Argument::Tag::AS_TENSORS) {
    for (const ex::TensorArgument &t : a.get_as_tensors())
      out.push_back(valueNamed(t.get_name()));
    return out;
  }
  if (a.tag() != ex::Argument::Tag::AS_OPTIONAL_TENSORS)
    badArg(node, name, a, "a list of optional tensors");
  for (const ex::OptionalTensorArgument &t : a.get_as_optional_tensors())
    out.push_back(t.tag() == ex::OptionalTensorArgument::Tag::AS_TENSOR
                      ? valueNamed(t.get_as_tensor().get_name())
                      : Value());
  return out;
}

/// index.Tensor (advanced indexing), index_put.default.
void Importer::atenIndex(const ex::Node &node, StringRef op) {
  Value x = self(node);
  SmallVector<Value> indices = optionalTensorsArg(node, "indices");
  if (op == "index")
    return setResult(node, tb.index(x, indices));
  return setResult(node, tb.indexPut(x, indices, tensorArg(node, "values"),
                                     boolArg(node, "accumulate", false)));
}

/// reflection_pad{1,2,3}d, replication_pad{1,2,3}d.
void Importer::atenPadIndexed(const ex::Node &node, StringRef op) {
  return setResult(node, tb.padIndexed(self(node), intsArg(node, "padding"),
                                       op.starts_with("reflection")));
}

ArrayRef<Importer::Entry> Importer::shapeOps() {
  static const Entry entries[] = {
      {"torch.ops.aten.scatter_add.default", &Importer::atenScatterAdd},
      {"torch.ops.aten.scatter.src", &Importer::atenScatter},
      {"torch.ops.aten.scatter.value", &Importer::atenScatter},
      {"torch.ops.aten.scatter_reduce.two", &Importer::atenScatter},
      {"torch.ops.aten.constant_pad_nd.default", &Importer::atenConstantPad},
      {"torch.ops.aten.view.default", &Importer::atenView},
      {"torch.ops.aten._unsafe_view.default", &Importer::atenView},
      {"torch.ops.aten.reshape.default", &Importer::atenView},
      {"torch.ops.aten.permute.default", &Importer::atenPermute},
      {"torch.ops.aten.transpose.int", &Importer::atenTranspose},
      {"torch.ops.aten.t.default", &Importer::atenTranspose},
      {"torch.ops.aten.expand.default", &Importer::atenExpand},
      {"torch.ops.aten.squeeze.default", &Importer::atenSqueeze},
      {"torch.ops.aten.squeeze.dim", &Importer::atenSqueeze},
      {"torch.ops.aten.squeeze.dims", &Importer::atenSqueeze},
      {"torch.ops.aten.unsqueeze.default", &Importer::atenUnsqueeze},
      {"torch.ops.aten.split_with_sizes.default", &Importer::atenSplit},
      {"torch.ops.aten.split.Tensor", &Importer::atenSplit},
      {"torch.ops.aten.slice.Tensor", &Importer::atenSlice},
      {"torch.ops.aten.select.int", &Importer::atenSelect},
      {"torch.ops.aten.cat.default", &Importer::atenCat},
      {"torch.ops.aten.flip.default", &Importer::atenFlip},
      {"torch.ops.aten.repeat.default", &Importer::atenRepeat},
      {"torch.ops.aten.diagonal.default", &Importer::atenDiagonal},
      {"torch.ops.aten.slice_scatter.default", &Importer::atenSliceScatter},
      {"torch.ops.aten.select_scatter.default", &Importer::atenSliceScatter},
      {"torch.ops.aten.index.Tensor", &Importer::atenIndex},
      {"torch.ops.aten.index_put.default", &Importer::atenIndex},
      {"torch.ops.aten.reflection_pad1d.default", &Importer::atenPadIndexed},
      {"torch.ops.aten.reflection_pad2d.default", &Importer::atenPadIndexed},
      {"torch.ops.aten.reflection_pad3d.default", &Importer::atenPadIndexed},
      {"torch.ops.aten.replication_pad1d.default", &Importer::atenPadIndexed},
      {"torch.ops.aten.replication_pad2d.default", &Importer::atenPadIndexed},
      {"torch.ops.aten.replication_pad3d.default", &Importer::atenPadIndexed},
      {"torch.ops.aten.gather.default", &Importer::atenGather},
      {"torch.ops.aten.index_select.default", &Importer::atenIndexSelect},
  };
  return entries;
}
