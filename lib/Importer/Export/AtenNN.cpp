//===- AtenNN.cpp - Core ATen nn operators --------------------------------===//
//
// The operators of one family (nn: matrix products, activations, norms,
// dropout, embeddings): a handler each, named in the table at the end of
// the file, which importNode dispatches on (ExportImporter.cpp).
//
// The native_* operators return statistics beside their result (a norm's
// mean and reciprocal deviation, dropout's mask) that the backward of an
// eager step reads; the imported function is differentiated by
// trace-autodiff instead, so only the ones a later node reads are built.
//
//===----------------------------------------------------------------------===//

#include "Importer.h"

using namespace mlir;
using namespace mlir::trace;
using namespace mlir::trace::pt2;

/// gelu.
void Importer::atenGelu(const ex::Node &node, StringRef op) {
  std::string approximate = stringArg(node, "approximate").value_or("none");
  if (approximate != "none" && approximate != "tanh")
    fail(node.get_target() + ": unknown approximate='" + approximate + "'");
  return setResult(node, tb.gelu(self(node), approximate == "tanh"));
}

/// native_dropout: (output, mask). The output is TensorBuilder's dropout,
/// the TorchScript importer's: the same Philox op, seed and offsets in op
/// order, so a recomputed mask is bit-identical.
void Importer::atenDropout(const ex::Node &node, StringRef op) {
  Value input = tensorArg(node, "input");
  double p = floatArg(node, "p");
  // train: None is training, as in ATen.
  bool train = boolArg(node, "train", true) && !options.dropoutAsIdentity;
  if (usedOutput(node, 1))
    fail(node.get_target() + ": its mask (output 1) is read by a later node; "
                             "only the dropped-out output is supported");
  return setResult(node, 0, tb.dropout(input, p, train));
}

/// _softmax, _log_softmax.
void Importer::atenSoftmax(const ex::Node &node, StringRef op) {
  Value x = self(node);
  int64_t dim = intArg(node, "dim");
  return setResult(node, tb.softmax(x, dim, op == "_log_softmax"));
}

/// native_layer_norm: (output, mean, rstd), the statistics over the
/// normalized dims kept as size-1 dims.
void Importer::atenLayerNorm(const ex::Node &node, StringRef op) {
  Value input = tensorArg(node, "input");
  SmallVector<int64_t> shape = intsArg(node, "normalized_shape");
  Value weight = optTensorArg(node, "weight");
  Value bias = optTensorArg(node, "bias");
  double eps = floatArg(node, "eps");
  setResult(node, 0, tb.layerNorm(input, shape, weight, bias, eps));
  if (!usedOutput(node, 1) && !usedOutput(node, 2))
    return;
  int64_t rank = TensorBuilder::typeOf(input).getRank();
  SmallVector<int64_t> dims;
  for (int64_t d = rank - int64_t(shape.size()); d < rank; ++d)
    dims.push_back(d);
  setStatistics(node, input, dims, /*keepdim=*/true, eps);
}

/// Outputs 1 and 2 of a norm: the mean of `input` over `dims` and
/// 1 / sqrt(var + eps), var without correction, as torch's kernels save
/// them; differentiable, as native_group_norm's are in torch.
void Importer::setStatistics(const ex::Node &node, Value input,
                             ArrayRef<int64_t> dims, bool keepdim,
                             double eps) {
  using B = TensorBuilder::Binary;
  Value x = tb.convert(input, tb.floatTypeFor(TensorBuilder::typeOf(input)
                                                  .getElementType()));
  Value mean = check(tb.mean(x, dims, /*keepdim=*/true));
  Value centered = tb.binary(B::Sub, x, mean);
  Value squares = tb.binary(B::Mul, centered, centered);
  Value var = check(tb.mean(squares, dims, keepdim));
  Value shifted = tb.binary(B::Add, var, Scalar::ofFloat(eps));
  if (!keepdim)
    mean = check(tb.squeeze(mean, dims));
  Value rstd = tb.unary(TensorBuilder::Unary::Rsqrt, shifted);
  setResult(node, 1, mean);
  setResult(node, 2, rstd);
}

