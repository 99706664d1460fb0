//===- stream_check.cpp - the caller's stream, trace_rt_cuda_use_stream ---===//
//
// With a caller's stream set, mgpuStreamCreate hands it out and
// mgpuStreamDestroy leaves it alive (the fake driver fails a synchronize
// of a destroyed stream, which the runtime turns into an abort); without
// one, each mgpuStreamCreate makes a stream of its own, which
// mgpuStreamDestroy destroys. The setting is per thread. Run by
// caller-stream.test with the fake libcuda.so.1; prints one line per check
// and exits 1 if one fails.
//
//===----------------------------------------------------------------------===//

#include "trace/Runtime/CUDARuntime.h"

#include <cuda.h>

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

  trace_rt_cuda_use_stream(nullptr);
  void *after = mgpuStreamCreate();
  check(after != caller, "after trace_rt_cuda_use_stream(NULL): its own again");
  mgpuStreamDestroy(after);
  cuStreamDestroy(caller);
  return failures ? 1 : 0;
}
