//===- TraceInterfaces.cpp - VJP and cost interfaces ----------------------===//

#include "trace/Dialect/Trace/IR/TraceInterfaces.h"

#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;
using namespace mlir::trace;

#include "trace/Dialect/Trace/IR/TraceInterfaces.cpp.inc"

int64_t mlir::trace::getTensorBytes(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !tensor.hasStaticShape())
    return 0;
  unsigned bits = tensor.getElementType().getIntOrFloatBitWidth();
  return tensor.getNumElements() * static_cast<int64_t>((bits + 7) / 8);
}

int64_t mlir::trace::detail::defaultFlops(Operation *op) {
  int64_t flops = 0;
  for (Type type : op->getResultTypes())
    if (auto tensor = dyn_cast<RankedTensorType>(type))
      flops += tensor.getNumElements();
  return flops;
}

int64_t mlir::trace::detail::operandBytes(Operation *op) {
  int64_t bytes = 0;
  for (Type type : op->getOperandTypes())
    bytes += getTensorBytes(type);
  return bytes;
}

int64_t mlir::trace::detail::resultBytes(Operation *op) {
  int64_t bytes = 0;
  for (Type type : op->getResultTypes())
    bytes += getTensorBytes(type);
  return bytes;
}
