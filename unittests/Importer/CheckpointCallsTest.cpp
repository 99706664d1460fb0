//===- CheckpointCallsTest.cpp - checkpoint calls from Python stacks ------===//
//
// The stack reading on stacks PyTorch 1.13's tracer recorded (copied from
// traced files), and the region forming on IR annotated by hand: what the
// importer's lit tests reach only through whole models.
//
//===----------------------------------------------------------------------===//

#include "trace/Importer/CheckpointCalls.h"

#include "trace/Dialect/Trace/IR/TraceDialect.h"
#include "trace/Dialect/Trace/IR/TraceOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace mlir::trace;

namespace {

constexpr const char *kTorch = "/usr/lib/python3/dist-packages/torch/";

std::string frame(const std::string &file, int line, const std::string &fn) {
  return file + "(" + std::to_string(line) + "): " + fn + "\n";
}
std::string torchFrame(const std::string &file, int line, const std::string &fn) {
  return frame(kTorch + file, line, fn);
}
std::string moduleCall() {
  return torchFrame("nn/modules/module.py", 1182, "_slow_forward") +
         torchFrame("nn/modules/module.py", 1194, "_call_impl");
}
std::string checkpointCall() {
  return torchFrame("utils/checkpoint.py", 420, "_checkpoint_without_reentrant") +
         torchFrame("utils/checkpoint.py", 251, "checkpoint");
}
std::string tracer() {
  return frame("model.py", 20, "forward") + moduleCall() +
         torchFrame("jit/_trace.py", 976, "trace_module") +
         torchFrame("jit/_trace.py", 759, "trace") + frame("model.py", 30, "<module>");
}

TEST(ParseStack, FramesAndOddLines) {
  std::vector<StackFrame> frames =
      parseStack("dir/a(1).py(12): fn\n\n  not a frame  \nb.py(x): g\n");
  ASSERT_EQ(frames.size(), 3u);
  EXPECT_EQ(frames[0].file, "dir/a(1).py");
  EXPECT_EQ(frames[0].line, 12);
  EXPECT_EQ(frames[0].function, "fn");
  EXPECT_EQ(frames[1].file, "");
  EXPECT_EQ(frames[1].function, "not a frame");
  EXPECT_EQ(frames[2].file, ""); // a line number that is not one
  EXPECT_TRUE(parseStack("").empty());
}

TEST(FindCheckpointCalls, ModuleForm) {
  // layer_norm inside checkpoint(self.ln, x) at model.py:9.
  std::string stack = torchFrame("nn/functional.py", 2515, "layer_norm") +
                      torchFrame("nn/modules/normalization.py", 190, "forward") +
                      moduleCall() + checkpointCall() + frame("model.py", 9, "forward") +
                      moduleCall() + torchFrame("jit/_trace.py", 976, "trace_module");
  auto calls = findCheckpointCalls(parseStack(stack));
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0].siteFile, "model.py");
  EXPECT_EQ(calls[0].siteLine, 9);
  EXPECT_EQ(calls[0].function, ""); // a module
  EXPECT_EQ(calls[0].moduleCallsInside, 1u);
  EXPECT_FALSE(calls[0].fromWrapper);
}

TEST(FindCheckpointCalls, NestedFunctions) {
  // sin in a lambda checkpointed at model.py:13 inside `outer`, itself
  // checkpointed at model.py:15.
  std::string inner = frame("model.py", 13, "<lambda>") + checkpointCall() +
                      frame("model.py", 13, "outer") + checkpointCall() +
                      frame("model.py", 15, "forward") + moduleCall();
  auto calls = findCheckpointCalls(parseStack(inner));
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_EQ(calls[0].siteLine, 15); // outermost first
  EXPECT_EQ(calls[0].function, "outer");
  EXPECT_EQ(calls[1].siteLine, 13);
  EXPECT_EQ(calls[1].function, "<lambda>");
  EXPECT_EQ(calls[1].moduleCallsInside, 0u);
  // The same call, seen from an op on another line of `outer`: same site.
  std::string other = frame("model.py", 14, "outer") + checkpointCall() +
                      frame("model.py", 15, "forward") + moduleCall();
  auto outerOnly = findCheckpointCalls(parseStack(other));
  ASSERT_EQ(outerOnly.size(), 1u);
  EXPECT_EQ(outerOnly[0].site, calls[0].site);
  EXPECT_NE(outerOnly[0].callee, calls[0].callee);
}

