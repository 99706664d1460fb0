//===- TraceTraits.h - op classification traits -----------------*- C++ -*-===//
//
// Traits declared in TraceBase.td. The classification traits carry no
// verification; passes test them with `op->hasTrait<trace::OpTrait::ViewOp>()`
// and friends. VerifyInference and BoundedTensors verify.
//
//===----------------------------------------------------------------------===//

#ifndef TRACE_DIALECT_TRACE_IR_TRACETRAITS_H
#define TRACE_DIALECT_TRACE_IR_TRACETRAITS_H

#include "mlir/IR/OpDefinition.h"

namespace mlir::trace::OpTrait {

/// Sums or maxes over a set of dims.
template <typename ConcreteType>
class ReductionOp
    : public ::mlir::OpTrait::TraitBase<ConcreteType, ReductionOp> {};

/// Moves or repeats data without arithmetic.
template <typename ConcreteType>
class ViewOp : public ::mlir::OpTrait::TraitBase<ConcreteType, ViewOp> {};

/// No gradient flows through the op's results.
template <typename ConcreteType>
class NonDifferentiable
    : public ::mlir::OpTrait::TraitBase<ConcreteType, NonDifferentiable> {};

/// Verifies an op by running its own result-type inference with the op's
/// location, so a bad attribute or operand shape is reported with the
/// inference's precise message, and a wrong result type as one error. Listed before InferTypeOpInterface so its
/// generic "failed to infer returned types" is never reached.
template <typename ConcreteType>
class VerifyInference
    : public ::mlir::OpTrait::TraitBase<ConcreteType, VerifyInference> {
public:
  static LogicalResult verifyTrait(Operation *op) {
    SmallVector<Type, 1> inferred;
    auto concrete = cast<ConcreteType>(op);
    if (failed(ConcreteType::inferReturnTypes(
            op->getContext(), op->getLoc(),
            typename ConcreteType::Adaptor(concrete), inferred)))
      return failure();
    if (TypeRange(inferred) != op->getResultTypes())
      return op->emitOpError("result type ")
             << op->getResultTypes() << " should be " << TypeRange(inferred)
             << " for these operands and attributes";
    return success();
  }
};

/// The largest tensor a trace op may read or produce: 2^40 bytes (1 TiB).
/// Sizes, costs and the planners' capacities are int64 sums of tensor
/// sizes; a bound keeps them from overflowing.
inline constexpr int64_t kMaxTensorBytes = int64_t(1) << 40;

/// Fails, naming the operand or result, if a tensor `op` reads or produces
/// is larger than kMaxTensorBytes (or its size does not fit in 64 bits).
LogicalResult verifyTensorSizes(Operation *op);

/// Every trace op: its tensors are at most kMaxTensorBytes.
template <typename ConcreteType>
class BoundedTensors
    : public ::mlir::OpTrait::TraitBase<ConcreteType, BoundedTensors> {
public:
  static LogicalResult verifyTrait(Operation *op) {
    return verifyTensorSizes(op);
  }
};

} // namespace mlir::trace::OpTrait

#endif // TRACE_DIALECT_TRACE_IR_TRACETRAITS_H
