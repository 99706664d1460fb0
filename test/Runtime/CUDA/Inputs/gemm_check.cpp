//===- gemm_check.cpp - the CUDA runtime's matmuls against a loop ---------===//
//
// Calls the runtime's trace_cuda_*matmul_* entry points with the views
// trace_gpu.gemm passes them (row-major, transposed, padded leading dims,
// offsets, unit dims, batches, f32 and f64) and compares C with A B +
// beta C0 from a plain loop in double; with beta 0, C0 is NaN, which must
// not reach the result. Each call passes a stream of its own, which the
// gemm must have been queued on. Run by cublas-gemm.test with a
// fake libcuda.so.1 and libcublas.so.13 on host memory, so "device"
// pointers are host pointers; on a GPU machine the same entry points run
// in test/Integration/GPU. Prints one line per case; exits 1 on a mismatch.
//
//===----------------------------------------------------------------------===//

#include "trace/Runtime/CUDABlas.h"

#include <dlfcn.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>

namespace {

std::mt19937 rng(7);

/// A rank-N view of its own storage (host memory, as the fake driver's
/// device memory is).
template <typename T, int N> struct View {
  std::vector<T> storage;
  StridedMemRefType<T, N> desc{};

  View(std::vector<int64_t> sizes, std::vector<int64_t> strides,
       int64_t offset) {
    int64_t extent = offset + 1;
    for (int i = 0; i < N; ++i)
      extent += (sizes[i] - 1) * strides[i];
    storage.resize(std::max<int64_t>(extent, 1));
    std::uniform_real_distribution<double> uniform(-1, 1);
    for (T &value : storage)
      value = T(uniform(rng));
    desc.basePtr = desc.data = storage.data();
    desc.offset = offset;
    for (int i = 0; i < N; ++i) {
      desc.sizes[i] = sizes[i];
      desc.strides[i] = strides[i];
    }
  }
  T &at(int64_t batch, int64_t row, int64_t col) {
    int64_t index = desc.offset;
    if (N == 3)
      index += batch * desc.strides[0];
    index += row * desc.strides[N - 2] + col * desc.strides[N - 1];
    return storage[index];
  }
};

/// Strides of a rows x cols matrix: row-major with leading dim `ld`, or
/// column-major (a transposed view) with leading dim `ld`.
std::vector<int64_t> strides2(bool columnMajor, int64_t ld) {
  return columnMajor ? std::vector<int64_t>{1, ld}
                     : std::vector<int64_t>{ld, 1};
}

int failures = 0;

template <typename T, int N>
using Entry = void (*)(StridedMemRefType<T, N> *, StridedMemRefType<T, N> *,
                       StridedMemRefType<T, N> *, T, void *);

/// The stream the fake cuBLAS last queued a gemm on, if it is loaded.
void *lastGemmStream() {
  static auto query = [] {
    void *fake = dlopen("libcublas.so.13", RTLD_NOW | RTLD_NOLOAD);
    return fake ? reinterpret_cast<void *(*)()>(
                      dlsym(fake, "fakeCublasLastGemmStream"))
                : nullptr;
  }();
  return query ? query() : nullptr;
}

template <typename T, int N>
void check(const char *name, View<T, N> &a, View<T, N> &b, View<T, N> &c,
           T beta, Entry<T, N> call) {
  int64_t batches = N == 3 ? c.desc.sizes[0] : 1;
  int64_t m = c.desc.sizes[N - 2], n = c.desc.sizes[N - 1],
          k = a.desc.sizes[N - 1];
  if (beta == T(0))
    for (int64_t s = 0; s < batches; ++s)
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j)
          c.at(s, i, j) = NAN;
  std::vector<double> expected;
  for (int64_t s = 0; s < batches; ++s)
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double sum = beta == T(0) ? 0.0 : double(c.at(s, i, j));
        for (int64_t p = 0; p < k; ++p)
          sum += double(a.at(s, i, p)) * b.at(s, p, j);
        expected.push_back(sum);
      }
  // Storage outside C's view must not change.
  std::vector<T> before = c.storage;
  // A distinct fake stream per call (never dereferenced by the fakes).
  static uintptr_t streams = 0x5000;
  void *stream = reinterpret_cast<void *>(streams += 0x10);
  call(&a.desc, &b.desc, &c.desc, beta, stream);
  bool onStream = lastGemmStream() == stream;
  double worst = 0;
  size_t index = 0;
  std::vector<bool> inView(c.storage.size(), false);
  for (int64_t s = 0; s < batches; ++s)
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        T &got = c.at(s, i, j);
        inView[&got - c.storage.data()] = true;
        double error = std::fabs(double(got) - expected[index++]);
        worst = std::isnan(error) ? INFINITY : std::max(worst, error);
      }
  for (size_t i = 0; i < c.storage.size(); ++i)
    if (!inView[i] && c.storage[i] != before[i])
      worst = INFINITY;
  double tolerance = sizeof(T) == 4 ? 1e-5 : 1e-12;
  bool ok = worst <= tolerance * std::max<int64_t>(k, 1) && onStream;
  failures += !ok;
  std::printf("%s %s, beta %g: max |C - loop| %.1e, %s\n", ok ? "ok" : "FAIL",
              name, double(beta), worst,
              onStream ? "on the caller's stream" : "on another stream");
}