TEST(FindCheckpointCalls, WrapperInsideCall) {
  // linear in a CheckpointWrapper's module, the wrapper run by a lambda
  // checkpointed at model.py:11.
  std::string stack =
      torchFrame("nn/modules/linear.py", 114, "forward") + moduleCall() +
      checkpointCall() +
      torchFrame("distributed/algorithms/_checkpoint/checkpoint_wrapper.py", 106,
                 "forward") +
      moduleCall() + frame("model.py", 11, "<lambda>") + checkpointCall() +
      frame("model.py", 11, "forward") + moduleCall();
  auto calls = findCheckpointCalls(parseStack(stack));
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_FALSE(calls[0].fromWrapper);
  EXPECT_EQ(calls[0].function, "<lambda>");
  EXPECT_EQ(calls[0].moduleCallsInside, 2u);
  EXPECT_TRUE(calls[1].fromWrapper);
  EXPECT_EQ(calls[1].moduleCallsInside, 1u);
}

TEST(FindCheckpointCalls, DynamoFramesAndNoCall) {
  std::string stack = frame("model.py", 7, "<lambda>") + checkpointCall() +
                      torchFrame("_dynamo/eval_frame.py", 328, "_fn") +
                      frame("model.py", 7, "forward") + moduleCall();
  auto calls = findCheckpointCalls(parseStack(stack));
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0].siteFile, "model.py");
  EXPECT_EQ(calls[0].siteLine, 7);
  // PyTorch 2.14's disable wrapper is torch/_compile.py's `inner`; a
  // CheckpointWrapper behind it is still the call site.
  std::string wrapped =
      frame("model.py", 3, "forward") + moduleCall() + checkpointCall() +
      torchFrame("_compile.py", 54, "inner") +
      torchFrame("distributed/algorithms/_checkpoint/checkpoint_wrapper.py",
                 171, "forward") +
      moduleCall();
  auto viaInner = findCheckpointCalls(parseStack(wrapped));
  ASSERT_EQ(viaInner.size(), 1u);
  EXPECT_TRUE(viaInner[0].fromWrapper);
  // checkpoint(block, h) in PyTorch 2: the module's _wrapped_call_impl is
  // the outermost frame inside; the call runs a module, not a function.
  std::string moduleForm =
      frame("model.py", 3, "forward") + moduleCall() +
      torchFrame("nn/modules/module.py", 1775, "_wrapped_call_impl") +
      checkpointCall() + torchFrame("_compile.py", 54, "inner") +
      frame("model.py", 9, "forward") + moduleCall();
  auto module = findCheckpointCalls(parseStack(moduleForm));
  ASSERT_EQ(module.size(), 1u);
  EXPECT_EQ(module[0].function, "");
  EXPECT_EQ(module[0].moduleCallsInside, 1u);
  EXPECT_EQ(module[0].siteLine, 9);
  EXPECT_TRUE(findCheckpointCalls(parseStack(tracer())).empty());
  // A stack that ends in the checkpoint frame has no call site.
  EXPECT_TRUE(findCheckpointCalls(parseStack(frame("m.py", 1, "<lambda>") +
                                             checkpointCall()))
                  .empty());
}

class FormRegions : public ::testing::Test {
protected:
  FormRegions() { ctx.loadDialect<TraceDialect, func::FuncDialect>(); }

  /// The ops of @f, in order.
  SmallVector<Operation *> parse(const char *text) {
    module = parseSourceString<ModuleOp>(text, &ctx);
    SmallVector<Operation *> ops;
    for (Operation &op : getFunc().getBody().front().without_terminator())
      ops.push_back(&op);
    return ops;
  }
  func::FuncOp getFunc() { return *module->getOps<func::FuncOp>().begin(); }
  /// The names of the top-level regions of @f, and how many ops each holds.
  std::vector<std::pair<std::string, size_t>> formed() {
    std::vector<std::pair<std::string, size_t>> out;
    for (auto region : getFunc().getBody().front().getOps<CheckpointOp>())
      out.push_back({region.getName().value_or("").str(),
                     region.getBody().front().getOperations().size() - 1});
    return out;
  }

