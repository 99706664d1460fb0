//===- CUDABlas.h - the GPU pipeline's matmul calls -------------*- C++ -*-===//
//
// What trace_gpu.gemm lowers to (lib/Conversion/TraceGPUToLLVM) and
// lib/Runtime/CUDA implements next to the mgpu* functions (CUDARuntime.h).
// Operands come as pointers to memref descriptors, in the layout of MLIR's
// C interface.
//
//===----------------------------------------------------------------------===//

#ifndef TRACE_RUNTIME_CUDABLAS_H
#define TRACE_RUNTIME_CUDABLAS_H

#include "mlir/ExecutionEngine/CRunnerUtils.h"

extern "C" {

/// Matmuls on device memrefs: C = A B + beta C, or C[i] = A[i] B[i] +
/// beta C[i], queued on `stream` with cuBLAS (loaded with dlopen at the
/// first call: libcublas.so.13 or .12, or the file TRACE_CUBLAS names).
/// Operands are row-major or column-major strided views; C is row-major.
/// beta is 1 (the matmul's accumulation) or 0 (C is not read). The call
/// returns without waiting: C is written when the stream gets there.
void trace_cuda_matmul_f32(StridedMemRefType<float, 2> *a,
                           StridedMemRefType<float, 2> *b,
                           StridedMemRefType<float, 2> *c, float beta,
                           void *stream);
void trace_cuda_matmul_f64(StridedMemRefType<double, 2> *a,
                           StridedMemRefType<double, 2> *b,
                           StridedMemRefType<double, 2> *c, double beta,
                           void *stream);
void trace_cuda_batch_matmul_f32(StridedMemRefType<float, 3> *a,
                                 StridedMemRefType<float, 3> *b,
                                 StridedMemRefType<float, 3> *c, float beta,
                                 void *stream);
void trace_cuda_batch_matmul_f64(StridedMemRefType<double, 3> *a,
                                 StridedMemRefType<double, 3> *b,
                                 StridedMemRefType<double, 3> *c, double beta,
                                 void *stream);

} // extern "C"

#endif // TRACE_RUNTIME_CUDABLAS_H