/// Each case runs with beta 1 (accumulate) and beta 0 (overwrite).
template <typename T>
void matmul(const char *name, int64_t m, int64_t n, int64_t k, bool ta,
            bool tb, int64_t pad, int64_t offset, Entry<T, 2> call) {
  for (T beta : {T(1), T(0)}) {
    View<T, 2> a({m, k}, strides2(ta, (ta ? m : k) + pad), offset);
    View<T, 2> b({k, n}, strides2(tb, (tb ? k : n) + pad), offset);
    View<T, 2> c({m, n}, strides2(false, n + pad), offset);
    check(name, a, b, c, beta, call);
  }
}

template <typename T>
void batchMatmul(const char *name, int64_t batch, int64_t m, int64_t n,
                 int64_t k, bool ta, bool tb, int64_t pad, Entry<T, 3> call) {
  auto strides3 = [&](int64_t rows, int64_t cols, bool columnMajor) {
    int64_t ld = (columnMajor ? rows : cols) + pad;
    std::vector<int64_t> inner = strides2(columnMajor, ld);
    int64_t matrix = ld * (columnMajor ? cols : rows) + pad;
    return std::vector<int64_t>{matrix, inner[0], inner[1]};
  };
  for (T beta : {T(1), T(0)}) {
    View<T, 3> a({batch, m, k}, strides3(m, k, ta), 1);
    View<T, 3> b({batch, k, n}, strides3(k, n, tb), 2);
    View<T, 3> c({batch, m, n}, strides3(m, n, false), 3);
    check(name, a, b, c, beta, call);
  }
}

} // namespace

int main() {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  auto mm32 = trace_cuda_matmul_f32;
  auto mm64 = trace_cuda_matmul_f64;
  auto bmm32 = trace_cuda_batch_matmul_f32;
  auto bmm64 = trace_cuda_batch_matmul_f64;
  matmul<float>("f32 5x7x3 row-major", 5, 7, 3, false, false, 0, 0, mm32);
  matmul<float>("f32 A transposed", 6, 4, 9, true, false, 0, 0, mm32);
  matmul<float>("f32 B transposed", 6, 4, 9, false, true, 0, 0, mm32);
  matmul<float>("f32 both transposed", 3, 8, 5, true, true, 0, 0, mm32);
  matmul<float>("f32 padded, offset", 7, 5, 6, false, true, 3, 11, mm32);
  matmul<float>("f32 n=1", 9, 1, 4, false, false, 0, 0, mm32);
  matmul<float>("f32 m=1", 1, 9, 4, false, true, 0, 0, mm32);
  matmul<float>("f32 k=1", 4, 5, 1, true, false, 0, 0, mm32);
  matmul<float>("f32 k=0", 4, 5, 0, false, false, 0, 0, mm32);
  matmul<float>("f32 48x72x40", 48, 72, 40, false, true, 0, 0, mm32);
  matmul<double>("f64 A transposed, padded", 8, 3, 5, true, false, 2, 1,
                 mm64);
  batchMatmul<float>("f32 batch 3", 3, 4, 5, 6, false, false, 0, bmm32);
  batchMatmul<float>("f32 batch, B transposed, padded", 4, 6, 5, 3, false,
                     true, 2, bmm32);
  batchMatmul<double>("f64 batch, A transposed", 2, 5, 4, 3, true, false, 0,
                      bmm64);

  // The gemms ran in the cuBLAS the runtime loaded (the fake one here).
  if (void *fake = dlopen("libcublas.so.13", RTLD_NOW | RTLD_NOLOAD))
    if (auto calls = reinterpret_cast<long long (*)()>(
            dlsym(fake, "fakeCublasGemmCalls")))
      std::printf("fake cuBLAS gemms: %lld\n", calls());
  std::printf("%d failed\n", failures);
  return failures ? 1 : 0;
}
