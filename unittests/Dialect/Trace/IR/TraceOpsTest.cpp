//===- TraceOpsTest.cpp - C++ API of the trace dialect --------------------===//
//
// What lit cannot reach: building ops from C++ with inferred result types,
// the cost interface's numbers, the classification traits, and the policy
// attribute's query.
//
//===----------------------------------------------------------------------===//

#include "trace/Dialect/Trace/IR/TraceOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace mlir::trace;

namespace {

class TraceOpsTest : public ::testing::Test {
protected:
  TraceOpsTest() : builder(&ctx) {
    ctx.loadDialect<TraceDialect, func::FuncDialect>();
    module = ModuleOp::create(builder.getUnknownLoc());
    builder.setInsertionPointToEnd(module->getBody());
  }

  /// A function with arguments of the given types; the builder is left at
  /// its start.
  func::FuncOp makeFunc(ArrayRef<Type> argTypes) {
    auto fn = func::FuncOp::create(builder, builder.getUnknownLoc(), "f",
                                   builder.getFunctionType(argTypes, {}));
    Block *entry = fn.addEntryBlock();
    builder.setInsertionPointToStart(entry);
    return fn;
  }

  RankedTensorType f32(ArrayRef<int64_t> shape) {
    return RankedTensorType::get(shape, builder.getF32Type());
  }

