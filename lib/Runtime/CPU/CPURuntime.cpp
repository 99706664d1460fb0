//===- CPURuntime.cpp - CPU runtime: BLAS matmuls ---------------------------===//
//
// Matmuls call OpenBLAS (Debian's libopenblas) instead of MLIR-generated
// loops: a tuned gemm is an order of magnitude faster than scalar loops,
// and matmuls are most of a transformer's time. Operands may be row-major
// or column-major views (a transposed weight); layouts gemm cannot express
// fall back to a plain triple loop, which is correct for any strides. The
// arena's page calls are in Pages.cpp, an object of their own, so that a
// program linking the static runtime without BLAS calls needs no OpenBLAS.
//
// OpenBLAS is loaded by the runtime as the runtime loads, rather than
// linked: it picks its kernels for the CPU when it loads, and bookworm's
// OpenBLAS 0.3.21 does not know CPUs newer than itself (Sapphire and
// Emerald Rapids among them), on which it falls back to its Pentium 4
// kernels, several times slower. Before loading it, the runtime names the
// kernel family the CPU's features allow (OPENBLAS_CORETYPE, as PyTorch
// picks its own kernels by the CPU's features), also on CPUs OpenBLAS
// knows, where that family is the one it would pick or wider; a user's
// OPENBLAS_CORETYPE wins. The variable is set only while OpenBLAS loads,
// in the runtime's constructor: setenv is not safe beside other threads'
// getenv, and a library's load is the narrowest window there is.
//
//
// Threads: the compiled kernels run on LLVM's OpenMP runtime (libomp), and
// so do the matmuls, on the same team: a matmul splits its output into one
// block of rows (or columns, or batches) per thread, and each thread calls
// a one-thread gemm on its block. OpenBLAS's own threads are turned off.
// One team means no second pool spinning beside it between kernels and
// gemms, and a thread count set in one place (OMP_NUM_THREADS, or
// trace_rt_set_num_threads). The runtime is compiled with GCC's -fopenmp
// and linked against libomp, which implements GCC's entry points.
//
//===----------------------------------------------------------------------===//

#include "trace/Runtime/CPURuntime.h"
#include "trace/Runtime/GemmLayout.h"

#include <algorithm>
#include <cblas.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <dlfcn.h>
#include <omp.h>