/// _native_batch_norm_legit_functional: (output, save_mean, save_rstd,
/// new running_mean, new running_var), the functional form of BatchNorm in
/// training (the program returns the new statistics as buffer mutations);
/// _native_batch_norm_legit_no_training: (output, mean, rstd), in eval.
void Importer::atenBatchNorm(const ex::Node &node, StringRef op) {
  Value input = tensorArg(node, "input");
  Value weight = optTensorArg(node, "weight");
  Value bias = optTensorArg(node, "bias");
  Value runningMean = optTensorArg(node, "running_mean");
  Value runningVar = optTensorArg(node, "running_var");
  bool training = op == "_native_batch_norm_legit_functional" &&
                  boolArg(node, "training");
  double momentum = floatArg(node, "momentum");
  double eps = floatArg(node, "eps");
  if (usedOutput(node, 1) || usedOutput(node, 2))
    fail(node.get_target() + ": its saved statistics (outputs 1 and 2) are "
                             "read by a later node; unsupported");
  TensorBuilder::BatchNorm result = tb.batchNorm(
      input, weight, bias, runningMean, runningVar, training, momentum, eps);
  setResult(node, 0, result.output);
  if (op != "_native_batch_norm_legit_functional")
    return;
  // Not training, or without running statistics: they stay as they are.
  if (usedOutput(node, 3))
    setResult(node, 3, result.runningMean ? result.runningMean : runningMean);
  if (usedOutput(node, 4))
    setResult(node, 4, result.runningVar ? result.runningVar : runningVar);
}

/// _native_batch_norm_legit.no_stats: (output, mean, rstd), BatchNorm in
/// training without running statistics (track_running_stats=False).
void Importer::atenBatchNormNoStats(const ex::Node &node, StringRef op) {
  bool training = boolArg(node, "training");
  bool statistics = usedOutput(node, 1) || usedOutput(node, 2);
  if (statistics && !training)
    fail(node.get_target() + ": its saved statistics (outputs 1 and 2) "
                             "out of training are read by a later node; "
                             "unsupported");
  Value input = tensorArg(node, "input");
  Value weight = optTensorArg(node, "weight");
  Value bias = optTensorArg(node, "bias");
  double eps = floatArg(node, "eps");
  TensorBuilder::BatchNorm result =
      tb.batchNorm(input, weight, bias, Value(), Value(), training,
                   floatArg(node, "momentum"), eps);
  setResult(node, 0, result.output);
  if (!statistics)
    return;
  // The batch's statistics per channel: over every dim but 1.
  SmallVector<int64_t> dims;
  for (int64_t d = 0, e = TensorBuilder::typeOf(input).getRank(); d < e; ++d)
    if (d != 1)
      dims.push_back(d);
  setStatistics(node, input, dims, /*keepdim=*/false, eps);
}

/// native_group_norm: (output, mean, rstd); N, C and HxW restate the
/// input's shape.
void Importer::atenGroupNorm(const ex::Node &node, StringRef op) {
  Value input = tensorArg(node, "input");
  Value weight = optTensorArg(node, "weight");
  Value bias = optTensorArg(node, "bias");
  int64_t groups = intArg(node, "group");
  double eps = floatArg(node, "eps");
  setResult(node, 0, tb.groupNorm(input, groups, weight, bias, eps));
  if (!usedOutput(node, 1) && !usedOutput(node, 2))
    return;
  // Per sample and group, [N, G]: over the group's channels and positions.
  int64_t n = TensorBuilder::typeOf(input).getDimSize(0);
  Value grouped = check(tb.reshape(input, {n, groups, -1}));
  setStatistics(node, grouped, {2}, /*keepdim=*/false, eps);
}

/// hardtanh (relu6 decomposes to it): a clamp whose gradient is 0 at the
/// bounds, as torch's.
void Importer::atenHardtanh(const ex::Node &node, StringRef op) {
  Scalar lo = scalarArg(node, "min_val", Scalar::ofFloat(-1.0));
  Scalar hi = scalarArg(node, "max_val", Scalar::ofFloat(1.0));
  return setResult(node, tb.clamp(self(node), Operand(lo), Operand(hi),
                                  /*boundsPass=*/false));
}

/// addmm: beta * self + alpha * (mat1 @ mat2).
void Importer::atenAddmm(const ex::Node &node, StringRef op) {
  using B = TensorBuilder::Binary;
  Value mat1 = tensorArg(node, "mat1");
  Value mat2 = tensorArg(node, "mat2");
  Value product = check(tb.matmul(mat1, mat2));
  Scalar beta = scalarArg(node, "beta", Scalar::ofInt(1));
  Scalar alpha = scalarArg(node, "alpha", Scalar::ofInt(1));
  Operand bias = operandArg(node, "self");
  if (alpha.asDouble() != 1.0)
    product = check(tb.binary(B::Mul, product, alpha));
  if (beta.asDouble() == 0.0)
    return setResult(node, product);
  if (beta.asDouble() != 1.0)
    bias = Operand(check(tb.binary(B::Mul, bias, beta)));
  return setResult(node, tb.binary(B::Add, product, bias));
}