  MLIRContext ctx;
  OpBuilder builder;
  OwningOpRef<ModuleOp> module;
};

TEST_F(TraceOpsTest, BuildersInferResultTypes) {
  func::FuncOp fn = makeFunc({f32({2, 3, 4}), f32({2, 4, 5})});
  Value x = fn.getArgument(0), w = fn.getArgument(1);
  Location loc = builder.getUnknownLoc();

  auto t = TransposeOp::create(builder, loc, x, ArrayRef<int64_t>{2, 0, 1});
  EXPECT_EQ(t.getType(), f32({4, 2, 3}));

  auto m = MatmulOp::create(builder, loc, x, w);
  EXPECT_EQ(m.getType(), f32({2, 3, 5}));

  auto s = ReduceSumOp::create(builder, loc, x, ArrayRef<int64_t>{0, 2},
                               /*keepdim=*/false);
  EXPECT_EQ(s.getType(), f32({3}));
  auto k = ReduceMaxOp::create(builder, loc, x, ArrayRef<int64_t>{1},
                               /*keepdim=*/true);
  EXPECT_EQ(k.getType(), f32({2, 1, 4}));
  EXPECT_EQ(s.getReductionSize(), 8);

  auto c = CompareOp::create(builder, loc, ComparisonDirection::LT, x, x);
  EXPECT_EQ(c.getType(),
            RankedTensorType::get({2, 3, 4}, builder.getI1Type()));

  auto cat = ConcatenateOp::create(builder, loc, ValueRange{x, x}, 1);
  EXPECT_EQ(cat.getType(), f32({2, 6, 4}));

  auto e = ExpOp::create(builder, loc, x);
  EXPECT_EQ(e.getType(), x.getType());

  func::ReturnOp::create(builder, loc);
  EXPECT_TRUE(succeeded(verify(*module)));
}

TEST_F(TraceOpsTest, InferenceRejectsBadShapes) {
  func::FuncOp fn = makeFunc({f32({2, 3}), f32({4, 5})});
  SmallVector<Type> inferred;
  // K mismatch: 3 vs 4.
  EXPECT_TRUE(failed(MatmulOp::inferReturnTypes(
      &ctx, std::nullopt, ValueRange{fn.getArgument(0), fn.getArgument(1)},
      /*attributes=*/{}, /*properties=*/nullptr, /*regions=*/{}, inferred)));
  EXPECT_TRUE(inferred.empty());
}

TEST_F(TraceOpsTest, CostInterface) {
  func::FuncOp fn = makeFunc({f32({8, 16}), f32({16, 32})});
  Value x = fn.getArgument(0), w = fn.getArgument(1);
  Location loc = builder.getUnknownLoc();

  auto cost = [](Operation *op) { return cast<CostOpInterface>(op); };

  auto m = MatmulOp::create(builder, loc, x, w);
  EXPECT_EQ(cost(m).getFlops(), 2 * 8 * 32 * 16);
  EXPECT_EQ(cost(m).getBytesRead(), (8 * 16 + 16 * 32) * 4);
  EXPECT_EQ(cost(m).getBytesWritten(), 8 * 32 * 4);

  auto e = TanhOp::create(builder, loc, m);
  EXPECT_EQ(cost(e).getFlops(), 8 * 32);

  auto r = ReshapeOp::create(builder, loc, f32({256}), e);
  EXPECT_EQ(cost(r).getFlops(), 0);
  EXPECT_EQ(cost(r).getBytesRead(), 0);
  EXPECT_EQ(cost(r).getBytesWritten(), 0);

  auto s = ReduceSumOp::create(builder, loc, x, ArrayRef<int64_t>{1}, false);
  EXPECT_EQ(cost(s).getFlops(), 8 * 16);
  EXPECT_EQ(cost(s).getBytesWritten(), 8 * 4);

  auto sl = SliceOp::create(builder, loc, x, ArrayRef<int64_t>{0, 0},
                            ArrayRef<int64_t>{8, 16}, ArrayRef<int64_t>{2, 4});
  EXPECT_EQ(sl.getType(), f32({4, 4}));
  EXPECT_EQ(cost(sl).getBytesRead(), 4 * 4 * 4);

  // i1 counts one byte per element, like torch.bool.
  auto c = CompareOp::create(builder, loc, ComparisonDirection::GT, x, x);
  EXPECT_EQ(getTensorBytes(c.getType()), 8 * 16);
}

TEST_F(TraceOpsTest, ClassificationTraits) {
  func::FuncOp fn = makeFunc({f32({4, 4})});
  Value x = fn.getArgument(0);
  Location loc = builder.getUnknownLoc();

  Operation *add = AddOp::create(builder, loc, x, x);
  Operation *t = TransposeOp::create(builder, loc, x, ArrayRef<int64_t>{1, 0});
  Operation *s = ReduceSumOp::create(builder, loc, x, ArrayRef<int64_t>{0}, false);
  Operation *c = CompareOp::create(builder, loc, ComparisonDirection::EQ, x, x);

  EXPECT_TRUE(add->hasTrait<mlir::OpTrait::Elementwise>());
  EXPECT_FALSE(add->hasTrait<trace::OpTrait::ViewOp>());
  EXPECT_TRUE(t->hasTrait<trace::OpTrait::ViewOp>());
  EXPECT_TRUE(s->hasTrait<trace::OpTrait::ReductionOp>());
  EXPECT_TRUE(c->hasTrait<trace::OpTrait::NonDifferentiable>());
  EXPECT_FALSE(add->hasTrait<trace::OpTrait::NonDifferentiable>());
  EXPECT_TRUE(isPure(add));
}

TEST_F(TraceOpsTest, CheckpointPolicyAllowsSaving) {
  const char *source = R"mlir(
    func.func @f(%a: tensor<4x4xf32>) -> tensor<4x4xf32> {
      %r = trace.checkpoint "blk" policy = #trace.policy<save_ops = ["trace.matmul"], save_names = ["blk.act"]>
          ins(%x = %a : tensor<4x4xf32>) -> tensor<4x4xf32> {
        %m = trace.matmul %x, %x : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
        %t = trace.tanh %m {trace.name = "blk.act"} : tensor<4x4xf32>
        %u = trace.exp %t : tensor<4x4xf32>
        trace.yield %u : tensor<4x4xf32>
      }
      return %r : tensor<4x4xf32>
    })mlir";
  OwningOpRef<ModuleOp> parsed = parseSourceString<ModuleOp>(source, &ctx);
  ASSERT_TRUE(parsed);
  CheckpointOp checkpoint;
  parsed->walk([&](CheckpointOp op) { checkpoint = op; });
  ASSERT_TRUE(checkpoint);
  CheckpointPolicyAttr policy = checkpoint.getPolicyAttr();
  SmallVector<bool> allowed;
  for (Operation &op : checkpoint.getBody().front().without_terminator())
    allowed.push_back(policy.allowsSaving(&op));
  EXPECT_EQ(allowed, (SmallVector<bool>{true, true, false}));
  EXPECT_EQ(checkpoint.getYield().getValues().size(), 1u);
}

TEST_F(TraceOpsTest, RandomCounters) {
  func::FuncOp fn =
      makeFunc({RankedTensorType::get({}, builder.getI64Type())});
  auto r = RandomUniformOp::create(builder, builder.getUnknownLoc(),
                                   f32({3, 5}), fn.getArgument(0),
                                   /*offset=*/16);
  EXPECT_EQ(r.getNumCounters(), 4); // ceil(15 / 4)
}

TEST_F(TraceOpsTest, VerifierReportsBadBroadcast) {
  func::FuncOp fn = makeFunc({f32({3})});
  BroadcastInDimOp::create(builder, builder.getUnknownLoc(), f32({4, 8}),
                           fn.getArgument(0), ArrayRef<int64_t>{1});
  func::ReturnOp::create(builder, builder.getUnknownLoc());
  std::string message;
  ScopedDiagnosticHandler handler(&ctx, [&](Diagnostic &diag) {
    message = diag.str();
    return success();
  });
  EXPECT_TRUE(failed(verify(*module)));
  EXPECT_NE(message.find("can't broadcast to result dim 1"), std::string::npos)
      << message;
}

} // namespace