namespace {

/// OpenBLAS's name for the widest kernel family this CPU runs, or null
/// where OpenBLAS's own choice stands.
const char *coreTypeForThisCPU() {
#if defined(__x86_64__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
      __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl"))
    return "SkylakeX";
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
    return "Haswell";
#endif
  return nullptr;
}

/// OpenBLAS's entry points, loaded once; null if it cannot be loaded (the
/// matmuls then run as plain loops, and say so once on stderr).
struct Blas {
  decltype(&cblas_sgemm) sgemm = nullptr;
  decltype(&cblas_dgemm) dgemm = nullptr;
  char *(*corename)() = nullptr;
  void (*setNumThreads)(int) = nullptr;
};

const Blas &blas() {
  static const Blas loaded = [] {
    Blas b;
    // Set only while OpenBLAS loads, so that another BLAS the process
    // loads later makes its own choice.
    const char *core = getenv("OPENBLAS_CORETYPE") ? nullptr
                                                   : coreTypeForThisCPU();
    if (core)
      setenv("OPENBLAS_CORETYPE", core, /*overwrite=*/0);
    // The OpenBLAS the runtime was built against, else the system's.
    void *handle = dlopen(TRACE_OPENBLAS_PATH, RTLD_NOW | RTLD_LOCAL);
    if (!handle)
      handle = dlopen("libopenblas.so.0", RTLD_NOW | RTLD_LOCAL);
    if (core)
      unsetenv("OPENBLAS_CORETYPE");
    if (!handle) {
      fprintf(stderr,
              "trace runtime: cannot load OpenBLAS (%s, libopenblas.so.0: "
              "%s); matmuls run as plain loops, many times slower\n",
              TRACE_OPENBLAS_PATH, dlerror());
      return b;
    }
    b.sgemm = reinterpret_cast<decltype(b.sgemm)>(dlsym(handle, "cblas_sgemm"));
    b.dgemm = reinterpret_cast<decltype(b.dgemm)>(dlsym(handle, "cblas_dgemm"));
    b.corename = reinterpret_cast<decltype(b.corename)>(
        dlsym(handle, "openblas_get_corename"));
    // The matmuls are split over the runtime's OpenMP team instead.
    b.setNumThreads = reinterpret_cast<decltype(b.setNumThreads)>(
        dlsym(handle, "openblas_set_num_threads"));
    if (b.setNumThreads)
      b.setNumThreads(1);
    return b;
  }();
  return loaded;
}

/// Loads OpenBLAS as the runtime loads (see the file comment), and starts
/// the OpenMP runtime with its threads going to sleep a millisecond after
/// their last parallel region, not libomp's 200: between steps the
/// process runs PyTorch's own threads (the optimizer, the data), which a
/// team spinning on every core would slow. Kernels and matmuls follow one
/// another closer than that. A user's KMP_BLOCKTIME wins; the variable is
/// set only while libomp reads its settings.
__attribute__((constructor)) void loadRuntimes() {
  (void)blas();
  bool set = !getenv("KMP_BLOCKTIME");
  if (set)
    setenv("KMP_BLOCKTIME", "1", /*overwrite=*/0);
  (void)omp_get_max_threads();
  if (set)
    unsetenv("KMP_BLOCKTIME");
}

template <typename T> struct Gemm;
template <> struct Gemm<float> {
  static bool available() { return blas().sgemm != nullptr; }
  static void run(CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, int64_t m, int64_t n,
                  int64_t k, const float *a, int64_t lda, const float *b,
                  int64_t ldb, float beta, float *c, int64_t ldc) {
    blas().sgemm(CblasRowMajor, ta, tb, m, n, k, 1.0f, a, lda, b, ldb, beta, c,
                 ldc);
  }
};
template <> struct Gemm<double> {
  static bool available() { return blas().dgemm != nullptr; }
  static void run(CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, int64_t m, int64_t n,
                  int64_t k, const double *a, int64_t lda, const double *b,
                  int64_t ldb, double beta, double *c, int64_t ldc) {
    blas().dgemm(CblasRowMajor, ta, tb, m, n, k, 1.0, a, lda, b, ldb, beta, c,
                 ldc);
  }
};

/// How one matmul runs: gemm with these layouts, or the plain loop.
/// Decided once on the whole matrices, so that every block of a split
/// matmul runs the same way (a block of one row could pass for either
/// layout).
struct Plan {
  bool gemm = false;
  trace::runtime::GemmLayout la, lb, lc;
};

template <typename T>
Plan plan(int64_t m, int64_t n, int64_t k, const int64_t *sa,
          const int64_t *sb, const int64_t *sc) {
  using trace::runtime::gemmLayout;
  Plan p;
  p.gemm = k > 0 && Gemm<T>::available() &&
           gemmLayout(m, k, sa[0], sa[1], p.la) &&
           gemmLayout(k, n, sb[0], sb[1], p.lb) &&
           gemmLayout(m, n, sc[0], sc[1], p.lc) && !p.lc.columnMajor;
  return p;
}

/// C = A B + beta C on one matrix (or a block of its rows or columns),
/// given base pointers and strides, the way `how` says. With beta 0, C is
/// not read (it may hold anything, NaN included).
template <typename T>
void matmul(const Plan &how, int64_t m, int64_t n, int64_t k, const T *a,
            const int64_t *sa, const T *b, const int64_t *sb, T beta, T *c,
            const int64_t *sc) {
  if (m == 0 || n == 0)
    return;
  if (how.gemm) {
    auto trans = [](const trace::runtime::GemmLayout &layout) {
      return layout.columnMajor ? CblasTrans : CblasNoTrans;
    };
    Gemm<T>::run(trans(how.la), trans(how.lb), m, n, k, a, how.la.ld, b,
                 how.lb.ld, beta, c, how.lc.ld);
    return;
  }
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      T &out = c[i * sc[0] + j * sc[1]];
      T sum = beta == T(0) ? T(0) : beta * out;
      for (int64_t p = 0; p < k; ++p)
        sum += a[i * sa[0] + p * sa[1]] * b[p * sb[0] + j * sb[1]];
      out = sum;
    }
}

/// Multiply-adds a thread is given at least: below that, waking another
/// thread costs more than it saves.
constexpr int64_t kMinWorkPerThread = int64_t(1) << 18;

/// How many of the team's threads `work` multiply-adds, split into at most
/// `parts` pieces, should use: one inside a parallel region already.
int teamFor(int64_t work, int64_t parts) {
  if (omp_in_parallel())
    return 1;
  int64_t threads = std::min<int64_t>(omp_get_max_threads(), parts);
  threads = std::min<int64_t>(threads, work / kMinWorkPerThread);
  return static_cast<int>(std::max<int64_t>(threads, 1));
}

/// [begin, end) of `part` of `parts` near-equal pieces of `size`, each a
/// multiple of `align` but the last.
std::pair<int64_t, int64_t> piece(int64_t size, int part, int parts,
                                  int64_t align) {
  int64_t blocks = (size + align - 1) / align;
  int64_t begin = blocks * part / parts * align,
          end = blocks * (part + 1) / parts * align;
  return {std::min(begin, size), std::min(end, size)};
}

