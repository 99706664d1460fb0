//===- AtenNN.cpp - aten nn operators -------------------------------------===//
//
// The aten operators of one family (nn: linear algebra, activations, norms,
// dropout, losses): a handler each, named in the table at the end of the
// file, which importAten dispatches on (GraphWalk.cpp).
//
//===----------------------------------------------------------------------===//

#include "Importer.h"

using namespace mlir;
using namespace mlir::trace;
using namespace mlir::trace::ts;

/// aten::gelu.
void Importer::atenGelu(jit::Node *node, StringRef name) {
  std::string approx = hasInput(node, "approximate")
                           ? constArg(node, "approximate").toStringRef()
                           : "none";
  if (approx != "none" && approx != "tanh")
    fail("aten::gelu: unknown approximate='" + approx + "'");
  return setResult(node, tb.gelu(self(node), approx == "tanh"));
}

/// aten::dropout, aten::feature_dropout.
void Importer::atenDropout(jit::Node *node, StringRef name) {
  if (name == "feature_dropout")
    fail("unsupported op " + describe(node));
  bool train = boolArg(node, "train") && !options.dropoutAsIdentity;
  // dropout_ (the in-place variant) names its tensor `self`.
  Value input = tensorArg(node, hasInput(node, "input") ? "input" : "self");
  return setResult(node, tb.dropout(input, floatArg(node, "p"), train));
}

/// aten::softmax, aten::log_softmax, aten::_softmax, aten::_log_softmax.
void Importer::atenSoftmax(jit::Node *node, StringRef name) {
  Value in = tensorArg(node, hasInput(node, "self") ? "self" : "input");
  if (auto dt = dtypeArg(node, "dtype"))
    in = tb.convert(in, *dt);
  return setResult(node, tb.softmax(in, intArg(node, "dim"),
                        StringRef(name).contains("log")));
}

/// aten::layer_norm.
void Importer::atenLayerNorm(jit::Node *node, StringRef name) {
  // One argument per statement: they may create ops (a constant
  // materialized), and C++ leaves the order of call arguments open.
  Value input = tensorArg(node, "input");
  std::vector<int64_t> shape = intListArg(node, "normalized_shape");
  Value weight = optTensorArg(node, "weight");
  Value bias = optTensorArg(node, "bias");
  return setResult(node, tb.layerNorm(input, shape, weight, bias,
                                      floatArg(node, "eps")));
}

/// aten::batch_norm. In training, the running statistics (module buffers)
/// come back updated as results of the function (Importer::updateBuffer).
void Importer::atenBatchNorm(jit::Node *node, StringRef name) {
  Value input = tensorArg(node, "input");
  Value weight = optTensorArg(node, "weight");
  Value bias = optTensorArg(node, "bias");
  Value meanBuffer = bufferArg(node, "running_mean");
  Value varBuffer = bufferArg(node, "running_var");
  Value runningMean = optTensorArg(node, "running_mean");
  Value runningVar = optTensorArg(node, "running_var");
  bool training = boolArg(node, "training");
  if (training && (runningMean || runningVar) &&
      (!meanBuffer || !varBuffer))
    fail("aten::batch_norm: in training, running_mean and running_var must "
         "be module buffers (they are updated in place)");
  // A second batch_norm on the same statistics sees the first's update.
  if (meanBuffer)
    runningMean = use(currentBuffer(meanBuffer));
  if (varBuffer)
    runningVar = use(currentBuffer(varBuffer));
  TensorBuilder::BatchNorm result =
      tb.batchNorm(input, weight, bias, runningMean, runningVar, training,
                   floatArg(node, "momentum"), floatArg(node, "eps"));
  setResult(node, result.output);
  if (result.runningMean) {
    updateBuffer(node, meanBuffer, result.runningMean);
    updateBuffer(node, varBuffer, result.runningVar);
  }
}

/// aten::group_norm.
void Importer::atenGroupNorm(jit::Node *node, StringRef name) {
  Value input = tensorArg(node, "input");
  Value weight = optTensorArg(node, "weight");
  Value bias = optTensorArg(node, "bias");
  return setResult(node, tb.groupNorm(input, intArg(node, "num_groups"),
                                      weight, bias, floatArg(node, "eps")));
}

