//===- CUDARuntime.cpp - mgpu* on the CUDA driver API ---------------------===//
//
// See include/trace/Runtime/CUDARuntime.h. Every call runs in the device's
// primary context, made current on the calling thread on first use; the
// context is retained for the life of the process (the modules are
// unloaded by global destructors, so it must outlive main).
//
//===----------------------------------------------------------------------===//

#include "trace/Runtime/CUDARuntime.h"
#include "trace/Runtime/CUDABlas.h"
#include "trace/Runtime/GemmLayout.h"

#include <cublas_v2.h>
#include <cuda.h>
#include <dlfcn.h>

#include <climits>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <vector>

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
    // Temporaries and saved values come from the device's stream-ordered
    // pool (cuMemAllocAsync). With the pool's default release threshold,
    // 0, every synchronize (one per call of a compiled step) hands the
    // pool's free memory back to the driver, and the next call maps it
    // again. Keep it for the next call, as PyTorch's caching allocator
    // keeps its blocks and its cudaMallocAsync backend sets this threshold
    // too; cuMemPoolTrimTo gives it back.
    CUmemoryPool pool = nullptr;
    CHECK(cuDeviceGetMemPool(&pool, device));
    cuuint64_t keep = ~cuuint64_t(0);
    CHECK(cuMemPoolSetAttribute(pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD,
                                &keep));
  });
  thread_local bool current = false;
  if (!current) {
    CHECK(cuCtxSetCurrent(primaryContext));
    current = true;
  }
}

CUstream asStream(void *stream) { return static_cast<CUstream>(stream); }

/// The caller's stream (trace_rt_cuda_use_stream), per thread: null for a
/// stream of the library's own per call.
thread_local CUstream callerStream = nullptr;

//===----------------------------------------------------------------------===//
// cuBLAS
//===----------------------------------------------------------------------===//
//
// cuBLAS is opened with dlopen at the first matmul rather than linked, so a
// program's only link-time CUDA dependency stays libcuda.so.1: one without
// matmuls runs where only the driver is installed, and one with matmuls
// says which library it is missing. cuBLAS runs in the primary context this
// runtime makes current, on the stream the host code passes: the one its
// kernels run on, so a gemm is ordered with them on the device and the host
// never waits for it.

[[noreturn]] void failRuntime(const char *message, const char *detail) {
  std::fprintf(stderr, "trace CUDA runtime: %s%s\n", message, detail);
  std::fflush(stderr);
  std::abort();
}

struct CuBLAS {
  decltype(&cublasCreate_v2) create = nullptr;
  decltype(&cublasGetStatusString) statusString = nullptr;
  decltype(&cublasSetStream_v2) setStream = nullptr;
  decltype(&cublasSgemm_v2) sgemm = nullptr;
  decltype(&cublasDgemm_v2) dgemm = nullptr;
  decltype(&cublasSgemmStridedBatched) sgemmBatched = nullptr;
  decltype(&cublasDgemmStridedBatched) dgemmBatched = nullptr;
};

void checkBLAS(const CuBLAS &blas, const char *call, cublasStatus_t status) {
  if (status == CUBLAS_STATUS_SUCCESS)
    return;
  std::string message = std::string(call) + " failed: ";
  failRuntime(message.c_str(),
              blas.statusString ? blas.statusString(status) : "");
}

/// cuBLAS, loaded on first use. TRACE_CUBLAS, when set,
/// names the one library file to load instead of the usual sonames.
const CuBLAS &cublas() {
  static CuBLAS blas;
  static std::once_flag loaded;
  std::call_once(loaded, [] {
    const char *chosen = std::getenv("TRACE_CUBLAS");
    std::vector<const char *> names = {"libcublas.so.13", "libcublas.so.12"};
    if (chosen && *chosen)
      names = {chosen};
    void *library = nullptr;
    for (const char *name : names)
      if ((library = dlopen(name, RTLD_NOW | RTLD_LOCAL)))
        break;
    if (!library)
      failRuntime("matmuls need cuBLAS (libcublas.so.13 or .12, or the "
                  "file TRACE_CUBLAS names), which could not be loaded: ",
                  dlerror());
    auto symbol = [&](auto &function, const char *name) {
      function = reinterpret_cast<std::remove_reference_t<decltype(function)>>(
          dlsym(library, name));
      if (!function)
        failRuntime("cuBLAS lacks ", name);
    };
    symbol(blas.create, "cublasCreate_v2");
    symbol(blas.statusString, "cublasGetStatusString");
    symbol(blas.setStream, "cublasSetStream_v2");
    symbol(blas.sgemm, "cublasSgemm_v2");
    symbol(blas.dgemm, "cublasDgemm_v2");
    symbol(blas.sgemmBatched, "cublasSgemmStridedBatched");
    symbol(blas.dgemmBatched, "cublasDgemmStridedBatched");
  });
  return blas;
}