/// Runs `body(begin, end)` over [0, size) on `threads` threads, each a
/// near-equal piece that is a multiple of `align` but the last; on the
/// calling thread alone when `threads` is 1.
template <typename Body>
void onTeam(int threads, int64_t size, int64_t align, const Body &body) {
  if (threads == 1) {
    body(int64_t(0), size);
    return;
  }
#pragma omp parallel num_threads(threads)
  {
    auto [begin, end] =
        piece(size, omp_get_thread_num(), omp_get_num_threads(), align);
    body(begin, end);
  }
}

/// matmul on the team: each thread computes a block of C's rows, or of
/// its columns when C is wider than tall, with the gemm call the whole
/// matrix would get on its block. OpenBLAS may still round a block
/// differently from the whole matrix where it picks another kernel for
/// the smaller shape (its small-matrix kernels on AVX-512), so a split
/// matmul matches one thread's to rounding, not always bitwise.
template <typename T>
void matmul2d(StridedMemRefType<T, 2> *a, StridedMemRefType<T, 2> *b,
              StridedMemRefType<T, 2> *c, T beta) {
  int64_t m = c->sizes[0], n = c->sizes[1], k = a->sizes[1];
  const T *pa = a->data + a->offset, *pb = b->data + b->offset;
  T *pc = c->data + c->offset;
  bool rows = m >= n;
  // Blocks of whole register tiles of the gemm's kernels.
  constexpr int64_t align = 16;
  Plan how = plan<T>(m, n, k, a->strides, b->strides, c->strides);
  int threads = teamFor(m * n * std::max<int64_t>(k, 1),
                        ((rows ? m : n) + align - 1) / align);
  onTeam(threads, rows ? m : n, align, [&](int64_t begin, int64_t end) {
    if (rows)
      matmul<T>(how, end - begin, n, k, pa + begin * a->strides[0],
                a->strides, pb, b->strides, beta, pc + begin * c->strides[0],
                c->strides);
    else
      matmul<T>(how, m, end - begin, k, pa, a->strides,
                pb + begin * b->strides[1], b->strides, beta,
                pc + begin * c->strides[1], c->strides);
  });
}

/// Each thread takes whole matrices of the batch.
template <typename T>
void batchMatmul(StridedMemRefType<T, 3> *a, StridedMemRefType<T, 3> *b,
                 StridedMemRefType<T, 3> *c, T beta) {
  int64_t batches = c->sizes[0];
  int threads = teamFor(batches * c->sizes[1] * c->sizes[2] *
                            std::max<int64_t>(a->sizes[2], 1),
                        batches);
  Plan how = plan<T>(c->sizes[1], c->sizes[2], a->sizes[2], a->strides + 1,
                     b->strides + 1, c->strides + 1);
  onTeam(threads, batches, 1, [&](int64_t begin, int64_t end) {
    for (int64_t batch = begin; batch < end; ++batch)
      matmul<T>(how, c->sizes[1], c->sizes[2], a->sizes[2],
                a->data + a->offset + batch * a->strides[0], a->strides + 1,
                b->data + b->offset + batch * b->strides[0], b->strides + 1,
                beta, c->data + c->offset + batch * c->strides[0],
                c->strides + 1);
  });
}

} // namespace

extern "C" {

void _mlir_ciface_trace_rt_matmul_f32(StridedMemRefType<float, 2> *a,
                                      StridedMemRefType<float, 2> *b,
                                      StridedMemRefType<float, 2> *c,
                                      float beta) {
  matmul2d(a, b, c, beta);
}
void _mlir_ciface_trace_rt_matmul_f64(StridedMemRefType<double, 2> *a,
                                      StridedMemRefType<double, 2> *b,
                                      StridedMemRefType<double, 2> *c,
                                      double beta) {
  matmul2d(a, b, c, beta);
}
void _mlir_ciface_trace_rt_batch_matmul_f32(StridedMemRefType<float, 3> *a,
                                            StridedMemRefType<float, 3> *b,
                                            StridedMemRefType<float, 3> *c,
                                            float beta) {
  batchMatmul(a, b, c, beta);
}
void _mlir_ciface_trace_rt_batch_matmul_f64(StridedMemRefType<double, 3> *a,
                                            StridedMemRefType<double, 3> *b,
                                            StridedMemRefType<double, 3> *c,
                                            double beta) {
  batchMatmul(a, b, c, beta);
}

const char *trace_rt_blas_corename() {
  return blas().corename ? blas().corename() : "none";
}

void trace_rt_set_num_threads(int threads) {
  omp_set_num_threads(threads < 1 ? 1 : threads);
}

int trace_rt_num_threads() { return omp_get_max_threads(); }

int traceRuntimeAbiVersion() { return 4; }
}
