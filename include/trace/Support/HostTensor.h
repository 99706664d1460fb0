//===- HostTensor.h - tensors in host memory, .npy files --------*- C++ -*-===//
//
// The data trace-run moves between .npy files and compiled functions: a
// dense row-major buffer with a shape and one of the trace element types.
// NumPy has no bfloat16: bf16 tensors are read from and written to float32
// .npy files (rounding to nearest even on the way in, exact on the way out).
//
//===----------------------------------------------------------------------===//

#ifndef TRACE_SUPPORT_HOSTTENSOR_H
#define TRACE_SUPPORT_HOSTTENSOR_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mlir {
class Type;
} // namespace mlir

namespace mlir::trace {

enum class DType { F32, F64, F16, BF16, I1, I32, I64 };

/// Bytes per element (i1 is stored as one byte, like NumPy's bool).
int64_t dtypeSize(DType dtype);
/// "f32", "bf16", "i1", ...
llvm::StringRef dtypeName(DType dtype);
/// The DType of an MLIR element type, if it is one of the trace types.
std::optional<DType> dtypeFromType(Type type);

struct HostTensor {
  DType dtype = DType::F32;
  std::vector<int64_t> shape;
  /// numel() * dtypeSize(dtype) bytes, row-major, little-endian.
  std::vector<uint8_t> data;

  HostTensor() = default;
  HostTensor(DType dtype, llvm::ArrayRef<int64_t> shape);

  int64_t numel() const;
  /// Element `i` (row-major) widened to double.
  double getAsDouble(int64_t i) const;
  /// Stores `value` into element `i`, rounding to the element type.
  void setFromDouble(int64_t i, double value);
  /// "2x3xf32", "f32" for rank 0.
  std::string typeString() const;
};

/// Reads a .npy file (format versions 1-3, C order, little-endian). A bf16
/// destination is not a NumPy dtype: pass `wantBF16` to read float32 data
/// into bf16.
llvm::Expected<HostTensor> readNpy(llvm::StringRef path, bool wantBF16 = false);

/// Writes a .npy file (bf16 as float32) through a temporary file renamed
/// into place, so a failure never leaves half a file.
llvm::Error writeNpy(llvm::StringRef path, const HostTensor &tensor);

} // namespace mlir::trace

#endif // TRACE_SUPPORT_HOSTTENSOR_H
