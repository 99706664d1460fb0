//===- Detail.h - helpers shared by TensorBuilder's files -------*- C++ -*-===//
//
// Private to lib/Importer/TensorBuilder: the helpers that more than one of
// its files uses (shapes in error messages, element counts). Defined in
// TensorBuilder.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef TRACE_LIB_IMPORTER_TENSORBUILDER_DETAIL_H
#define TRACE_LIB_IMPORTER_TENSORBUILDER_DETAIL_H

#include "mlir/Support/LLVM.h"

#include <cstdint>
#include <string>

namespace mlir::trace::detail {

/// The product of `shape`'s sizes (1 for rank 0).
int64_t numElements(ArrayRef<int64_t> shape);

/// `shape` as "[2, 3]", for error messages.
std::string shapeString(ArrayRef<int64_t> shape);

} // namespace mlir::trace::detail

#endif // TRACE_LIB_IMPORTER_TENSORBUILDER_DETAIL_H
