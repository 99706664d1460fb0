//===- TraceGPUToLLVM.cpp - trace_gpu ops to CUDA runtime calls -----------===//
//
// trace_gpu.gemm becomes a call of the CUDA runtime's
// trace_cuda_{batch_,}matmul_{f32,f64}(A*, B*, C*, beta, stream): A, B and
// C as pointers to memref descriptors (MLIR's C interface layout, so the
// runtime reads them as StridedMemRefType), the stream being what the op's
// one async dependency lowered to. The op's token is that stream, as for
// upstream's gpu.alloc.
//
// trace_gpu.call becomes an llvm.call of its callee (by then an llvm.func)
// with that stream first and the operands as func-to-llvm passes them; its
// token is the stream too, so the host's final wait still finds the
// stream's mgpuStreamCreate and synchronizes the stream.
//
// The pattern runs inside upstream's gpu-to-llvm, which collects the
// patterns of every loaded dialect with a convert-to-LLVM interface: it
// must, because only that conversion knows which stream a
// `!gpu.async.token` became.
//
//===----------------------------------------------------------------------===//

#include "trace/Conversion/TraceGPUToLLVM/TraceGPUToLLVM.h"

#include "trace/Dialect/TraceGPU/IR/TraceGPUDialect.h"

#include "mlir/Conversion/ConvertToLLVM/ToLLVMInterface.h"
#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;

namespace {

/// The runtime entry point of a gemm of this rank and element type.
std::string runtimeSymbol(MemRefType type) {
  std::string name = "trace_cuda_";
  if (type.getRank() == 3)
    name += "batch_";
  name += type.getElementType().isF32() ? "matmul_f32" : "matmul_f64";
  return name;
}

struct GemmOpLowering final
    : ConvertOpToLLVMPattern<trace_gpu::GemmOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(trace_gpu::GemmOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (adaptor.getAsyncDependencies().size() != 1)
      return rewriter.notifyMatchFailure(
          op, "needs exactly one async dependency (gpu-async-region)");
    auto function = op->getParentOfType<FunctionOpInterface>();
    auto module = op->getParentOfType<ModuleOp>();
    if (!function || function.isExternal() || !module)
      return rewriter.notifyMatchFailure(op, "not in a function of a module");
    Location loc = op.getLoc();
    MLIRContext *ctx = op.getContext();
    Type ptrType = LLVM::LLVMPointerType::get(ctx);
    Type element = op.getC().getType().getElementType();
    Value stream = adaptor.getAsyncDependencies().front();
    SmallVector<Value> descriptors = {adaptor.getA(), adaptor.getB(),
                                      adaptor.getC()};
    if (!llvm::all_of(descriptors, [](Value descriptor) {
          return isa<LLVM::LLVMStructType>(descriptor.getType());
        }))
      return rewriter.notifyMatchFailure(op, "operand not a descriptor");

    // The runtime function, declared once per module; checked before any
    // IR is created, so a failure leaves the op as it was.
    std::string name = runtimeSymbol(op.getC().getType());
    auto type = LLVM::LLVMFunctionType::get(
        LLVM::LLVMVoidType::get(ctx),
        {ptrType, ptrType, ptrType, element, ptrType});
    auto callee = module.lookupSymbol<LLVM::LLVMFuncOp>(name);
    if (!callee && module.lookupSymbol(name))
      return op.emitOpError("needs the symbol @")
             << name << " for the CUDA runtime, but the module has another "
             << "op of that name";
    if (callee && callee.getFunctionType() != type)
      return op.emitOpError("needs @")
             << name << " to be " << type << ", but the module declares "
             << callee.getFunctionType();
    if (!callee) {
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToStart(module.getBody());
      callee = LLVM::LLVMFuncOp::create(rewriter, loc, name, type);
    }

    // Each descriptor in a stack slot of the function's entry block (so a
    // call in a loop does not grow the stack), stored right before the call.
    SmallVector<Value> args;
    for (Value descriptor : descriptors) {
      Value slot;
      {
        OpBuilder::InsertionGuard guard(rewriter);
        rewriter.setInsertionPointToStart(&function.getFunctionBody().front());
        Value one = LLVM::ConstantOp::create(rewriter, loc,
                                             rewriter.getI64Type(), 1);
        slot = LLVM::AllocaOp::create(rewriter, loc, ptrType,
                                      descriptor.getType(), one);
      }
      LLVM::StoreOp::create(rewriter, loc, descriptor, slot);
      args.push_back(slot);
    }
    args.push_back(LLVM::ConstantOp::create(
        rewriter, loc, element,
        rewriter.getFloatAttr(element, op.getBeta().convertToDouble())));
    args.push_back(stream);
    LLVM::CallOp::create(rewriter, loc, callee, args);
    rewriter.replaceOp(op, stream);
    return success();
  }
};

