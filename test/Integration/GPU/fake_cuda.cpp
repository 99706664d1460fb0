//===- fake_cuda.cpp - a host-memory libcuda.so.1 for the runner self-test ===//
//
// The driver functions the CUDA runtime and the GPU check runners call,
// with host memory as device memory and every stream synchronous. Built as
// libcuda.so.1 by runner-selftest.test, whose runners call CPU-compiled code
// in place of the GPU functions: it checks the runners' plumbing
// (descriptors, copies, comparison, freeing) on a machine without a GPU.
// Modules and launches are not supported and say so.
//
//===----------------------------------------------------------------------===//

#include <cuda.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>

extern "C" {

CUresult cuInit(unsigned int) { return CUDA_SUCCESS; }
CUresult cuDriverGetVersion(int *version) {
  *version = 0; // "driver 0.0": the fake
  return CUDA_SUCCESS;
}
CUresult cuDeviceGet(CUdevice *device, int ordinal) {
  *device = ordinal;
  return ordinal == 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE;
}
CUresult cuDeviceGetName(char *name, int length, CUdevice) {
  std::strncpy(name, "fake CUDA device (host memory)", length);
  name[length - 1] = 0;
  return CUDA_SUCCESS;
}
CUresult cuDeviceGetAttribute(int *value, CUdevice_attribute, CUdevice) {
  *value = 0;
  return CUDA_SUCCESS;
}
CUresult cuDevicePrimaryCtxRetain(CUcontext *context, CUdevice) {
  static int token;
  *context = reinterpret_cast<CUcontext>(&token);
  return CUDA_SUCCESS;
}
CUresult cuCtxSetCurrent(CUcontext) { return CUDA_SUCCESS; }

// The device's memory pool, whose release threshold tests read back
// (caller-stream.test).
cuuint64_t fake_cuda_release_threshold = 0;
CUresult cuDeviceGetMemPool(CUmemoryPool *pool, CUdevice) {
  static int token;
  *pool = reinterpret_cast<CUmemoryPool>(&token);
  return CUDA_SUCCESS;
}
CUresult cuMemPoolSetAttribute(CUmemoryPool, CUmemPool_attribute attribute,
                               void *value) {
  if (attribute != CU_MEMPOOL_ATTR_RELEASE_THRESHOLD)
    return CUDA_ERROR_NOT_SUPPORTED;
  fake_cuda_release_threshold = *static_cast<cuuint64_t *>(value);
  return CUDA_SUCCESS;
}
CUresult cuGetErrorName(CUresult error, const char **name) {
  *name = error == CUDA_ERROR_NOT_SUPPORTED ? "CUDA_ERROR_NOT_SUPPORTED"
                                            : "fake CUDA error";
  return CUDA_SUCCESS;
}
CUresult cuGetErrorString(CUresult, const char **message) {
  *message = "the fake driver runs no kernels";
  return CUDA_SUCCESS;
}

CUresult cuModuleLoadData(CUmodule *, const void *) {
  return CUDA_ERROR_NOT_SUPPORTED;
}
CUresult cuModuleLoadDataEx(CUmodule *, const void *, unsigned int,
                            CUjit_option *, void **) {
  return CUDA_ERROR_NOT_SUPPORTED;
}
CUresult cuModuleUnload(CUmodule) { return CUDA_ERROR_NOT_SUPPORTED; }
CUresult cuModuleGetFunction(CUfunction *, CUmodule, const char *) {
  return CUDA_ERROR_NOT_SUPPORTED;
}
CUresult cuLaunchKernel(CUfunction, unsigned, unsigned, unsigned, unsigned,
                        unsigned, unsigned, unsigned, CUstream, void **,
                        void **) {
  return CUDA_ERROR_NOT_SUPPORTED;
}

// A stream is a flag that says it is alive (never freed, so that a use
// after destruction reads it): destroying or synchronizing a destroyed
// stream fails as the driver's does. Null is the legacy default stream.
CUresult cuStreamCreate(CUstream *stream, unsigned int) {
  *stream = reinterpret_cast<CUstream>(new int(1));
  return CUDA_SUCCESS;
}
CUresult cuStreamDestroy(CUstream stream) {
  auto *alive = reinterpret_cast<int *>(stream);
  if (alive && !*alive)
    return CUDA_ERROR_INVALID_HANDLE;
  if (alive)
    *alive = 0;
  return CUDA_SUCCESS;
}
CUresult cuStreamSynchronize(CUstream stream) {
  auto *alive = reinterpret_cast<int *>(stream);
  return alive && !*alive ? CUDA_ERROR_INVALID_HANDLE : CUDA_SUCCESS;
}
CUresult cuStreamWaitEvent(CUstream, CUevent, unsigned int) {
  return CUDA_SUCCESS;
}
CUresult cuEventCreate(CUevent *event, unsigned int) {
  static int token;
  *event = reinterpret_cast<CUevent>(&token);
  return CUDA_SUCCESS;
}
CUresult cuEventDestroy(CUevent) { return CUDA_SUCCESS; }
CUresult cuEventSynchronize(CUevent) { return CUDA_SUCCESS; }
CUresult cuEventRecord(CUevent, CUstream) { return CUDA_SUCCESS; }

// The stream of the last stream-ordered allocation or free, for tests that
// check which stream the runtime orders them on (caller-stream.test). A
// destroyed stream fails them, as it fails a synchronize.
CUstream fake_cuda_last_memory_stream = nullptr;

CUresult cuMemAllocAsync(CUdeviceptr *pointer, size_t bytes, CUstream stream) {
  auto *alive = reinterpret_cast<int *>(stream);
  if (alive && !*alive)
    return CUDA_ERROR_INVALID_HANDLE;
  fake_cuda_last_memory_stream = stream;
  *pointer = reinterpret_cast<CUdeviceptr>(std::malloc(bytes));
  return *pointer ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}
CUresult cuMemAllocManaged(CUdeviceptr *pointer, size_t bytes, unsigned int) {
  *pointer = reinterpret_cast<CUdeviceptr>(std::malloc(bytes));
  return *pointer ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}
CUresult cuPointerGetAttribute(void *data, CUpointer_attribute, CUdeviceptr) {
  *static_cast<unsigned *>(data) = 0;
  return CUDA_SUCCESS;
}
CUresult cuMemFree(CUdeviceptr pointer) {
  std::free(reinterpret_cast<void *>(pointer));
  return CUDA_SUCCESS;
}
CUresult cuMemFreeAsync(CUdeviceptr pointer, CUstream stream) {
  auto *alive = reinterpret_cast<int *>(stream);
  if (alive && !*alive)
    return CUDA_ERROR_INVALID_HANDLE;
  fake_cuda_last_memory_stream = stream;
  return cuMemFree(pointer);
}
CUresult cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, size_t bytes,
                       CUstream) {
  std::memcpy(reinterpret_cast<void *>(dst), reinterpret_cast<void *>(src),
              bytes);
  return CUDA_SUCCESS;
}
CUresult cuMemsetD32Async(CUdeviceptr dst, unsigned int value, size_t count,
                          CUstream) {
  auto *p = reinterpret_cast<uint32_t *>(dst);
  for (size_t i = 0; i < count; ++i)
    p[i] = value;
  return CUDA_SUCCESS;
}
CUresult cuMemsetD16Async(CUdeviceptr dst, unsigned short value, size_t count,
                          CUstream) {
  auto *p = reinterpret_cast<uint16_t *>(dst);
  for (size_t i = 0; i < count; ++i)
    p[i] = value;
  return CUDA_SUCCESS;
}

} // extern "C"