/// This host thread's cuBLAS handle, created on its first gemm. One per
/// thread, as cuBLAS advises: the stream is set on the handle before each
/// gemm, and with a shared handle two threads could queue their gemms on
/// each other's streams between setting it and the gemm.
cublasHandle_t threadHandle(const CuBLAS &blas) {
  thread_local cublasHandle_t handle = [&] {
    cublasHandle_t created = nullptr;
    checkBLAS(blas, "cublasCreate_v2", blas.create(&created));
    return created;
  }();
  return handle;
}

/// One operand as cuBLAS reads it. cuBLAS is column-major: a row-major
/// matrix is, to cuBLAS, its transpose with the same leading dimension (and
/// a column-major one is itself, read with CUBLAS_OP_T to transpose it), so
/// the runtime asks cuBLAS for C^T = B^T A^T.
struct BLASOperand {
  cublasOperation_t op;
  int ld;
};

int toInt(int64_t value, const char *what) {
  if (value < 0 || value > INT_MAX)
    failRuntime("a matmul is too large for cuBLAS's int sizes: ", what);
  return static_cast<int>(value);
}

BLASOperand blasOperand(int64_t rows, int64_t cols, const int64_t *strides,
                        const char *name) {
  trace::runtime::GemmLayout layout;
  if (!trace::runtime::gemmLayout(rows, cols, strides[0], strides[1], layout))
    failRuntime("cuBLAS cannot read the strides of matmul operand ", name);
  return {layout.columnMajor ? CUBLAS_OP_T : CUBLAS_OP_N,
          toInt(layout.ld, "leading dimension")};
}

template <typename T> struct GemmCall;
template <> struct GemmCall<float> {
  static auto single(const CuBLAS &b) { return b.sgemm; }
  static auto batched(const CuBLAS &b) { return b.sgemmBatched; }
};
template <> struct GemmCall<double> {
  static auto single(const CuBLAS &b) { return b.dgemm; }
  static auto batched(const CuBLAS &b) { return b.dgemmBatched; }
};

/// Queues C[i] = A[i] B[i] + beta C[i] for `batch` matrices on `stream`,
/// each operand's `batchA` / `batchB` / `batchC` elements apart (one
/// matrix: batch 1), and returns without waiting. With beta 0, C is not
/// read.
template <typename T>
void gemm(int64_t batch, int64_t m, int64_t n, int64_t k, const T *a,
          const int64_t *sa, int64_t batchA, const T *b, const int64_t *sb,
          int64_t batchB, T beta, T *c, const int64_t *sc, int64_t batchC,
          void *stream) {
  useContext();
  if (batch == 0 || m == 0 || n == 0)
    return;
  // With k = 0, A and B have no elements and their strides may be
  // anything; cuBLAS then only scales C by beta.
  // (Leading dimensions as cuBLAS checks them for its k x m and n x k.)
  BLASOperand la = k == 0 ? BLASOperand{CUBLAS_OP_N, 1}
                          : blasOperand(m, k, sa, "A");
  BLASOperand lb = k == 0 ? BLASOperand{CUBLAS_OP_N, toInt(n, "n")}
                          : blasOperand(k, n, sb, "B");
  BLASOperand lc = blasOperand(m, n, sc, "C");
  if (lc.op != CUBLAS_OP_N)
    failRuntime("cuBLAS cannot write a column-major matmul result", "");
  const CuBLAS &blas = cublas();
  cublasHandle_t handle = threadHandle(blas);
  checkBLAS(blas, "cublasSetStream_v2",
            blas.setStream(handle, asStream(stream)));
  const T one = 1;
  int in = toInt(n, "n"), im = toInt(m, "m"), ik = toInt(k, "k");
  if (batch == 1)
    checkBLAS(blas, "cublas?gemm",
              GemmCall<T>::single(blas)(handle, lb.op, la.op, in, im, ik,
                                        &one, b, lb.ld, a, la.ld, &beta, c,
                                        lc.ld));
  else
    checkBLAS(blas, "cublas?gemmStridedBatched",
              GemmCall<T>::batched(blas)(
                  handle, lb.op, la.op, in, im, ik, &one, b, lb.ld,
                  batchB, a, la.ld, batchA, &beta, c, lc.ld, batchC,
                  toInt(batch, "batch")));
}