/// mm, bmm.
void Importer::atenMatmul(const ex::Node &node, StringRef op) {
  Value a = self(node);
  Value b = tensorArg(node, "mat2");
  int64_t rank = op == "mm" ? 2 : 3;
  if (TensorBuilder::typeOf(a).getRank() != rank ||
      TensorBuilder::typeOf(b).getRank() != rank)
    fail(node.get_target() + " expects " + Twine(rank) + "-D tensors");
  return setResult(node, tb.matmul(a, b));
}

/// embedding.
void Importer::atenEmbedding(const ex::Node &node, StringRef op) {
  Value weight = tensorArg(node, "weight");
  Value indices = tensorArg(node, "indices");
  // -1 is none; nn.Embedding has made a negative padding_idx positive.
  std::optional<int64_t> padding;
  if (int64_t p = intArg(node, "padding_idx", -1); p >= 0)
    padding = p;
  if (boolArg(node, "sparse", false))
    fail(node.get_target() + ": sparse gradients are not supported");
  if (boolArg(node, "scale_grad_by_freq", false))
    fail(node.get_target() + ": scale_grad_by_freq is not supported");
  return setResult(node, tb.embedding(weight, indices, padding));
}

/// _embedding_bag (sum and mean): output 0; the other outputs are for
/// eager's backward, so a later node reading them is refused.
void Importer::atenEmbeddingBag(const ex::Node &node, StringRef op) {
  for (unsigned k = 1; k < 4; ++k)
    if (usedOutput(node, k))
      fail(node.get_target() + ": output " + Twine(k) +
           " is read by a later node; only the bags (output 0) are "
           "supported");
  if (boolArg(node, "scale_grad_by_freq", false))
    fail(node.get_target() + ": scale_grad_by_freq is not supported");
  std::optional<int64_t> padding = optIntArg(node, "padding_idx");
  if (padding && *padding < 0)
    padding.reset();
  Value weight = tensorArg(node, "weight");
  Value indices = tensorArg(node, "indices");
  Value offsets = tensorArg(node, "offsets");
  Value perSample = optTensorArg(node, "per_sample_weights");
  return setResult(node, 0,
                   tb.embeddingBag(weight, indices, offsets,
                                   intArg(node, "mode", 0), perSample,
                                   boolArg(node, "include_last_offset", false),
                                   padding));
}

ArrayRef<Importer::Entry> Importer::nnOps() {
  static const Entry entries[] = {
      {"torch.ops.aten.gelu.default", &Importer::atenGelu},
      {"torch.ops.aten.native_dropout.default", &Importer::atenDropout},
      {"torch.ops.aten._softmax.default", &Importer::atenSoftmax},
      {"torch.ops.aten._log_softmax.default", &Importer::atenSoftmax},
      {"torch.ops.aten.native_layer_norm.default", &Importer::atenLayerNorm},
      {"torch.ops.aten._native_batch_norm_legit_functional.default",
       &Importer::atenBatchNorm},
      {"torch.ops.aten._native_batch_norm_legit_no_training.default",
       &Importer::atenBatchNorm},
      {"torch.ops.aten.addmm.default", &Importer::atenAddmm},
      {"torch.ops.aten.mm.default", &Importer::atenMatmul},
      {"torch.ops.aten.bmm.default", &Importer::atenMatmul},
      {"torch.ops.aten.embedding.default", &Importer::atenEmbedding},
      {"torch.ops.aten._embedding_bag.default", &Importer::atenEmbeddingBag},
      {"torch.ops.aten._embedding_bag_forward_only.default",
       &Importer::atenEmbeddingBag},
      {"torch.ops.aten._native_batch_norm_legit.no_stats",
       &Importer::atenBatchNormNoStats},
      {"torch.ops.aten.native_group_norm.default", &Importer::atenGroupNorm},
      {"torch.ops.aten.hardtanh.default", &Importer::atenHardtanh},
  };
  return entries;
}
