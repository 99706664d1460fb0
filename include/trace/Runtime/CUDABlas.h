//===- CUDABlas.h - the GPU pipeline's matmul calls -------------*- C++ -*-===//
//
// What trace-linalg-to-blas{runtime=cuda} declares and lib/Runtime/CUDA
// implements next to the mgpu* functions (CUDARuntime.h). Each follows
// MLIR's C interface (`llvm.emit_c_interface`): `_mlir_ciface_<name>`
// taking pointers to memref descriptors.
//
//===----------------------------------------------------------------------===//

#ifndef TRACE_RUNTIME_CUDABLAS_H
#define TRACE_RUNTIME_CUDABLAS_H

#include "mlir/ExecutionEngine/CRunnerUtils.h"

extern "C" {

/// Matmuls on device memrefs, as trace-linalg-to-blas{runtime=cuda}
/// declares them (MLIR's C interface: pointers to memref descriptors):
/// C = A B + beta C, or C[i] = A[i] B[i] + beta C[i], with cuBLAS (loaded
/// with dlopen at the first call: libcublas.so.13 or .12, or the file
/// TRACE_CUBLAS names). Operands are row-major or column-major strided
/// views. beta is 1 (the matmul's accumulation) or 0 (C is not read). The
/// host code synchronized its stream before the call; the call returns
/// when C is written.
void _mlir_ciface_trace_cuda_matmul_f32(StridedMemRefType<float, 2> *a,
                                        StridedMemRefType<float, 2> *b,
                                        StridedMemRefType<float, 2> *c,
                                        float beta);
void _mlir_ciface_trace_cuda_matmul_f64(StridedMemRefType<double, 2> *a,
                                        StridedMemRefType<double, 2> *b,
                                        StridedMemRefType<double, 2> *c,
                                        double beta);
void _mlir_ciface_trace_cuda_batch_matmul_f32(StridedMemRefType<float, 3> *a,
                                              StridedMemRefType<float, 3> *b,
                                              StridedMemRefType<float, 3> *c,
                                              float beta);
void _mlir_ciface_trace_cuda_batch_matmul_f64(StridedMemRefType<double, 3> *a,
                                              StridedMemRefType<double, 3> *b,
                                              StridedMemRefType<double, 3> *c,
                                              double beta);

} // extern "C"

#endif // TRACE_RUNTIME_CUDABLAS_H
