//===- TraceInterfaces.cpp - VJP and cost interfaces ----------------------===//

#include "trace/Dialect/Trace/IR/TraceInterfaces.h"
#include "trace/Dialect/Trace/IR/TraceTraits.h"
#include "llvm/Support/MathExtras.h"

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

LogicalResult mlir::trace::OpTrait::verifyTensorSizes(Operation *op) {
  auto tooLarge = [](Type type) {
    auto tensor = dyn_cast<RankedTensorType>(type);
    if (!tensor || !tensor.hasStaticShape() ||
        !tensor.getElementType().isIntOrFloat())
      return false;
    // ShapedType::getNumElements would overflow first: multiply checked.
    int64_t bytes = (tensor.getElementType().getIntOrFloatBitWidth() + 7) / 8;
    if (llvm::is_contained(tensor.getShape(), 0))
      return false;
    for (int64_t dim : tensor.getShape())
      if (llvm::MulOverflow(bytes, dim, bytes) || bytes > kMaxTensorBytes)
        return true;
    return false;
  };
  auto check = [&](TypeRange types, StringRef what) -> LogicalResult {
    for (auto [i, type] : llvm::enumerate(types))
      if (tooLarge(type))
        return op->emitOpError()
               << what << " #" << i << " of type " << type
               << " is too large: trace tensors hold at most 2^40 bytes";
    return success();
  };
  return failure(failed(check(op->getOperandTypes(), "operand")) ||
                 failed(check(op->getResultTypes(), "result")));
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
