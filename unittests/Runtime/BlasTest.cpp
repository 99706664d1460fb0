//===- BlasTest.cpp - the CPU runtime's matmuls and its OpenBLAS ----------===//
//
// The runtime loads OpenBLAS on the first matmul, naming the kernel family
// the CPU's features allow unless the user named one: on an AVX2 or
// AVX-512 machine the matmuls never run OpenBLAS's Pentium 4 kernels (its
// fallback for CPUs it does not know), and the environment is left as it
// was. The matmuls give the exact product, through gemm and through the
// plain loop (a layout gemm cannot take).
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
      __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl"))
    EXPECT_EQ(core, "SkylakeX");
  else if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
    EXPECT_EQ(core, "Haswell");
#endif
}

/// An m x n memref over `data` with strides (s0, s1).
StridedMemRefType<double, 2> view(std::vector<double> &data, int64_t m,
                                  int64_t n, int64_t s0, int64_t s1) {
  StridedMemRefType<double, 2> d;
  d.basePtr = d.data = data.data();
  d.offset = 0;
  d.sizes[0] = m;
  d.sizes[1] = n;
  d.strides[0] = s0;
  d.strides[1] = s1;
  return d;
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

} // namespace