  MLIRContext ctx;
  OwningOpRef<ModuleOp> module;
};

constexpr const char *kChain = R"mlir(
  func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
    %a = trace.neg %x : tensor<4xf32>
    %b = trace.sin %a : tensor<4xf32>
    %c = trace.neg %b : tensor<4xf32>
    %d = trace.sin %c : tensor<4xf32>
    %e = trace.tanh %d : tensor<4xf32>
    return %e : tensor<4xf32>
  }
)mlir";

/// A call at model.py:20 in forward: of a module when `function` is empty.
CheckpointCallFrame callAtLine20(const std::string &function,
                                 const std::string &callee,
                                 unsigned moduleCallsInside) {
  CheckpointCallFrame call;
  call.site = "model.py(20): forward\n";
  call.siteFile = "model.py";
  call.siteLine = 20;
  call.function = function;
  call.callee = callee;
  call.moduleCallsInside = moduleCallsInside;
  return call;
}

TEST_F(FormRegions, ModuleCallsFromOneLine) {
  // checkpoint(block, h) over blocks.0 (neg, sin) and blocks.1 (neg, sin):
  // one line, so one site; each call enters its block.
  SmallVector<Operation *> ops = parse(kChain);
  CheckpointCallRegions regions;
  regions.noteMethodCall(1, "blocks.0", "Block");
  regions.noteMethodCall(2, "blocks.1", "Block");
  unsigned c = regions.internCall(callAtLine20("", "block.py(3): forward\n", 1));
  for (int k = 0; k < 4; ++k)
    regions.annotate(ops[k], {CallInstance{c, 0, k < 2 ? 1u : 2u, 0}});
  regions.annotate(ops[4], {});
  regions.form(getFunc(), /*report=*/false);
  ASSERT_TRUE(succeeded(verify(*module)));
  auto found = formed();
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0], std::make_pair(std::string("blocks.0"), size_t(2)));
  EXPECT_EQ(found[1], std::make_pair(std::string("blocks.1"), size_t(2)));
}

TEST_F(FormRegions, FunctionCallsSplitAtTheirFirstOp) {
  // checkpoint(lambda t, l=l: l(-t), h) over layers.0 and layers.1: the neg
  // runs in the lambda (in forward's graph), the sin in the layer. The
  // second call starts at its neg, not at its layer's sin.
  SmallVector<Operation *> ops = parse(kChain);
  CheckpointCallRegions regions;
  regions.noteMethodCall(1, "layers.0", "Linear");
  regions.noteMethodCall(2, "layers.1", "Linear");
  std::string lambda = "model.py(20): <lambda>\n";
  unsigned inLambda = regions.internCall(callAtLine20("<lambda>", lambda, 0));
  unsigned inLayer = regions.internCall(
      callAtLine20("<lambda>", "linear.py(1): forward\n" + lambda, 1));
  regions.annotate(ops[0], {CallInstance{inLambda, 0, 0, 0}});
  regions.annotate(ops[1], {CallInstance{inLayer, 0, 1, 0}});
  regions.annotate(ops[2], {CallInstance{inLambda, 0, 0, 0}});
  regions.annotate(ops[3], {CallInstance{inLayer, 0, 2, 0}});
  regions.annotate(ops[4], {});
  regions.form(getFunc(), /*report=*/false);
  ASSERT_TRUE(succeeded(verify(*module)));
  auto found = formed();
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0], std::make_pair(std::string("model.py:20[layers.0]"), size_t(2)));
  EXPECT_EQ(found[1], std::make_pair(std::string("model.py:20[layers.1]"), size_t(2)));
  // The second region takes the first's result in.
  auto second = *std::next(getFunc().getBody().front().getOps<CheckpointOp>().begin());
  EXPECT_TRUE(isa<NegOp>(second.getBody().front().front()));
}

} // namespace
