//===- Passes.td - trace dialect passes --------------------*- tablegen -*-===//

#ifndef TRACE_TRANSFORMS_PASSES_TD
#define TRACE_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def TraceCanonicalizePass : Pass<"trace-canonicalize"> {
  let summary = "Fold and canonicalize trace ops, leaving other dialects alone";
  let description = [{
    Runs the folders and canonicalization patterns of the trace dialect
    (algebraic identities, constant folding of small constants, composing
    transposes / reshapes / broadcasts, and cleaning up checkpoint and fusion
    regions: unused results and inputs, duplicate inputs, pass-through values)
    with MLIR's greedy pattern driver. Unlike `canonicalize`, only trace ops
    are rewritten, so the pass can run on mixed IR without touching a
    pipeline's other dialects. Dead trace ops are erased.
  }];
  let dependentDialects = ["::mlir::trace::TraceDialect"];
  let options = [
    Option<"maxIterations", "max-iterations", "int64_t", "10",
           "Maximum number of greedy-driver sweeps before giving up">,
  ];
}

#endif // TRACE_TRANSFORMS_PASSES_TD
