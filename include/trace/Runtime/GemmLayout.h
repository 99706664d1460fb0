//===- GemmLayout.h - how a BLAS gemm reads a strided matrix ----*- C++ -*-===//
//
// One rule for both runtimes (OpenBLAS on the CPU, cuBLAS on the GPU): a
// rows x cols matrix with the given element strides is either row-major with
// a leading dimension, or column-major (the transpose of a row-major one),
// or something gemm cannot read. A dim of size 1 has an arbitrary stride, so
// it is treated as whatever fits.
//
//===----------------------------------------------------------------------===//

#ifndef TRACE_RUNTIME_GEMMLAYOUT_H
#define TRACE_RUNTIME_GEMMLAYOUT_H

#include <algorithm>
#include <cstdint>

namespace trace::runtime {

struct GemmLayout {
  /// Row-major storage (false) or column-major storage (true): element
  /// (i, j) at i * ld + j, or at j * ld + i.
  bool columnMajor = false;
  int64_t ld = 0;
};

/// The layout of a rows x cols matrix with these strides, or false if gemm
/// cannot read it (the caller falls back to a loop, or fails).
inline bool gemmLayout(int64_t rows, int64_t cols, int64_t rowStride,
                       int64_t colStride, GemmLayout &layout) {
  if (cols == 1 || colStride == 1) {
    int64_t ld = rows <= 1 ? std::max<int64_t>(cols, 1) : rowStride;
    if (ld >= std::max<int64_t>(cols, 1)) {
      layout = {false, ld};
      return true;
    }
  }
  if (rows == 1 || rowStride == 1) {
    int64_t ld = cols <= 1 ? std::max<int64_t>(rows, 1) : colStride;
    if (ld >= std::max<int64_t>(rows, 1)) {
      layout = {true, ld};
      return true;
    }
  }
  return false;
}

} // namespace trace::runtime

#endif // TRACE_RUNTIME_GEMMLAYOUT_H