template <typename T>
void matmul2d(StridedMemRefType<T, 2> *a, StridedMemRefType<T, 2> *b,
              StridedMemRefType<T, 2> *c, T beta, void *stream) {
  gemm<T>(1, c->sizes[0], c->sizes[1], a->sizes[1], a->data + a->offset,
          a->strides, 0, b->data + b->offset, b->strides, 0, beta,
          c->data + c->offset, c->strides, 0, stream);
}

template <typename T>
void batchMatmul(StridedMemRefType<T, 3> *a, StridedMemRefType<T, 3> *b,
                 StridedMemRefType<T, 3> *c, T beta, void *stream) {
  gemm<T>(c->sizes[0], c->sizes[1], c->sizes[2], a->sizes[2],
          a->data + a->offset, a->strides + 1, a->strides[0],
          b->data + b->offset, b->strides + 1, b->strides[0], beta,
          c->data + c->offset, c->strides + 1, c->strides[0], stream);
}

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

/// A blocking stream: its work is ordered after earlier work on the legacy
/// default stream and before later work there. That orders the kernels and
/// gemms after a caller's (PyTorch's default stream is the legacy one, so
/// inputs it just computed are ready) without a host synchronization.
void *mgpuStreamCreate() {
  useContext();
  if (callerStream)
    return callerStream;
  CUstream stream = nullptr;
  CHECK(cuStreamCreate(&stream, CU_STREAM_DEFAULT));
  return stream;
}

void mgpuStreamDestroy(void *stream) {
  useContext();
  if (stream && asStream(stream) == callerStream)
    return; // the caller's
  CHECK(cuStreamDestroy(asStream(stream)));
}

void trace_rt_cuda_use_stream(void *stream) {
  callerStream = asStream(stream);
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

void *trace_rt_cuda_alloc(uint64_t bytes) {
  return mgpuMemAlloc(bytes, callerStream, /*hostShared=*/0);
}

void trace_rt_cuda_free(void *pointer) {
  // On the legacy default stream, not the caller's: a saved value that never
  // reached the backward is freed when its graph dies, on whichever thread,
  // and the stream named last may be gone by then. The forward that wrote
  // it synchronized before returning, so no work on any stream reads it.
  mgpuMemFree(pointer, nullptr);
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

void trace_cuda_matmul_f32(StridedMemRefType<float, 2> *a,
                           StridedMemRefType<float, 2> *b,
                           StridedMemRefType<float, 2> *c, float beta,
                           void *stream) {
  matmul2d(a, b, c, beta, stream);
}
void trace_cuda_matmul_f64(StridedMemRefType<double, 2> *a,
                           StridedMemRefType<double, 2> *b,
                           StridedMemRefType<double, 2> *c, double beta,
                           void *stream) {
  matmul2d(a, b, c, beta, stream);
}
void trace_cuda_batch_matmul_f32(StridedMemRefType<float, 3> *a,
                                 StridedMemRefType<float, 3> *b,
                                 StridedMemRefType<float, 3> *c, float beta,
                                 void *stream) {
  batchMatmul(a, b, c, beta, stream);
}
void trace_cuda_batch_matmul_f64(StridedMemRefType<double, 3> *a,
                                 StridedMemRefType<double, 3> *b,
                                 StridedMemRefType<double, 3> *c, double beta,
                                 void *stream) {
  batchMatmul(a, b, c, beta, stream);
}

} // extern "C"
