//===- Passes.td - conversions out of the trace dialect ----*- tablegen -*-===//

#ifndef TRACE_CONVERSION_PASSES_TD
#define TRACE_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def TraceToLinalgPass : Pass<"trace-to-linalg"> {
  let summary = "Lower trace ops to linalg, tensor, arith and math (the export format)";
  let description = [{
    Rewrites every trace op into upstream dialects with MLIR's dialect
    conversion, so that stock `mlir-opt` (without the trace library) can
    parse the result and lower it to LLVM:

    * elementwise ops, `compare`, `select`, `convert`, `iota`,
      `broadcast_in_dim` and `random_uniform` become `linalg.generic` ops
      writing into `tensor.empty`; f16 and bf16 transcendental functions are
      computed in f32;
    * `constant` becomes `arith.constant`, `full` a `linalg.fill` of a scalar;
    * `transpose` becomes `linalg.transpose`, `matmul` `linalg.matmul` or
      `linalg.batch_matmul` (batch dims beyond one are collapsed), and the
      reductions `linalg.reduce`; f16 and bf16 sums and matmuls accumulate
      in f32 and round once, as PyTorch does;
    * `reshape`, `slice` and `concatenate` become tensor ops;
    * `random_uniform` is Philox4x32-10 written out in arith ops, bit for bit
      the definition in `trace/Support/Philox.h`;
    * `trace.checkpoint` and `trace.fusion` regions are inlined; with
      `keep-fusions`, `trace.fusion` regions stay, their bodies converted,
      for `trace-lower-fusions` to make one kernel of each.

    Discardable `trace.*` attributes (value names) are dropped. The pass fails,
    with an error at the op, if a trace op cannot be converted or a trace
    attribute would remain.
  }];
  let options = [
    Option<"keepFusions", "keep-fusions", "bool", "false",
           "Keep trace.fusion regions (their bodies converted) instead of "
           "inlining them">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

#endif // TRACE_CONVERSION_PASSES_TD
