//===- TraceGPUDialect.cpp - host-side GPU library calls ------------------===//

#include "trace/Dialect/TraceGPU/IR/TraceGPUDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMTypes.h"
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

  // What cuBLAS can read, where the strides are static: a unit stride in
  // one of A's and B's last two dims (row- or column-major), and in C's
  // last (row-major). A dim of size 1 may have any stride.
  auto unitStride = [](MemRefType type, int64_t dim) {
    SmallVector<int64_t> strides;
    int64_t offset;
    if (failed(type.getStridesAndOffset(strides, offset)))
      return true; // StridedMemRefRankOf already rejected it.
    return ShapedType::isDynamic(strides[dim]) || strides[dim] == 1 ||
           type.getDimSize(dim) == 1;
  };
  for (auto [type, name] : {std::pair{a, "A"}, std::pair{b, "B"}})
    if (!unitStride(type, rank - 1) && !unitStride(type, rank - 2))
      return emitOpError("needs ")
             << name << " row- or column-major (a unit stride in one of its "
             << "last two dims), got " << type;
  if (!unitStride(c, rank - 1))
    return emitOpError("needs C row-major (a unit stride in its last dim), "
                       "got ")
           << c;
  return success();
}

/// The callee is a function; a func.func takes the stream (`!llvm.ptr`)
/// and then the operands, and returns nothing. Once func-to-llvm has
/// converted it, its memref arguments are expanded and gpu-to-llvm's
/// lowering checks them.
LogicalResult CallOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  Operation *callee =
      symbolTable.lookupNearestSymbolFrom(*this, getCalleeAttr());
  if (!callee)
    return emitOpError("calls @")
           << getCallee() << ", which is not a symbol of the module";
  auto function = dyn_cast<FunctionOpInterface>(callee);
  if (!function)
    return emitOpError("calls @") << getCallee() << ", which is not a function";
  auto fn = dyn_cast<func::FuncOp>(callee);
  if (!fn)
    return success();
  FunctionType type = fn.getFunctionType();
  if (type.getNumResults() != 0)
    return emitOpError("calls @")
           << getCallee() << ", which returns values; its work is queued on "
           << "a stream and it returns nothing";
  if (type.getNumInputs() == 0 ||
      !isa<LLVM::LLVMPointerType>(type.getInput(0)))
    return emitOpError("calls @")
           << getCallee() << ", whose first argument is not the stream "
           << "(!llvm.ptr)";
  if (TypeRange(type.getInputs().drop_front()) != getArgs().getTypes())
    return emitOpError("passes ")
           << getArgs().getTypes() << " to @" << getCallee()
           << ", which takes the stream and " << type.getInputs().drop_front();
  return success();
}

#define GET_OP_CLASSES
#include "trace/Dialect/TraceGPU/IR/TraceGPUOps.cpp.inc"