struct CallOpLowering final : ConvertOpToLLVMPattern<trace_gpu::CallOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(trace_gpu::CallOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (adaptor.getAsyncDependencies().size() != 1)
      return rewriter.notifyMatchFailure(
          op, "needs exactly one async dependency (gpu-async-region)");
    // The callee as func-to-llvm converts it: already an llvm.func, or a
    // func.func this same conversion converts.
    Operation *callee =
        SymbolTable::lookupNearestSymbolFrom(op, op.getCalleeAttr());
    LLVM::LLVMFunctionType type;
    if (auto fn = dyn_cast_or_null<LLVM::LLVMFuncOp>(callee)) {
      type = fn.getFunctionType();
    } else if (auto fn = dyn_cast_or_null<func::FuncOp>(callee)) {
      TypeConverter::SignatureConversion signature(fn.getNumArguments());
      type = dyn_cast_or_null<LLVM::LLVMFunctionType>(
          getTypeConverter()->convertFunctionSignature(
              fn.getFunctionType(), /*isVariadic=*/false,
              /*useBarePtrCallConv=*/false, signature));
    }
    if (!type)
      return rewriter.notifyMatchFailure(op, "callee not convertible");
    Value stream = adaptor.getAsyncDependencies().front();
    SmallVector<Value> args = {stream};
    llvm::append_range(args, getTypeConverter()->promoteOperands(
                                 op.getLoc(), op.getArgs(), adaptor.getArgs(),
                                 rewriter));
    // A callee of another signature (a bare-pointer calling convention,
    // say) is an error, not a miscompiled call.
    if (TypeRange(ValueRange(args)) != type.getParams() ||
        !isa<LLVM::LLVMVoidType>(type.getReturnType()))
      return op.emitOpError("passes ")
             << TypeRange(ValueRange(args)) << " to @" << op.getCallee()
             << ", whose lowered type is " << type;
    LLVM::CallOp::create(rewriter, op.getLoc(), TypeRange(),
                         op.getCalleeAttr(), args);
    rewriter.replaceOp(op, stream);
    return success();
  }
};

struct TraceGPUToLLVMInterface final : ConvertToLLVMPatternInterface {
  using ConvertToLLVMPatternInterface::ConvertToLLVMPatternInterface;

  void populateConvertToLLVMConversionPatterns(
      ConversionTarget &target, LLVMTypeConverter &converter,
      RewritePatternSet &patterns) const final {
    target.addIllegalDialect<trace_gpu::TraceGPUDialect>();
    trace::populateTraceGPUToLLVMConversionPatterns(converter, patterns);
  }
};

} // namespace

void trace::populateTraceGPUToLLVMConversionPatterns(
    LLVMTypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<CallOpLowering, GemmOpLowering>(converter);
}

void trace::registerConvertTraceGPUToLLVMInterface(DialectRegistry &registry) {
  registry.addExtension(
      +[](MLIRContext *, trace_gpu::TraceGPUDialect *dialect) {
        dialect->addInterfaces<TraceGPUToLLVMInterface>();
      });
}
