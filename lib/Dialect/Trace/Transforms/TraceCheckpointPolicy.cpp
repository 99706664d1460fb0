//===- TraceCheckpointPolicy.cpp - selective policies by region name ------===//
//
// Parses `POLICY[@REGEX]` entries onto #trace.policy and sets them on the
// trace.checkpoint regions whose names match (CheckpointPolicy.h). The
// policy vocabulary follows JAX's checkpoint_policies, with PyTorch's
// per-op MUST_SAVE as save_ops.
//
//===----------------------------------------------------------------------===//

#include "trace/Dialect/Trace/Transforms/CheckpointPolicy.h"

#include "trace/Dialect/Trace/IR/TraceDialect.h"
#include "trace/Dialect/Trace/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Regex.h"

namespace mlir::trace {
#define GEN_PASS_DEF_TRACECHECKPOINTPOLICYPASS
#include "trace/Dialect/Trace/Transforms/Passes.h.inc"
} // namespace mlir::trace

using namespace mlir;
using namespace mlir::trace;

FailureOr<CheckpointPolicySpec>
mlir::trace::parseCheckpointPolicySpec(MLIRContext *context, StringRef text,
                                       std::string &error) {
  context->getOrLoadDialect<TraceDialect>();
  CheckpointPolicySpec spec;
  spec.text = text.str();
  auto [policyText, regions] = text.split('@');
  spec.regions = regions.str();
  if (text.contains('@') && regions.empty()) {
    error = "'" + text.str() + "': nothing after '@' (expected POLICY@REGEX)";
    return failure();
  }
  if (!spec.regions.empty()) {
    // Checked alone first: anchoring `a)|(b` would make it valid.
    std::string why;
    if (!llvm::Regex(spec.regions).isValid(why) ||
        !llvm::Regex("^(" + spec.regions + ")$").isValid(why)) {
      error = "'" + text.str() + "': invalid regex '" + spec.regions +
              "': " + why;
      return failure();
    }
  }

  llvm::SetVector<StringRef> saveOps, saveNames;
  SmallVector<StringRef> terms;
  policyText.split(terms, '+');
  for (StringRef term : terms) {
    term = term.trim();
    auto [key, value] = term.split('=');
    if (term == "nothing_saveable")
      continue;
    if (term == "dots_saveable") {
      // Convolutions too, as JAX's dots_saveable saves conv_general_dilated.
      saveOps.insert(MatmulOp::getOperationName());
      saveOps.insert(ConvolutionOp::getOperationName());
      continue;
    }
    if ((key != "save_ops" && key != "save_names") || !term.contains('=')) {
      error = "'" + text.str() + "': unknown policy term '" + term.str() +
              "' (expected nothing_saveable, dots_saveable, "
              "save_ops=OP|OP... or save_names=NAME|NAME...)";
      return failure();
    }
    SmallVector<StringRef> items;
    value.split(items, '|', /*MaxSplit=*/-1, /*KeepEmpty=*/false);
    if (items.empty()) {
      error = "'" + text.str() + "': " + key.str() + "= lists nothing";
      return failure();
    }
    for (StringRef item : items) {
      item = item.trim();
      if (item.empty())
        continue;
      if (key == "save_names") {
        saveNames.insert(item);
        continue;
      }
      std::string op = item.contains('.') ? item.str() : "trace." + item.str();
      if (!RegisteredOperationName::lookup(op, context) ||
          !StringRef(op).starts_with("trace.")) {
        error = "'" + text.str() + "': save_ops names '" + item.str() +
                "', which is not an op of the trace dialect";
        return failure();
      }
      saveOps.insert(StringAttr::get(context, op).getValue());
    }
  }
  if (saveOps.empty() && saveNames.empty())
    return spec; // save nothing: no policy
  Builder b(context);
  auto list = [&](const llvm::SetVector<StringRef> &items) {
    return items.empty() ? ArrayAttr()
                         : b.getStrArrayAttr(items.getArrayRef());
  };
  ArrayAttr ops = list(saveOps);
  ArrayAttr names = list(saveNames);
  spec.policy = CheckpointPolicyAttr::get(context, ops, names);
  return spec;
}

LogicalResult
mlir::trace::applyCheckpointPolicies(ModuleOp module,
                                     ArrayRef<std::string> specTexts) {
  if (specTexts.empty())
    return success();
  MLIRContext *context = module.getContext();
  SmallVector<CheckpointPolicySpec> specs;
  for (const std::string &text : specTexts) {
    std::string error;
    FailureOr<CheckpointPolicySpec> spec =
        parseCheckpointPolicySpec(context, text, error);
    if (failed(spec))
      return emitError(module.getLoc()) << "--checkpoint-policy " << error;
    specs.push_back(*spec);
  }
  SmallVector<CheckpointOp> regions;
  module.walk([&](CheckpointOp region) { regions.push_back(region); });
  std::vector<std::optional<llvm::Regex>> regexes;
  for (const CheckpointPolicySpec &spec : specs)
    regexes.push_back(spec.regions.empty()
                          ? std::nullopt
                          : std::optional<llvm::Regex>(std::in_place,
                                                       "^(" + spec.regions + ")$"));
  std::vector<bool> matched(specs.size(), false);
  for (CheckpointOp region : regions) {
    StringRef name = region.getName().value_or("");
    std::optional<size_t> last;
    for (size_t k = 0; k < specs.size(); ++k) {
      bool applies = !regexes[k] || regexes[k]->match(name);
      if (applies) {
        last = k;
        matched[k] = true;
      }
    }
    if (!last)
      continue;
    if (specs[*last].policy)
      region.setPolicyAttr(specs[*last].policy);
    else
      region.removePolicyAttr();
  }
  for (size_t k = 0; k < specs.size(); ++k) {
    if (matched[k])
      continue;
    InFlightDiagnostic diag = emitError(module.getLoc())
                              << "--checkpoint-policy '" << specs[k].text
                              << "' applies to no checkpoint region";
    if (regions.empty()) {
      diag << " (the model has none)";
    } else {
      llvm::SetVector<StringRef> names;
      for (CheckpointOp region : regions)
        names.insert(region.getName().value_or("<unnamed>"));
      diag << " (regions: " << llvm::join(names.getArrayRef().take_front(12), ", ")
           << (names.size() > 12 ? ", ..." : "") << ")";
    }
    return failure();
  }
  return success();
}

namespace {

struct TraceCheckpointPolicyPass final
    : trace::impl::TraceCheckpointPolicyPassBase<TraceCheckpointPolicyPass> {
  using TraceCheckpointPolicyPassBase::TraceCheckpointPolicyPassBase;
  void runOnOperation() override {
    SmallVector<std::string> specs(policies.begin(), policies.end());
    if (failed(applyCheckpointPolicies(getOperation(), specs)))
      signalPassFailure();
  }
};

} // namespace
