//===- TraceGPUDialect.cpp - host-side GPU library calls ------------------===//

#include "trace/Dialect/TraceGPU/IR/TraceGPUDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace mlir::trace_gpu;

#include "trace/Dialect/TraceGPU/IR/TraceGPUDialect.cpp.inc"

void TraceGPUDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "trace/Dialect/TraceGPU/IR/TraceGPUOps.cpp.inc"
      >();
}

/// A: [batch...] m x k, B: [batch...] k x n, C: [batch...] m x n, one
/// element type; dims compared where both are static.
LogicalResult GemmOp::verify() {
  auto a = getA().getType(), b = getB().getType(), c = getC().getType();
  if (a.getRank() != b.getRank() || a.getRank() != c.getRank())
    return emitOpError("expects A, B and C of one rank, got ")
           << a.getRank() << ", " << b.getRank() << " and " << c.getRank();
  if (a.getElementType() != b.getElementType() ||
      a.getElementType() != c.getElementType())
    return emitOpError("expects A, B and C of one element type");
  int64_t rank = a.getRank();
  auto compatible = [](int64_t x, int64_t y) {
    return ShapedType::isDynamic(x) || ShapedType::isDynamic(y) || x == y;
  };
  // (operand, dim, operand, dim, what) pairs that must agree.
  struct Pair {
    MemRefType x;
    int64_t xDim;
    MemRefType y;
    int64_t yDim;
    const char *what;
  };
  SmallVector<Pair> pairs = {{a, rank - 2, c, rank - 2, "m (A's rows, C's rows)"},
                             {b, rank - 1, c, rank - 1, "n (B's columns, C's columns)"},
                             {a, rank - 1, b, rank - 2, "k (A's columns, B's rows)"}};
  if (rank == 3) {
    pairs.push_back({a, 0, c, 0, "the batch (A's, C's)"});
    pairs.push_back({b, 0, c, 0, "the batch (B's, C's)"});
  }
  for (const Pair &pair : pairs)
    if (!compatible(pair.x.getDimSize(pair.xDim), pair.y.getDimSize(pair.yDim)))
      return emitOpError("has mismatched ")
             << pair.what << ": " << pair.x.getDimSize(pair.xDim) << " vs "
             << pair.y.getDimSize(pair.yDim);
  return success();
}

#define GET_OP_CLASSES
#include "trace/Dialect/TraceGPU/IR/TraceGPUOps.cpp.inc"
