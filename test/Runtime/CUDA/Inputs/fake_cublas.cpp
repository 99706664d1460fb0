//===- fake_cublas.cpp - a host-memory libcublas.so.13 for gemm tests -----===//
//
// The cuBLAS functions the CUDA runtime loads, on host memory, written from
// cuBLAS's documented contract alone (column-major storage, op(X) = X or
// X^T, C = alpha op(A) op(B) + beta C, leading dimensions checked as cuBLAS
// checks them), so that a runtime that maps row-major views onto it wrongly
// gets wrong numbers. It also records the stream each gemm was queued on.
// Built as libcublas.so.13 by cublas-gemm.test.
//
//===----------------------------------------------------------------------===//

#include <cublas_v2.h>

#include <algorithm>

struct cublasContext {};

namespace {
long long gemmCalls = 0;
/// The handle's stream (cublasSetStream_v2), and the one the last gemm ran
/// on: a runtime that forgets to set it leaves the previous call's.
cudaStream_t currentStream = nullptr;
cudaStream_t lastGemmStream = nullptr;

/// Element (row, col) of op(X), X column-major with leading dimension ld.
template <typename T>
T element(const T *x, cublasOperation_t op, int ld, long long row,
          long long col) {
  return op == CUBLAS_OP_N ? x[row + col * ld] : x[col + row * ld];
}

template <typename T>
cublasStatus_t gemm(cublasOperation_t ta, cublasOperation_t tb, int m, int n,
                    int k, const T *alpha, const T *a, int lda, const T *b,
                    int ldb, const T *beta, T *c, int ldc) {
  if (m < 0 || n < 0 || k < 0 || ldc < std::max(1, m) ||
      lda < std::max(1, ta == CUBLAS_OP_N ? m : k) ||
      ldb < std::max(1, tb == CUBLAS_OP_N ? k : n) ||
      (ta != CUBLAS_OP_N && ta != CUBLAS_OP_T) ||
      (tb != CUBLAS_OP_N && tb != CUBLAS_OP_T))
    return CUBLAS_STATUS_INVALID_VALUE;
  ++gemmCalls;
  lastGemmStream = currentStream;
  for (long long i = 0; i < m; ++i)
    for (long long j = 0; j < n; ++j) {
      double sum = 0;
      for (long long p = 0; p < k; ++p)
        sum += double(element(a, ta, lda, i, p)) * element(b, tb, ldb, p, j);
      // "If beta == 0, then C does not have to be a valid input."
      T &out = c[i + j * ldc];
      out = *beta == T(0) ? T(*alpha * sum) : T(*alpha * sum + *beta * out);
    }
  return CUBLAS_STATUS_SUCCESS;
}

template <typename T>
cublasStatus_t gemmBatched(cublasOperation_t ta, cublasOperation_t tb, int m,
                           int n, int k, const T *alpha, const T *a, int lda,
                           long long sa, const T *b, int ldb, long long sb,
                           const T *beta, T *c, int ldc, long long sc,
                           int batch) {
  for (int i = 0; i < batch; ++i)
    if (cublasStatus_t status = gemm(ta, tb, m, n, k, alpha, a + i * sa, lda,
                                     b + i * sb, ldb, beta, c + i * sc, ldc))
      return status;
  return CUBLAS_STATUS_SUCCESS;
}
} // namespace

extern "C" {

/// For the test driver: how many gemms ran here, and the stream the last
/// one was queued on.
long long fakeCublasGemmCalls() { return gemmCalls; }
cudaStream_t fakeCublasLastGemmStream() { return lastGemmStream; }

cublasStatus_t cublasSetStream_v2(cublasHandle_t, cudaStream_t stream) {
  currentStream = stream;
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasCreate_v2(cublasHandle_t *handle) {
  static cublasContext context;
  *handle = &context;
  return CUBLAS_STATUS_SUCCESS;
}
const char *cublasGetStatusString(cublasStatus_t status) {
  return status == CUBLAS_STATUS_INVALID_VALUE ? "CUBLAS_STATUS_INVALID_VALUE"
                                               : "fake cuBLAS status";
}
cublasStatus_t cublasSgemm_v2(cublasHandle_t, cublasOperation_t ta,
                              cublasOperation_t tb, int m, int n, int k,
                              const float *alpha, const float *a, int lda,
                              const float *b, int ldb, const float *beta,
                              float *c, int ldc) {
  return gemm(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}
cublasStatus_t cublasDgemm_v2(cublasHandle_t, cublasOperation_t ta,
                              cublasOperation_t tb, int m, int n, int k,
                              const double *alpha, const double *a, int lda,
                              const double *b, int ldb, const double *beta,
                              double *c, int ldc) {
  return gemm(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}
cublasStatus_t cublasSgemmStridedBatched(
    cublasHandle_t, cublasOperation_t ta, cublasOperation_t tb, int m, int n,
    int k, const float *alpha, const float *a, int lda, long long sa,
    const float *b, int ldb, long long sb, const float *beta, float *c,
    int ldc, long long sc, int batch) {
  return gemmBatched(ta, tb, m, n, k, alpha, a, lda, sa, b, ldb, sb, beta, c,
                     ldc, sc, batch);
}
cublasStatus_t cublasDgemmStridedBatched(
    cublasHandle_t, cublasOperation_t ta, cublasOperation_t tb, int m, int n,
    int k, const double *alpha, const double *a, int lda, long long sa,
    const double *b, int ldb, long long sb, const double *beta, double *c,
    int ldc, long long sc, int batch) {
  return gemmBatched(ta, tb, m, n, k, alpha, a, lda, sa, b, ldb, sb, beta, c,
                     ldc, sc, batch);
}

} // extern "C"
