//===- TraceOutlineKernels.cpp - a function per loop nest, deduplicated ---===//
//
// Every linalg op left on buffers becomes a call to a private kernel
// function named after a hash of its body; nests with the same body share
// one kernel. See the pass description in Passes.td.
//
//===----------------------------------------------------------------------===//

#include "trace/Codegen/CPU/Passes.h"
#include "trace/Support/StructuralPrinting.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/xxhash.h"

#define DEBUG_TYPE "trace-outline-kernels"

namespace mlir::trace {
#define GEN_PASS_DEF_TRACEOUTLINEKERNELSPASS
#include "trace/Codegen/CPU/Passes.h.inc"
} // namespace mlir::trace

using namespace mlir;
using mlir::trace::kKernelPrefix;

namespace {

/// The kernel of `nest`, not yet in any module: its arguments are the
/// values `args` it reads (operands first), its constants are clones.
func::FuncOp buildKernel(linalg::LinalgOp nest, SmallVectorImpl<Value> &args,
                         llvm::SetVector<Operation *> &cloned) {
  llvm::SetVector<Value> read(nest->operand_begin(), nest->operand_end());
  getUsedValuesDefinedAbove(nest->getRegions(), read);
  SmallVector<Operation *> constants;
  for (Value value : read) {
    if (matchPattern(value, m_Constant()))
      constants.push_back(value.getDefiningOp());
    else
      args.push_back(value);
  }
  MLIRContext *context = nest->getContext();
  auto type = FunctionType::get(context, ValueRange(args).getTypes(), {});
  auto kernel = func::FuncOp::create(nest.getLoc(), kKernelPrefix, type);
  Block *entry = kernel.addEntryBlock();
  OpBuilder builder = OpBuilder::atBlockBegin(entry);
  IRMapping mapping;
  mapping.map(args, entry->getArguments());
  for (Operation *constant : constants) {
    builder.clone(*constant, mapping);
    cloned.insert(constant);
  }
  builder.clone(*nest, mapping);
  func::ReturnOp::create(builder, nest.getLoc());
  return kernel;
}

struct TraceOutlineKernelsPass final
    : trace::impl::TraceOutlineKernelsPassBase<TraceOutlineKernelsPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *context = &getContext();
    SmallVector<linalg::LinalgOp> nests;
    for (auto func : module.getOps<func::FuncOp>())
      if (!func.isExternal() && !trace::isKernelName(func.getSymName()))
        func.walk([&](linalg::LinalgOp nest) {
          // On tensors a nest has results to replace; the pass runs on
          // buffers.
          if (nest.hasPureBufferSemantics())
            nests.push_back(nest);
        });

    SymbolTable symbols(module);
    // Kernels by their printed body. The text, not a hash of it, decides
    // sharing, so a collision of names can never merge two bodies.
    llvm::StringMap<func::FuncOp> byBody;
    auto noinline =
        ArrayAttr::get(context, {StringAttr::get(context, "noinline")});
    // The host's constants the kernels took copies of.
    llvm::SetVector<Operation *> cloned;
    for (linalg::LinalgOp nest : nests) {
      SmallVector<Value> args;
      func::FuncOp kernel = buildKernel(nest, args, cloned);
      std::string body;
      {
        llvm::raw_string_ostream os(body);
        kernel->print(os, trace::structuralPrintingFlags());
      }
      func::FuncOp &shared = byBody[body];
      if (shared && dedupe) {
        kernel->erase();
      } else {
        std::string name;
        llvm::raw_string_ostream(name)
            << kKernelPrefix
            << llvm::format_hex_no_prefix(llvm::xxh3_64bits(body), 16);
        kernel.setSymName(name);
        kernel.setPrivate();
        kernel->setAttr("passthrough", noinline);
        // SymbolTable::insert renames on a clash (a hash collision, or the
        // same body outlined twice without dedupe).
        symbols.insert(kernel);
        shared = kernel;
      }
      OpBuilder builder(nest);
      func::CallOp::create(builder, nest.getLoc(), shared, args);
      nest->erase();
    }
    for (Operation *constant : cloned)
      if (constant->use_empty())
        constant->erase();
  }
};

} // namespace
