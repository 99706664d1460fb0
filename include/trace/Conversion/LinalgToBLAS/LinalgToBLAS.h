//===- LinalgToBLAS.h - linalg matmuls to a runtime's BLAS ------*- C++ -*-===//
//
// The choices of `trace-linalg-to-blas`, for pipelines that build it.
//
//===----------------------------------------------------------------------===//

#ifndef TRACE_CONVERSION_LINALGTOBLAS_LINALGTOBLAS_H
#define TRACE_CONVERSION_LINALGTOBLAS_LINALGTOBLAS_H

namespace mlir::trace {

/// Whose matmuls `trace-linalg-to-blas` calls (the pass's `runtime` option).
enum class BLASRuntime {
  /// OpenBLAS through lib/Runtime/CPU's `trace_rt_*matmul_<t>`.
  CPU,
  /// cuBLAS on device memory, as `trace_gpu.gemm` ops that lower to
  /// lib/Runtime/CUDA's `trace_cuda_*matmul_<t>`.
  CUDA,
};

} // namespace mlir::trace

#endif // TRACE_CONVERSION_LINALGTOBLAS_LINALGTOBLAS_H
