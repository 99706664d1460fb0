//===- DeadArgumentsTest.cpp - compileObjects' signature changes ----------===//
//
// capi::dropDeadArguments on a module built here: an internal helper loses
// the parameter it never reads, a function named as an entry point keeps
// its whole signature (the C functions' ABI), and one that is not named
// becomes internal and loses its unread parameter too.
//
//===----------------------------------------------------------------------===//

#include "trace/Target/CAPI/CAPI.h"

#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace {

/// `i64 name(i64 %read, i64 %unread)`: returns %read + 1.
llvm::Function *addLeaf(llvm::Module &module, llvm::StringRef name) {
  llvm::LLVMContext &context = module.getContext();
  llvm::IRBuilder<> builder(context);
  auto *type = llvm::FunctionType::get(
      builder.getInt64Ty(), {builder.getInt64Ty(), builder.getInt64Ty()},
      false);
  auto *fn = llvm::Function::Create(type, llvm::GlobalValue::ExternalLinkage,
                                    name, module);
  builder.SetInsertPoint(llvm::BasicBlock::Create(context, "entry", fn));
  builder.CreateRet(builder.CreateAdd(fn->getArg(0), builder.getInt64(1)));
  return fn;
}

/// `i64 name(i64 %a, i64 %b)`: calls `callee(%a, %b)`.
llvm::Function *addCaller(llvm::Module &module, llvm::StringRef name,
                          llvm::Function *callee) {
  llvm::LLVMContext &context = module.getContext();
  llvm::IRBuilder<> builder(context);
  auto *fn = llvm::Function::Create(callee->getFunctionType(),
                                    llvm::GlobalValue::ExternalLinkage, name,
                                    module);
  builder.SetInsertPoint(llvm::BasicBlock::Create(context, "entry", fn));
  builder.CreateRet(
      builder.CreateCall(callee, {fn->getArg(0), fn->getArg(1)}));
  return fn;
}

TEST(DeadArguments, EntryPointsKeepTheirSignatures) {
  llvm::LLVMContext context;
  llvm::Module module("m", context);
  llvm::Function *helper = addLeaf(module, "helper");
  addCaller(module, "entry", helper);
  addLeaf(module, "unnamed_leaf");
  addLeaf(module, "named_leaf");

  std::vector<std::string> entryPoints = {"entry", "named_leaf"};
  mlir::trace::capi::dropDeadArguments(module, entryPoints);
  ASSERT_FALSE(llvm::verifyModule(module, &llvm::errs()));

  // DeadArgumentElimination replaces a function whose signature changes.
  llvm::Function *newHelper = module.getFunction("helper");
  ASSERT_NE(newHelper, nullptr);
  EXPECT_EQ(newHelper->arg_size(), 1u);
  EXPECT_TRUE(newHelper->hasLocalLinkage());

  for (const char *name : {"entry", "named_leaf"}) {
    llvm::Function *fn = module.getFunction(name);
    ASSERT_NE(fn, nullptr) << name;
    EXPECT_EQ(fn->arg_size(), 2u) << name;
    EXPECT_FALSE(fn->hasLocalLinkage()) << name;
  }

  llvm::Function *unnamed = module.getFunction("unnamed_leaf");
  ASSERT_NE(unnamed, nullptr);
  EXPECT_TRUE(unnamed->hasLocalLinkage());
  // Nothing calls it, so its result may go too, and the parameter it reads
  // with it.
  EXPECT_LT(unnamed->arg_size(), 2u);
}

} // namespace
