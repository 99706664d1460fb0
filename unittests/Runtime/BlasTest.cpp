//===- BlasTest.cpp - the CPU runtime's matmuls and its OpenBLAS ----------===//
//
// The runtime loads OpenBLAS on the first matmul, naming the kernel family
// the CPU's features allow unless the user named one: on an AVX2 or
// AVX-512 machine the matmuls never run OpenBLAS's Pentium 4 kernels (its
// fallback for CPUs it does not know), and the environment is left as it
// was. The matmuls give the exact product, through gemm and through the
// plain loop (a layout gemm cannot take), and on a team of threads, each
// computing a block of rows, of columns or of the batch.
//
//===----------------------------------------------------------------------===//

#include "trace/Runtime/CPURuntime.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

namespace {

TEST(Blas, KernelsFitTheCPU) {
  const bool userChose = getenv("OPENBLAS_CORETYPE") != nullptr;
  std::string core = trace_rt_blas_corename();
  ASSERT_NE(core, "none") << "OpenBLAS did not load";
  EXPECT_EQ(getenv("OPENBLAS_CORETYPE") != nullptr, userChose)
      << "the runtime left OPENBLAS_CORETYPE changed";
  if (userChose)
    GTEST_SKIP() << "OPENBLAS_CORETYPE is set: OpenBLAS runs " << core;
#if defined(__x86_64__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
      __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl")) {
    EXPECT_EQ(core, "SkylakeX");
  } else if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
    EXPECT_EQ(core, "Haswell");
  }
#endif
}

/// A memref of `sizes` over `data` with `strides`.
template <int N>
StridedMemRefType<double, N> view(std::vector<double> &data,
                                  const int64_t (&sizes)[N],
                                  const int64_t (&strides)[N]) {
  StridedMemRefType<double, N> d;
  d.basePtr = d.data = data.data();
  d.offset = 0;
  for (int i = 0; i < N; ++i) {
    d.sizes[i] = sizes[i];
    d.strides[i] = strides[i];
  }
  return d;
}

/// An m x n memref over `data` with strides (s0, s1).
StridedMemRefType<double, 2> view(std::vector<double> &data, int64_t m,
                                  int64_t n, int64_t s0, int64_t s1) {
  return view<2>(data, {m, n}, {s0, s1});
}

TEST(Blas, MatmulIsTheExactProduct) {
  // Small integers: every product and sum is exact in double.
  const int64_t m = 3, k = 4, n = 5;
  std::vector<double> a(m * k), b(k * n), want(m * n, 0.0);
  for (int64_t i = 0; i < m * k; ++i)
    a[i] = double(i % 7) - 3;
  for (int64_t i = 0; i < k * n; ++i)
    b[i] = double(i % 5) - 2;
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j)
      for (int64_t p = 0; p < k; ++p)
        want[i * n + j] += a[i * k + p] * b[p * n + j];
  // Through gemm: row-major operands.
  std::vector<double> c(m * n, 1e300);
  auto va = view(a, m, k, k, 1), vb = view(b, k, n, n, 1),
       vc = view(c, m, n, n, 1);
  _mlir_ciface_trace_rt_matmul_f64(&va, &vb, &vc, 0.0);
  EXPECT_EQ(c, want);
  // Through the plain loop: B read with a stride of 2 along its rows,
  // which no gemm leading dimension expresses.
  std::vector<double> wide(k * n * 2, 0.0);
  for (int64_t p = 0; p < k; ++p)
    for (int64_t j = 0; j < n; ++j)
      wide[p * 2 * n + j * 2] = b[p * n + j];
  std::vector<double> c2(m * n, 1e300);
  auto vw = view(wide, k, n, 2 * n, 2), vc2 = view(c2, m, n, n, 1);
  _mlir_ciface_trace_rt_matmul_f64(&va, &vw, &vc2, 0.0);
  EXPECT_EQ(c2, want);
}

/// a (m x k) b (k x n), summed in order: exact for small integers.
std::vector<double> product(const std::vector<double> &a,
                            const std::vector<double> &b, int64_t m,
                            int64_t k, int64_t n) {
  std::vector<double> c(m * n, 0.0);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j)
      for (int64_t p = 0; p < k; ++p)
        c[i * n + j] += a[i * k + p] * b[p * n + j];
  return c;
}

std::vector<double> integers(int64_t size, int mod) {
  std::vector<double> v(size);
  for (int64_t i = 0; i < size; ++i)
    v[i] = double(i * 7 % mod) - mod / 2;
  return v;
}

TEST(Blas, MatmulSplitsOverTheTeam) {
  // Large enough for 3 threads (at least 2^18 multiply-adds each) and not
  // a multiple of the split's 16-row blocks; the blocks are rows when C is
  // taller, columns when it is wider.
  trace_rt_set_num_threads(3);
  ASSERT_EQ(trace_rt_num_threads(), 3);
  for (auto [m, n] : {std::pair<int64_t, int64_t>{301, 67}, {67, 301}}) {
    const int64_t k = 200;
    std::vector<double> a = integers(m * k, 9), b = integers(k * n, 5);
    std::vector<double> c(m * n, 1e300);
    auto va = view(a, m, k, k, 1), vb = view(b, k, n, n, 1),
         vc = view(c, m, n, n, 1);
    _mlir_ciface_trace_rt_matmul_f64(&va, &vb, &vc, 0.0);
    EXPECT_EQ(c, product(a, b, m, k, n)) << m << " x " << n;
    // beta 1 adds to what C holds.
    _mlir_ciface_trace_rt_matmul_f64(&va, &vb, &vc, 1.0);
    std::vector<double> twice = product(a, b, m, k, n);
    for (double &x : twice)
      x *= 2;
    EXPECT_EQ(c, twice) << m << " x " << n << ", beta 1";
  }
  // A batch of 5 over 3 threads: whole matrices each.
  const int64_t batch = 5, m = 64, k = 64, n = 64;
  std::vector<double> a = integers(batch * m * k, 9),
                      b = integers(batch * k * n, 5),
                      c(batch * m * n, 1e300);
  auto va = view<3>(a, {batch, m, k}, {m * k, k, 1}),
       vb = view<3>(b, {batch, k, n}, {k * n, n, 1}),
       vc = view<3>(c, {batch, m, n}, {m * n, n, 1});
  _mlir_ciface_trace_rt_batch_matmul_f64(&va, &vb, &vc, 0.0);
  for (int64_t i = 0; i < batch; ++i) {
    std::vector<double> ai(a.begin() + i * m * k, a.begin() + (i + 1) * m * k),
        bi(b.begin() + i * k * n, b.begin() + (i + 1) * k * n),
        ci(c.begin() + i * m * n, c.begin() + (i + 1) * m * n);
    EXPECT_EQ(ci, product(ai, bi, m, k, n)) << "batch " << i;
  }
  trace_rt_set_num_threads(1);
}

} // namespace
