//===- TraceTraits.h - op classification traits -----------------*- C++ -*-===//
//
// Marker traits declared in TraceBase.td. They carry no verification; passes
// test them with `op->hasTrait<trace::OpTrait::ViewOp>()` and friends.
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

} // namespace mlir::trace::OpTrait

#endif // TRACE_DIALECT_TRACE_IR_TRACETRAITS_H
