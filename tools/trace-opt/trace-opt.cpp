//===- trace-opt.cpp - the trace-mlir optimizer driver --------------------===//
//
// mlir-opt with the trace dialect, its passes, and the upstream dialects the
// trace pipeline lowers through. Verification after every pass is on (the
// MlirOptMain default): Debian's MLIR is built without assertions, so the
// verifier is what catches a broken rewrite.
//
//===----------------------------------------------------------------------===//

#include "trace/Dialect/Trace/IR/TraceDialect.h"
#include "trace/Transforms/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  registry.insert<mlir::trace::TraceDialect, mlir::affine::AffineDialect,
                  mlir::arith::ArithDialect,
                  mlir::bufferization::BufferizationDialect,
                  mlir::cf::ControlFlowDialect, mlir::func::FuncDialect,
                  mlir::gpu::GPUDialect, mlir::LLVM::LLVMDialect,
                  mlir::NVVM::NVVMDialect, mlir::linalg::LinalgDialect,
                  mlir::math::MathDialect, mlir::memref::MemRefDialect,
                  mlir::scf::SCFDialect, mlir::tensor::TensorDialect,
                  mlir::vector::VectorDialect>();

  // The external models the lowering relies on (bufferization of arith,
  // tensor and linalg ops, convert-to-LLVM, the NVVM target, inliner
  // interfaces) and LLVM IR translation for gpu-module-to-binary. They
  // attach only to dialects that are loaded.
  mlir::registerAllExtensions(registry);
  mlir::registerAllToLLVMIRTranslations(registry);

  // Every upstream pass and pipeline (canonicalize, one-shot-bufferize,
  // convert-*-to-llvm, gpu-lower-to-nvvm-pipeline, ...) and ours. From
  // libMLIR.so, so this costs no link time.
  mlir::registerAllPasses();
  mlir::trace::registerTracePasses();

  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "trace-mlir optimizer driver\n", registry));
}
