//===- TraceInterfaces.td - VJP and cost interfaces --------*- tablegen -*-===//
//
// Each op owns its derivative and its cost, as in Enzyme-MLIR: passes ask the
// op through these interfaces rather than switching over op names.
//
//===----------------------------------------------------------------------===//

#ifndef TRACE_DIALECT_TRACE_IR_TRACEINTERFACES_TD
#define TRACE_DIALECT_TRACE_IR_TRACEINTERFACES_TD

include "mlir/IR/OpBase.td"

def Trace_VJPOpInterface : OpInterface<"VJPOpInterface"> {
  let cppNamespace = "::mlir::trace";
  let description = [{
    Reverse-mode derivative rule of a differentiable op: given the cotangents
    of the op's results, emit the ops computing the cotangents of its operands
    (the vector-Jacobian product). `trace-autodiff` calls this for every op of
    the forward computation in reverse order. Ops marked `NonDifferentiable`
    do not implement it; an op that is neither is a clear autodiff error.
  }];
  let methods = [
    InterfaceMethod<[{
        Emits the VJP at the builder's insertion point. `resultCotangents` has
        one entry per result (null where the result receives no gradient).
        On success `operandCotangents` holds one entry per operand, null for
        an operand that receives no gradient (an integer tensor, a seed).
        The op's own operands and results may be used as residuals.
      }],
      "::llvm::LogicalResult", "buildVJP",
      (ins "::mlir::OpBuilder &":$builder,
           "::mlir::ValueRange":$resultCotangents,
           "::llvm::SmallVectorImpl<::mlir::Value> &":$operandCotangents)>,
  ];
}

def Trace_CostOpInterface : OpInterface<"CostOpInterface"> {
  let cppNamespace = "::mlir::trace";
  let description = [{
    Static cost of one execution of the op, from its static shapes: the
    floating-point work and the bytes it reads and writes if it runs as its
    own kernel. The rematerialization pass weighs recompute FLOPs against
    saved bytes with these numbers; the memory report sums them.

    Defaults: one FLOP per result element; bytes read = all operands, bytes
    written = all results. Ops with other costs (matmul, reductions, views,
    constants) override.
  }];
  let methods = [
    InterfaceMethod<"Floating-point (or integer) operations performed.",
      "int64_t", "getFlops", (ins), [{}], [{
        return ::mlir::trace::detail::defaultFlops($_op);
      }]>,
    InterfaceMethod<"Bytes read from memory (all operands).",
      "int64_t", "getBytesRead", (ins), [{}], [{
        return ::mlir::trace::detail::operandBytes($_op);
      }]>,
    InterfaceMethod<"Bytes written to memory (all results).",
      "int64_t", "getBytesWritten", (ins), [{}], [{
        return ::mlir::trace::detail::resultBytes($_op);
      }]>,
  ];
}

#endif // TRACE_DIALECT_TRACE_IR_TRACEINTERFACES_TD
