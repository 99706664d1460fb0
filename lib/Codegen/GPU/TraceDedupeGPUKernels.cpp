//===- TraceDedupeGPUKernels.cpp - one gpu.module per distinct kernel -----===//
//
// gpu-kernel-outlining gives every launch a gpu.module of its own; modules
// that differ only in their names become one. See the pass description in
// Passes.td.
//
//===----------------------------------------------------------------------===//

#include "trace/Codegen/GPU/Passes.h"
#include "trace/Support/StructuralPrinting.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/StringMap.h"

#define DEBUG_TYPE "trace-dedupe-gpu-kernels"

namespace mlir::trace {
#define GEN_PASS_DEF_TRACEDEDUPEGPUKERNELSPASS
#include "trace/Codegen/GPU/Passes.h.inc"
} // namespace mlir::trace

using namespace mlir;

namespace {

/// Moves the constants of each block of `op` to the block's start, in the
/// order of their attributes and types. Outlining clones the constants a kernel
/// uses in the order the host code used them, so two launches of one body
/// can differ only in that order (a 24-layer GPT's kernels: 173 modules,
/// 89 distinct bodies without this).
void sortConstants(Operation *op) {
  op->walk([](Block *block) {
    SmallVector<std::pair<std::string, Operation *>> constants;
    for (Operation &inner : *block)
      if (inner.hasTrait<OpTrait::ConstantLike>() &&
          inner.getNumOperands() == 0 && inner.getNumRegions() == 0) {
        // Name, attributes and types, not the printed op: its result's
        // name is numbered through the function.
        std::string key;
        llvm::raw_string_ostream os(key);
        os << inner.getName() << ' ' << inner.getAttrDictionary() << " : "
           << inner.getResultTypes();
        constants.emplace_back(std::move(key), &inner);
      }
    llvm::stable_sort(constants, [](const auto &a, const auto &b) {
      return a.first < b.first;
    });
    for (auto &constant : llvm::reverse(constants))
      constant.second->moveBefore(block, block->begin());
  });
}

/// `module` printed with its own name and its functions' names replaced by
/// their positions, and its constants in a canonical order: two modules
/// print the same when they are one kernel.
std::string printedBody(gpu::GPUModuleOp module) {
  auto copy = cast<gpu::GPUModuleOp>(module->clone());
  sortConstants(copy);
  MLIRContext *context = module.getContext();
  copy.setSymNameAttr(StringAttr::get(context, "kernels"));
  unsigned index = 0;
  for (auto fn : copy.getOps<gpu::GPUFuncOp>())
    SymbolTable::setSymbolName(fn, StringAttr::get(context, "f" + Twine(index++)));
  std::string text;
  llvm::raw_string_ostream os(text);
  copy->print(os, trace::structuralPrintingFlags());
  copy->erase();
  return text;
}

struct TraceDedupeGPUKernelsPass final
    : trace::impl::TraceDedupeGPUKernelsPassBase<TraceDedupeGPUKernelsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    llvm::StringMap<gpu::GPUModuleOp> byBody;
    // For each duplicate module, its kept twin.
    DenseMap<StringAttr, gpu::GPUModuleOp> keptFor;
    SmallVector<gpu::GPUModuleOp> duplicates;
    for (auto kernels : module.getOps<gpu::GPUModuleOp>()) {
      auto [it, inserted] = byBody.try_emplace(printedBody(kernels), kernels);
      if (inserted)
        continue;
      keptFor[kernels.getSymNameAttr()] = it->second;
      duplicates.push_back(kernels);
    }
    if (duplicates.empty())
      return;
    module.walk([&](gpu::LaunchFuncOp launch) {
      SymbolRefAttr target = launch.getKernelAttr();
      auto it = keptFor.find(target.getRootReference());
      if (it == keptFor.end())
        return;
      // The function at the same position in the kept module.
      auto duplicate = module.lookupSymbol<gpu::GPUModuleOp>(
          target.getRootReference());
      auto keptFns = it->second.getOps<gpu::GPUFuncOp>();
      auto keptFn = keptFns.begin();
      for (auto fn : duplicate.getOps<gpu::GPUFuncOp>()) {
        if (fn.getNameAttr() == target.getLeafReference())
          break;
        ++keptFn;
      }
      if (keptFn == keptFns.end())
        return; // not a function of the module: the verifier reports it
      FlatSymbolRefAttr nested = FlatSymbolRefAttr::get((*keptFn).getNameAttr());
      launch.setKernelAttr(SymbolRefAttr::get(it->second.getSymNameAttr(),
                                              ArrayRef(nested)));
    });
    for (gpu::GPUModuleOp duplicate : duplicates)
      duplicate->erase();
  }
};

} // namespace
