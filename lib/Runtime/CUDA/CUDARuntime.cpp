//===- CUDARuntime.cpp - mgpu* on the CUDA driver API ---------------------===//
//
// See include/trace/Runtime/CUDARuntime.h. Every call runs in the device's
// primary context, made current on the calling thread on first use; the
// context is retained for the life of the process (the modules are
// unloaded by global destructors, so it must outlive main).
//
//===----------------------------------------------------------------------===//

#include "trace/Runtime/CUDARuntime.h"

#include <cuda.h>

#include <cstdio>
#include <cstdlib>
#include <mutex>

namespace {

[[noreturn]] void fail(const char *call, CUresult result) {
  const char *name = nullptr;
  const char *message = nullptr;
  cuGetErrorName(result, &name);
  cuGetErrorString(result, &message);
  std::fprintf(stderr, "trace CUDA runtime: %s failed: %s (%s)\n", call,
               name ? name : "unknown error", message ? message : "");
  std::fflush(stderr);
  std::abort();
}

#define CHECK(call)                                                            \
  do {                                                                         \
    CUresult result_ = (call);                                                 \
    if (result_ != CUDA_SUCCESS)                                               \
      fail(#call, result_);                                                    \
  } while (false)

int32_t defaultDevice = 0;
CUcontext primaryContext = nullptr;
std::once_flag initialized;

/// Initializes CUDA once and makes the primary context current on this
/// thread.
void useContext() {
  std::call_once(initialized, [] {
    CHECK(cuInit(0));
    CUdevice device;
    CHECK(cuDeviceGet(&device, defaultDevice));
    CHECK(cuDevicePrimaryCtxRetain(&primaryContext, device));
  });
  thread_local bool current = false;
  if (!current) {
    CHECK(cuCtxSetCurrent(primaryContext));
    current = true;
  }
}

CUstream asStream(void *stream) { return static_cast<CUstream>(stream); }

} // namespace

extern "C" {

void *mgpuModuleLoad(void *data, size_t size) {
  (void)size; // cubins and fatbins carry their own size.
  useContext();
  CUmodule module = nullptr;
  CHECK(cuModuleLoadData(&module, data));
  return module;
}

void *mgpuModuleLoadJIT(void *data, int32_t optLevel) {
  useContext();
  char log[8192] = {0};
  CUjit_option options[] = {CU_JIT_OPTIMIZATION_LEVEL, CU_JIT_ERROR_LOG_BUFFER,
                            CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void *values[] = {reinterpret_cast<void *>(static_cast<intptr_t>(optLevel)),
                    log, reinterpret_cast<void *>(sizeof(log))};
  CUmodule module = nullptr;
  CUresult result =
      cuModuleLoadDataEx(&module, data, 3, options, values);
  if (result != CUDA_SUCCESS) {
    std::fprintf(stderr, "trace CUDA runtime: PTX JIT log:\n%s\n", log);
    fail("cuModuleLoadDataEx", result);
  }
  return module;
}

void mgpuModuleUnload(void *module) {
  useContext();
  // Called from a global destructor: at process exit the driver may have
  // shut down first (CUDA_ERROR_DEINITIALIZED), and it releases the module
  // itself then. Unloading is never worth aborting a finished program for.
  CUresult result = cuModuleUnload(static_cast<CUmodule>(module));
  if (result != CUDA_SUCCESS && result != CUDA_ERROR_DEINITIALIZED)
    std::fprintf(stderr, "trace CUDA runtime: warning: cuModuleUnload "
                         "failed (CUresult %d)\n", int(result));
}

void *mgpuModuleGetFunction(void *module, const char *name) {
  useContext();
  CUfunction function = nullptr;
  CHECK(cuModuleGetFunction(&function, static_cast<CUmodule>(module), name));
  return function;
}

void mgpuLaunchKernel(void *function, int64_t gridX, int64_t gridY,
                      int64_t gridZ, int64_t blockX, int64_t blockY,
                      int64_t blockZ, int32_t sharedBytes, void *stream,
                      void **params, void **extra, uint64_t paramCount) {
  (void)paramCount; // cuLaunchKernel reads the count from the kernel.
  useContext();
  CHECK(cuLaunchKernel(static_cast<CUfunction>(function), gridX, gridY, gridZ,
                       blockX, blockY, blockZ, sharedBytes, asStream(stream),
                       params, extra));
}

void *mgpuStreamCreate() {
  useContext();
  CUstream stream = nullptr;
  CHECK(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));
  return stream;
}

void mgpuStreamDestroy(void *stream) {
  useContext();
  CHECK(cuStreamDestroy(asStream(stream)));
}

void mgpuStreamSynchronize(void *stream) {
  useContext();
  CHECK(cuStreamSynchronize(asStream(stream)));
}

void mgpuStreamWaitEvent(void *stream, void *event) {
  useContext();
  CHECK(cuStreamWaitEvent(asStream(stream), static_cast<CUevent>(event), 0));
}

void *mgpuEventCreate() {
  useContext();
  CUevent event = nullptr;
  CHECK(cuEventCreate(&event, CU_EVENT_DISABLE_TIMING));
  return event;
}

void mgpuEventDestroy(void *event) {
  useContext();
  CHECK(cuEventDestroy(static_cast<CUevent>(event)));
}

void mgpuEventSynchronize(void *event) {
  useContext();
  CHECK(cuEventSynchronize(static_cast<CUevent>(event)));
}

void mgpuEventRecord(void *event, void *stream) {
  useContext();
  CHECK(cuEventRecord(static_cast<CUevent>(event), asStream(stream)));
}

void *mgpuMemAlloc(uint64_t bytes, void *stream, uint8_t hostShared) {
  useContext();
  if (bytes == 0)
    return nullptr;
  CUdeviceptr pointer = 0;
  if (hostShared)
    CHECK(cuMemAllocManaged(&pointer, bytes, CU_MEM_ATTACH_GLOBAL));
  else
    CHECK(cuMemAllocAsync(&pointer, bytes, asStream(stream)));
  return reinterpret_cast<void *>(pointer);
}

void mgpuMemFree(void *pointer, void *stream) {
  if (!pointer)
    return;
  useContext();
  auto device = reinterpret_cast<CUdeviceptr>(pointer);
  unsigned managed = 0;
  CHECK(cuPointerGetAttribute(&managed, CU_POINTER_ATTRIBUTE_IS_MANAGED,
                              device));
  if (managed) {
    // Managed memory is not stream-ordered: wait for the stream's work.
    CHECK(cuStreamSynchronize(asStream(stream)));
    CHECK(cuMemFree(device));
  } else {
    CHECK(cuMemFreeAsync(device, asStream(stream)));
  }
}

void mgpuMemcpy(void *dst, void *src, uint64_t bytes, void *stream) {
  useContext();
  CHECK(cuMemcpyAsync(reinterpret_cast<CUdeviceptr>(dst),
                      reinterpret_cast<CUdeviceptr>(src), bytes,
                      asStream(stream)));
}

void mgpuMemset32(void *dst, uint32_t value, uint64_t count, void *stream) {
  useContext();
  CHECK(cuMemsetD32Async(reinterpret_cast<CUdeviceptr>(dst), value, count,
                         asStream(stream)));
}

void mgpuMemset16(void *dst, uint16_t value, uint64_t count, void *stream) {
  useContext();
  CHECK(cuMemsetD16Async(reinterpret_cast<CUdeviceptr>(dst), value, count,
                         asStream(stream)));
}

void mgpuSetDefaultDevice(int32_t device) { defaultDevice = device; }

} // extern "C"