/// aten::instance_norm: batch statistics per (sample, channel), which is
/// group_norm with a group per channel; running statistics are not kept.
void Importer::atenInstanceNorm(jit::Node *node, StringRef name) {
  Value input = tensorArg(node, "input");
  Value weight = optTensorArg(node, "weight");
  Value bias = optTensorArg(node, "bias");
  if (!boolArg(node, "use_input_stats") ||
      optTensorArg(node, "running_mean"))
    fail("aten::instance_norm: only batch statistics without running ones "
         "(nn.InstanceNorm's default track_running_stats=False)");
  if (TensorBuilder::typeOf(input).getRank() < 2)
    fail("aten::instance_norm: needs an input [N, C, ...]");
  int64_t channels = TensorBuilder::typeOf(input).getDimSize(1);
  return setResult(node, tb.groupNorm(input, channels, weight, bias,
                                      floatArg(node, "eps")));
}

/// aten::linear.
void Importer::atenLinear(jit::Node *node, StringRef name) {
  Value input = tensorArg(node, "input");
  Value weight = tensorArg(node, "weight");
  Value bias = optTensorArg(node, "bias");
  return setResult(node, tb.linear(input, weight, bias));
}

/// aten::matmul, aten::mm, aten::bmm.
void Importer::atenMatmul(jit::Node *node, StringRef name) {
  Value a = self(node);
  Value b2 = tensorArg(node, name == "matmul" ? "other" : "mat2");
  int64_t want = name == "mm" ? 2 : 3;
  if (name != "matmul" && (TensorBuilder::typeOf(a).getRank() != want ||
                           TensorBuilder::typeOf(b2).getRank() != want))
    fail("aten::" + name + " expects " + Twine(want) + "-D tensors");
  return setResult(node, tb.matmul(a, b2));
}

/// aten::addmm.
void Importer::atenAddmm(jit::Node *node, StringRef name) {
  using B = TensorBuilder::Binary;
  Value mat1 = tensorArg(node, "mat1");
  Value mat2 = tensorArg(node, "mat2");
  Value prod = check(tb.matmul(mat1, mat2));
  Scalar beta = scalarOf(constArg(node, "beta"));
  Scalar alpha = scalarOf(constArg(node, "alpha"));
  Operand bias = operandArg(node, "self");
  if (alpha.asDouble() != 1.0)
    prod = check(tb.binary(B::Mul, prod, alpha));
  if (beta.asDouble() == 0.0)
    return setResult(node, prod);
  if (beta.asDouble() != 1.0)
    bias = Operand(check(tb.binary(B::Mul, bias, beta)));
  return setResult(node, tb.binary(B::Add, prod, bias));
}

/// aten::embedding.
void Importer::atenEmbedding(jit::Node *node, StringRef name) {
  Value weight = tensorArg(node, "weight");
  Value indices = tensorArg(node, "indices");
  // -1 is none; nn.Embedding has made a negative padding_idx positive.
  std::optional<int64_t> padding;
  if (int64_t p = intArg(node, "padding_idx"); p >= 0)
    padding = p;
  if (boolArg(node, "sparse"))
    fail("aten::embedding: sparse gradients are not supported");
  if (boolArg(node, "scale_grad_by_freq"))
    fail("aten::embedding: scale_grad_by_freq is not supported");
  return setResult(node, tb.embedding(weight, indices, padding));
}

/// aten::nll_loss, aten::nll_loss_nd, aten::cross_entropy_loss.
void Importer::atenNllLoss(jit::Node *node, StringRef name) {
  Value input = self(node);
  Value target = tensorArg(node, "target");
  Value weight = optTensorArg(node, "weight");
  int64_t reduction = intArg(node, "reduction");
  int64_t ignoreIndex = intArg(node, "ignore_index");
  if (name == "cross_entropy_loss")
    return setResult(node, tb.crossEntropy(input, target, weight, reduction,
                                           ignoreIndex,
                                           floatArg(node, "label_smoothing")));
  return setResult(
      node, tb.nllLoss(input, target, weight, reduction, ignoreIndex));
}

