//===- Utils.h - helpers of the trace-to-linalg patterns --------*- C++ -*-===//
//
// The building blocks more than one family of `trace-to-linalg` patterns
// uses: destinations, constants, elementwise generics, reshapes, scalar
// conversions and the f32 accumulation of f16/bf16 sums. Private to
// lib/Conversion/TraceToLinalg.
//
//===----------------------------------------------------------------------===//

#ifndef TRACE_LIB_CONVERSION_TRACETOLINALG_UTILS_H
#define TRACE_LIB_CONVERSION_TRACETOLINALG_UTILS_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/STLFunctionalExtras.h"

namespace mlir::trace::trace_to_linalg {

/// A `tensor.empty` of `type`: the destination of a destination-style op.
Value createEmpty(OpBuilder &b, Location loc, RankedTensorType type);

/// A `tensor.empty` of `type` filled with the scalar `value`.
Value createFilled(OpBuilder &b, Location loc, RankedTensorType type,
                   TypedAttr value);

Value createFloatConstant(OpBuilder &b, Location loc, Type type, double value);

Value createIntConstant(OpBuilder &b, Location loc, Type type, uint64_t value);

/// Computes a scalar from the scalars of the generic's inputs.
using ScalarFn = function_ref<Value(OpBuilder &, Location, ValueRange)>;

/// A `linalg.generic` over all dims of `resultType` (all parallel, identity
/// maps) computing `result[i] = scalarFn(inputs[i]...)`. `inputs` may be
/// empty, for ops that compute from the indices alone.
Value createElementwise(OpBuilder &b, Location loc, RankedTensorType resultType,
                        ValueRange inputs, ScalarFn scalarFn);

/// Reshapes `source` (row-major) into `target`, which has as many elements:
/// one collapse or expand where the dims group up, else through 1-D.
Value createReshape(OpBuilder &b, Location loc, Value source,
                    RankedTensorType target);

inline bool isFloat(Value value) { return isa<FloatType>(value.getType()); }

/// `FloatOp` for float scalars, `IntOp` for integer ones.
template <typename FloatOp, typename IntOp>
Value createArith(OpBuilder &b, Location loc, ValueRange args) {
  if (isFloat(args.front()))
    return FloatOp::create(b, loc, args);
  return IntOp::create(b, loc, args);
}

/// Converts a scalar to `to` with `trace.convert`'s semantics: floats round
/// to nearest even, floats to integers truncate toward zero, anything to i1
/// is `x != 0`, i1 to a number is 0 or 1.
Value createConversion(OpBuilder &b, Location loc, Value x, Type to);

/// The type sums of `elementType` accumulate in: f32 for f16 and bf16, as
/// in PyTorch's CPU kernels (one rounding at the end instead of one per
/// addition, which loses whole units in a bf16 dot product of length 100),
/// else the element type itself.
Type getSumAccumulatorType(Type elementType);

/// `value` with its elements converted to `elementType` (for accumulators:
/// f32 to f16/bf16, rounding to nearest even).
Value createElementCast(OpBuilder &b, Location loc, Value value,
                        Type elementType);

} // namespace mlir::trace::trace_to_linalg

#endif // TRACE_LIB_CONVERSION_TRACETOLINALG_UTILS_H
