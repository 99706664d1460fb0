//===- CPURuntime.h - C entry points of the CPU runtime ---------*- C++ -*-===//
//
// What code compiled by the CPU pipeline calls. The matmuls and the arena's
// page calls follow MLIR's C interface (`llvm.emit_c_interface`):
// `_mlir_ciface_<name>` taking pointers to memref descriptors;
// trace_rt_populate_buffer takes plain integers. The compiler side
// declares them: trace-linalg-to-blas the matmuls, trace-plan-buffers the
// page calls.
//
//===----------------------------------------------------------------------===//

#ifndef TRACE_RUNTIME_CPURUNTIME_H
#define TRACE_RUNTIME_CPURUNTIME_H

#include "mlir/ExecutionEngine/CRunnerUtils.h"

extern "C" {

/// C = A B + beta C for strided 2-D f32 / f64 memrefs (OpenBLAS gemm; a
/// plain loop for layouts gemm cannot take). beta is 1 (a matmul's
/// accumulation) or 0 (C is not read: it may hold anything).
void _mlir_ciface_trace_rt_matmul_f32(StridedMemRefType<float, 2> *a,
                                      StridedMemRefType<float, 2> *b,
                                      StridedMemRefType<float, 2> *c,
                                      float beta);
void _mlir_ciface_trace_rt_matmul_f64(StridedMemRefType<double, 2> *a,
                                      StridedMemRefType<double, 2> *b,
                                      StridedMemRefType<double, 2> *c,
                                      double beta);

/// The OpenBLAS kernel family the matmuls run ("SkylakeX", "Haswell", ...;
/// "none" when OpenBLAS could not be loaded). Loads OpenBLAS if no matmul
/// has.
const char *trace_rt_blas_corename();

/// C[i] = A[i] B[i] + beta C[i] for each batch index i.
void _mlir_ciface_trace_rt_batch_matmul_f32(StridedMemRefType<float, 3> *a,
                                            StridedMemRefType<float, 3> *b,
                                            StridedMemRefType<float, 3> *c,
                                            float beta);
void _mlir_ciface_trace_rt_batch_matmul_f64(StridedMemRefType<double, 3> *a,
                                            StridedMemRefType<double, 3> *b,
                                            StridedMemRefType<double, 3> *c,
                                            double beta);

/// Hands back to the kernel the whole pages inside bytes [offset, offset +
/// bytes) of `arena` (trace-plan-buffers' arena), which hold no live value
/// (a later op that takes them writes before it reads): the resident set
/// shrinks while the function runs. madvise(MADV_DONTNEED).
void _mlir_ciface_trace_rt_release_pages(StridedMemRefType<int8_t, 1> *arena,
                                         int64_t offset, int64_t bytes);

/// Makes resident, in one call, the whole pages inside bytes [offset,
/// offset + bytes) of `arena` (clipped to the arena), just before the op
/// that first writes them, or writes them again after a release:
/// madvise(MADV_POPULATE_WRITE), contents
/// unchanged: one call costs a fraction of faulting the pages in one by
/// one. A kernel without it (before Linux 5.14) faults them as before.
void _mlir_ciface_trace_rt_populate_pages(StridedMemRefType<int8_t, 1> *arena,
                                          int64_t offset, int64_t bytes);

/// The same for a whole buffer outside the arena (an out-parameter, an
/// allocation the function returns), every page it touches: `address` is
/// its aligned pointer. Not a C-interface function: trace-plan-buffers
/// declares it as (index, index).
void trace_rt_populate_buffer(int64_t address, int64_t bytes);

/// The threads the calling thread's next kernels and matmuls run on (the
/// OpenMP team's size; at least 1): OMP_NUM_THREADS, else every core,
/// until this is called.
void trace_rt_set_num_threads(int threads);
int trace_rt_num_threads();

/// A symbol a tool references so the linker keeps the runtime library.
int traceRuntimeAbiVersion();
}

#endif // TRACE_RUNTIME_CPURUNTIME_H