/// aten::hardtanh, aten::relu6: clamp(x, min_val, max_val).
void Importer::atenHardtanh(jit::Node *node, StringRef name) {
  Value v = self(node);
  Scalar lo = Scalar::ofFloat(0.0), hi = Scalar::ofFloat(6.0);
  if (name == "hardtanh") {
    lo = scalarOf(constArg(node, "min_val"));
    hi = scalarOf(constArg(node, "max_val"));
  }
  // torch's hardtanh gradient is 0 at the bounds.
  return setResult(node, tb.clamp(v, Operand(lo), Operand(hi),
                                  /*boundsPass=*/false));
}

/// aten::hardsigmoid, aten::hardswish, aten::mish.
void Importer::atenHardActivation(jit::Node *node, StringRef name) {
  Value v = self(node);
  if (name == "hardsigmoid")
    return setResult(node, tb.hardsigmoid(v));
  if (name == "hardswish")
    return setResult(node, tb.hardswish(v));
  return setResult(node, tb.mish(v));
}

/// aten::leaky_relu.
void Importer::atenLeakyRelu(jit::Node *node, StringRef name) {
  Value v = self(node);
  return setResult(node,
                   tb.leakyRelu(v, scalarOf(constArg(node, "negative_slope"))));
}

/// aten::elu, aten::selu (elu with torch's fixed alpha and scale).
void Importer::atenElu(jit::Node *node, StringRef name) {
  Value v = self(node);
  if (name == "selu")
    return setResult(node, tb.elu(v, Scalar::ofFloat(1.6732632423543772),
                                  Scalar::ofFloat(1.0507009873554805),
                                  Scalar::ofFloat(1.0)));
  Scalar alpha = scalarOf(constArg(node, "alpha"));
  Scalar scale = scalarOf(constArg(node, "scale"));
  Scalar inputScale = scalarOf(constArg(node, "input_scale"));
  return setResult(node, tb.elu(v, alpha, scale, inputScale));
}

/// aten::softplus.
void Importer::atenSoftplus(jit::Node *node, StringRef name) {
  Value v = self(node);
  Scalar beta = scalarOf(constArg(node, "beta"));
  Scalar threshold = scalarOf(constArg(node, "threshold"));
  return setResult(node, tb.softplus(v, beta, threshold));
}

ArrayRef<Importer::AtenEntry> Importer::nnAtenOps() {
  static const AtenEntry entries[] = {
      {"hardtanh", &Importer::atenHardtanh},
      {"relu6", &Importer::atenHardtanh},
      {"hardsigmoid", &Importer::atenHardActivation},
      {"hardswish", &Importer::atenHardActivation},
      {"mish", &Importer::atenHardActivation},
      {"leaky_relu", &Importer::atenLeakyRelu},
      {"elu", &Importer::atenElu},
      {"selu", &Importer::atenElu},
      {"softplus", &Importer::atenSoftplus},
      {"gelu", &Importer::atenGelu},
      {"dropout", &Importer::atenDropout},
      {"feature_dropout", &Importer::atenDropout},
      {"softmax", &Importer::atenSoftmax},
      {"log_softmax", &Importer::atenSoftmax},
      {"_softmax", &Importer::atenSoftmax},
      {"_log_softmax", &Importer::atenSoftmax},
      {"layer_norm", &Importer::atenLayerNorm},
      {"batch_norm", &Importer::atenBatchNorm},
      {"group_norm", &Importer::atenGroupNorm},
      {"instance_norm", &Importer::atenInstanceNorm},
      {"linear", &Importer::atenLinear},
      {"matmul", &Importer::atenMatmul},
      {"mm", &Importer::atenMatmul},
      {"bmm", &Importer::atenMatmul},
      {"addmm", &Importer::atenAddmm},
      {"embedding", &Importer::atenEmbedding},
      {"nll_loss", &Importer::atenNllLoss},
      {"nll_loss_nd", &Importer::atenNllLoss},
      {"cross_entropy_loss", &Importer::atenNllLoss},
  };
  return entries;
}
