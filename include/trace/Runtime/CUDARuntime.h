//===- CUDARuntime.h - what GPU-pipeline host code calls --------*- C++ -*-===//
//
// The mgpu* functions that MLIR 22 emits calls to in host code lowered by
// trace-gpu-pipeline: gpu-to-llvm emits the stream, event, allocation and
// copy calls; mlir-translate emits the module and launch calls (a global
// constructor per gpu.binary, one GetFunction + LaunchKernel per
// gpu.launch_func). The types are those of the emitted LLVM declarations
// (i64 -> int64_t/uint64_t, i32 -> int32_t, i8 -> uint8_t, ptr -> void *);
// test/Runtime/CUDA checks them against the lowering's output.
//
// lib/Runtime/CUDA implements them on the CUDA driver API (libcuda.so.1,
// the only library a program using them needs at run time). Upstream's
// libmlir_cuda_runtime is not in Debian and older copies of it have the
// pre-22 signatures (mgpuModuleLoad without a size, ...).
//
// Errors: the ABI has no error channel, so a failing driver call prints
// the call, the driver's error name and message to stderr and aborts.
//
//===----------------------------------------------------------------------===//

#ifndef TRACE_RUNTIME_CUDARUNTIME_H
#define TRACE_RUNTIME_CUDARUNTIME_H

#include <cstddef>
#include <cstdint>

extern "C" {

/// Modules. `data` is a cubin or fatbin of `size` bytes (format=bin,
/// fatbin), or NUL-terminated PTX that the driver compiles at
/// `optLevel` 0-4 (format=isa). Both initialize CUDA on first use (they
/// run from global constructors, before main).
void *mgpuModuleLoad(void *data, size_t size);
void *mgpuModuleLoadJIT(void *data, int32_t optLevel);
void mgpuModuleUnload(void *module);
void *mgpuModuleGetFunction(void *module, const char *name);

/// `params` points to `paramCount` pointers to the kernel's arguments;
/// `extra` is cuLaunchKernel's (null from MLIR).
void mgpuLaunchKernel(void *function, int64_t gridX, int64_t gridY,
                      int64_t gridZ, int64_t blockX, int64_t blockY,
                      int64_t blockZ, int32_t sharedBytes, void *stream,
                      void **params, void **extra, uint64_t paramCount);

/// Streams and events.
void *mgpuStreamCreate();
void mgpuStreamDestroy(void *stream);
void mgpuStreamSynchronize(void *stream);
void mgpuStreamWaitEvent(void *stream, void *event);
void *mgpuEventCreate();
void mgpuEventDestroy(void *event);
void mgpuEventSynchronize(void *event);
void mgpuEventRecord(void *event, void *stream);

/// The stream (a CUstream of the device's primary context) that this
/// thread's later calls queue their work on: mgpuStreamCreate returns it
/// and mgpuStreamDestroy leaves it alone, so a compiled function's kernels,
/// copies, allocations and gemms run on the caller's stream (PyTorch's
/// current one) in order with the caller's work. Null (the default): a
/// blocking stream of the runtime's own per mgpuStreamCreate, ordered
/// after the legacy default stream's work. Not an mgpu* function: the C
/// interface calls it from NAME_set_stream (trace-compile --target=cuda).
void trace_rt_cuda_use_stream(void *stream);

/// The values a compiled forward saves for its backward (trace-compile
/// --target=cuda, donated): the C interface allocates each with
/// trace_rt_cuda_alloc before the forward writes it, ordered on this
/// thread's caller's stream (trace_rt_cuda_use_stream) or else on the
/// legacy default stream, which the runtime's own streams follow. The
/// backward frees each on its stream after its last read (mgpuMemFree),
/// and NAME_release frees one that never reaches the backward with
/// trace_rt_cuda_free, on the legacy default stream: the forward that
/// wrote it has synchronized, and the stream named last may be gone when a
/// dropped graph releases it. Device memory from the driver's
/// stream-ordered pool, as mgpuMemAlloc's; zero bytes is a null pointer,
/// and freeing null does nothing.
void *trace_rt_cuda_alloc(uint64_t bytes);
void trace_rt_cuda_free(void *pointer);

/// Device memory, ordered on `stream` (null: the default stream). Device
/// allocations come from the driver's stream-ordered pool
/// (cuMemAllocAsync), whose release threshold the runtime sets to keep
/// what is freed for later calls instead of handing it back at every
/// synchronize (cuMemPoolTrimTo on device 0's pool gives it back);
/// `hostShared` makes a managed allocation instead.
/// A zero-byte allocation is a null pointer.
void *mgpuMemAlloc(uint64_t bytes, void *stream, uint8_t hostShared);
void mgpuMemFree(void *pointer, void *stream);
void mgpuMemcpy(void *dst, void *src, uint64_t bytes, void *stream);
void mgpuMemset32(void *dst, uint32_t value, uint64_t count, void *stream);
void mgpuMemset16(void *dst, uint16_t value, uint64_t count, void *stream);

/// The device (ordinal) CUDA is initialized on; before the first other
/// call, or it has no effect. Default 0.
void mgpuSetDefaultDevice(int32_t device);

} // extern "C"

#endif // TRACE_RUNTIME_CUDARUNTIME_H
