//===- stream_check.cpp - the caller's stream, trace_rt_cuda_use_stream ---===//
//
// With a caller's stream set, mgpuStreamCreate hands it out and
// mgpuStreamDestroy leaves it alive (the fake driver fails a synchronize
// of a destroyed stream, which the runtime turns into an abort); without
// one, each mgpuStreamCreate makes a stream of its own, which
// mgpuStreamDestroy destroys. The setting is per thread. The device's
// memory pool keeps what is freed (its release threshold). The saved values
// of a compiled step are allocated on the caller's stream, else on the
// legacy default stream (trace_rt_cuda_alloc), and released on the legacy
// default stream (trace_rt_cuda_free: the caller's may be gone by then);
// the fake driver records the stream of the last stream-ordered
// allocation or free. Run by
// caller-stream.test with the fake libcuda.so.1; prints one line per check
// and exits 1 if one fails.
//
//===----------------------------------------------------------------------===//

#include "trace/Runtime/CUDARuntime.h"

#include <cuda.h>

#include <dlfcn.h>

#include <cstdio>
#include <thread>

namespace {

int failures = 0;

void check(bool ok, const char *what) {
  std::printf("%s %s\n", ok ? "ok" : "FAIL", what);
  failures += !ok;
}

} // namespace

int main() {
  void *own = mgpuStreamCreate();
  check(own != nullptr, "without a caller's stream: a stream of its own");
  // The pool keeps what a call frees for the next one.
  auto *threshold = static_cast<cuuint64_t *>(
      dlsym(RTLD_DEFAULT, "fake_cuda_release_threshold"));
  check(threshold && *threshold == ~cuuint64_t(0),
        "the device's pool keeps freed memory (release threshold UINT64_MAX)");
  mgpuStreamDestroy(own);
  check(cuStreamSynchronize(static_cast<CUstream>(own)) != CUDA_SUCCESS,
        "which mgpuStreamDestroy destroys");

  CUstream caller = nullptr;
  cuStreamCreate(&caller, CU_STREAM_NON_BLOCKING);
  trace_rt_cuda_use_stream(caller);
  void *got = mgpuStreamCreate();
  check(got == caller, "with a caller's stream: mgpuStreamCreate returns it");
  mgpuStreamDestroy(got);
  mgpuStreamSynchronize(got); // aborts if it was destroyed
  check(cuStreamSynchronize(caller) == CUDA_SUCCESS,
        "mgpuStreamDestroy leaves it alive");

  void *other = nullptr;
  std::thread([&] { other = mgpuStreamCreate(); }).join();
  check(other != nullptr && other != caller,
        "another thread gets a stream of its own");
  mgpuStreamDestroy(other);

  // The fake driver's record of the last stream-ordered allocation's or
  // free's stream.
  auto *lastStream = static_cast<CUstream *>(
      dlsym(RTLD_DEFAULT, "fake_cuda_last_memory_stream"));
  if (!lastStream) {
    std::printf("FAIL the fake driver has no fake_cuda_last_memory_stream\n");
    return 1;
  }
  void *saved = trace_rt_cuda_alloc(64);
  check(saved != nullptr && *lastStream == caller,
        "trace_rt_cuda_alloc: on the caller's stream");
  *lastStream = reinterpret_cast<CUstream>(1);
  trace_rt_cuda_free(saved);
  check(*lastStream == nullptr,
        "trace_rt_cuda_free: on the legacy default stream, not the caller's");
  check(trace_rt_cuda_alloc(0) == nullptr,
        "trace_rt_cuda_alloc(0): a null pointer");
  *lastStream = reinterpret_cast<CUstream>(1);
  trace_rt_cuda_free(nullptr);
  check(*lastStream == reinterpret_cast<CUstream>(1),
        "trace_rt_cuda_free(NULL): nothing");

  trace_rt_cuda_use_stream(nullptr);
  saved = trace_rt_cuda_alloc(64);
  check(saved != nullptr && *lastStream == nullptr,
        "without one: trace_rt_cuda_alloc on the legacy default stream");
  *lastStream = reinterpret_cast<CUstream>(1);
  trace_rt_cuda_free(saved);
  check(*lastStream == nullptr,
        "and trace_rt_cuda_free on it too");

  void *after = mgpuStreamCreate();
  check(after != caller, "after trace_rt_cuda_use_stream(NULL): its own again");
  mgpuStreamDestroy(after);
  cuStreamDestroy(caller);
  return failures ? 1 : 0;
}
