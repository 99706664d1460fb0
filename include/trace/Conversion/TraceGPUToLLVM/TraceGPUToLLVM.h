//===- TraceGPUToLLVM.h - trace_gpu ops to CUDA runtime calls ---*- C++ -*-===//

#ifndef TRACE_CONVERSION_TRACEGPUTOLLVM_TRACEGPUTOLLVM_H
#define TRACE_CONVERSION_TRACEGPUTOLLVM_TRACEGPUTOLLVM_H

namespace mlir {
class DialectRegistry;
class LLVMTypeConverter;
class RewritePatternSet;
} // namespace mlir

namespace mlir::trace {

/// Patterns lowering trace_gpu ops to calls of the CUDA runtime
/// (lib/Runtime/CUDA) on the stream their async dependency lowered to.
void populateTraceGPUToLLVMConversionPatterns(LLVMTypeConverter &converter,
                                              RewritePatternSet &patterns);

/// Attaches the convert-to-LLVM interface to the trace_gpu dialect, so
/// upstream's gpu-to-llvm (and convert-to-llvm) lower its ops together with
/// the gpu ops whose tokens they share.
void registerConvertTraceGPUToLLVMInterface(DialectRegistry &registry);

} // namespace mlir::trace

#endif // TRACE_CONVERSION_TRACEGPUTOLLVM_TRACEGPUTOLLVM_H
