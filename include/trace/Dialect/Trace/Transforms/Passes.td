//===- Passes.td - passes on trace ops ---------------------*- tablegen -*-===//
//
// The training-step passes, on trace ops: canonicalization, autodiff, the
// remat partition, scheduling, fusion into trace.fusion regions, and the
// memory report.
//
//===----------------------------------------------------------------------===//

#ifndef TRACE_DIALECT_TRACE_TRANSFORMS_PASSES_TD
#define TRACE_DIALECT_TRACE_TRANSFORMS_PASSES_TD

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

def TraceCheckpointPolicyPass : Pass<"trace-checkpoint-policy", "ModuleOp"> {
  let summary = "Give checkpoint regions a selective policy, chosen by region name";
  let description = [{
    Sets the `#trace.policy` of `trace.checkpoint` regions, so that a model
    gets PyTorch's selective activation checkpointing or JAX's
    `checkpoint_policies` without an edit. Each `policy` entry is
    `POLICY[@REGEX]`: without `@REGEX` it applies to every region, with it to
    the regions whose name (`blocks.0`, `scripts/model.py:40`) the regex
    fully matches. A region takes the last entry that applies to it. POLICY
    is one or more terms joined by `+`:

    * `nothing_saveable`: save nothing, recompute the whole region (the
      default of a region; JAX's `nothing_saveable`);
    * `dots_saveable`: save the results of matmuls and convolutions
      (`trace.matmul`: linear layers, attention scores;
      `trace.convolution`; JAX's `dots_saveable`, PyTorch's `MUST_SAVE`
      for `aten.mm`/`aten.bmm`);
    * `save_ops=OP|OP...`: save the results of these ops (`trace.matmul`,
      or `matmul`; PyTorch's `MUST_SAVE` per op);
    * `save_names=NAME|NAME...`: save the values of these names
      (`trace.name`, as `blocks.0.attn`; JAX's `save_only_these_names`).

    ```
    --trace-checkpoint-policy="policy=dots_saveable@blocks\.[0-9]+"
    ```

    An entry that does not parse, names an op the trace dialect does not
    have, or whose regex matches no region is an error.
  }];
  let dependentDialects = ["::mlir::trace::TraceDialect"];
  let options = [
    ListOption<"policies", "policy", "std::string",
               "POLICY[@REGEX]: the policy of the regions REGEX names (all "
               "regions without @REGEX); the last entry that applies wins">,
  ];
}

def TraceAutodiffPass : Pass<"trace-autodiff", "ModuleOp"> {
  let summary = "Reverse-mode autodiff: add @f_grad next to every public @f";
  let description = [{
    For every public function `@f` with a body that it has not
    differentiated already (and that is not one of the functions it
    generated), adds

    ```
    @f_grad(<f's arguments>, <a cotangent per float result of f>)
        -> (<f's results>, <the gradient of each float argument of f>)
    ```

    the joint forward and backward computation: the forward ops of `@f`,
    a `trace.forward_end`, then, in reverse order, each op's
    vector-Jacobian product from its
    `VJPOpInterface` (`buildVJP`). Cotangents of a value used several times
    are summed; an argument that receives no gradient gets zeros.
    Checkpoint and fusion regions are inlined (their recomputation is the
    job of the forward/backward split). Names carry through: the gradient of
    argument `blocks.0.fc1.weight` is the result named
    `grad.blocks.0.fc1.weight`; the cotangent of result `out` is the
    argument named `cot.out`.

    It also splits the computation for training: `@f_fwd(<f's arguments>)
    -> (<f's results>, <residuals>)` and `@f_bwd(<residuals>,
    <cotangents>) -> (<gradients>)`. A residual is a forward value the
    backward reads, except a value computed inside a checkpoint region:
    the backward recomputes those, each just before the first backward op
    that reads it, from the region's inputs, which are saved instead, unless the region's policy
    (`#trace.policy<save_ops, save_names>`) lets the value be saved.
    Residuals are named `saved.<producer name>`. With `print-saved`, a
    remark on `@f` lists every residual with its type, bytes and producer.

    What later passes read, as structure: `@f` carries
    `trace.derivatives = #trace.derivatives<grad = @f_grad, fwd = @f_fwd,
    bwd = @f_bwd>` (symbol references; the names are only the defaults),
    `@f_grad`'s `trace.forward_end` marks where its forward ends, and its
    forward ops inside checkpoint regions that no policy saves carry the
    unit attribute `trace.checkpointed`; `trace-remat` reads all three.
    Every op cloned into `@f_bwd` to recompute a forward value carries
    `trace.recomputed`.

    An op on the path from an argument to a result that neither has a VJP
    rule nor is marked `NonDifferentiable` is an error at that op. Run
    again, the pass skips the functions it differentiated and those it
    generated.
  }];
  let options = [
    Option<"printSaved", "print-saved", "bool", "false",
           "Emit a remark listing what each @f_fwd saves for backward">,
  ];
  let dependentDialects = ["::mlir::trace::TraceDialect",
                           "::mlir::func::FuncDialect"];
}

def TraceRematPass : Pass<"trace-remat", "ModuleOp"> {
  let summary = "Choose what @f_fwd saves and @f_bwd recomputes by min-cut, under a memory budget";
  let description = [{
    Runs after `trace-autodiff`. For each function `@f` with
    `#trace.derivatives`, it re-partitions the joint computation of its
    `grad`, replacing its `fwd` and `bwd` (and updating the attribute):
    which forward values
    are saved for the backward and which the backward recomputes, just
    before their first use (the approach of AOTAutograd's
    `min_cut_rematerialization_partition` and Thunder's
    rematerialization).

    The partition is a minimum s-t cut over the forward ops: saving a value
    costs its bytes (numel x element size) times 1024, recomputing an op
    costs its FLOPs (`CostOpInterface`), so bytes come first and FLOPs
    break ties. Arguments (weights, inputs) are available to the backward
    at no cost and are reported apart. Operand-free sources (`full`,
    `constant`, `iota`) are always rebuilt. Rules and constraints:

    * `trace.matmul` and `trace.convolution` (unless
      `save-matmuls=false`) and reductions of more
      than `max-recompute-reduction` elements per output element are not
      recomputed by the plain cut. A matmul of two activations (neither
      operand an argument seen through views, as a linear layer's weight
      is) that contracts over at most `max-recompute-contraction` elements
      is: attention's q·kᵀ over a head's width costs 2 x 64 FLOPs per
      score, and its scores are the largest activations of a transformer
      (T² per head), which FlashAttention recomputes for the same reason.
    * Ops inside checkpoint regions (`trace.checkpointed`, set by
      trace-autodiff) are never saved, unless the region's policy names
      them, or an op attribute below says otherwise. A value that enters a
      region from outside (the previous block's output) is not recomputed
      by the plain cut: it is saved, as `torch.utils.checkpoint` saves a
      region's inputs (recomputing a stack of regions from its first input
      would make every region's activations live at once). So is a
      region's output that a forward op outside every region reads (the
      last block's output, read by the final layer norm), as torch saves
      a checkpoint's output for the op that reads it.
    * `trace.remat = "must_save"` / `"must_recompute"` on an op are hard
      constraints; `"prefer_save"` / `"prefer_recompute"` halve / double
      the cost of saving it in the cut. Any of them lifts the matmul and
      reduction rule for that op, and overrides a checkpoint region. On a
      `trace.checkpoint` region (`} attributes {trace.remat = ...}`) it
      applies to every op inside without its own (trace-autodiff copies
      it onto them), like a selective-checkpoint policy for the region.
    * `save-names`: values whose `trace.name` is listed must be saved.

    `budget=B` caps the activation bytes `@f_fwd` saves (arguments are not
    counted): a fraction between 0 and 1 of what the plain cut saves (0:
    only arguments, 1: the plain cut), or a byte count (`200000`, `200KB`,
    `1.5MiB`; K = 1000, Ki = 1024; a number up to 1 without a unit is a
    fraction, `1B` is a byte). Above the cap, the pass recomputes
    more (matmuls included) with the fewest extra FLOPs it finds: a
    knapsack over saved values, cuts with heavier byte costs, and a local
    search (see `RematPlanner.h`). A budget the constraints make
    impossible (values that must be saved) is an error naming the smallest
    total it could reach.

    With `report`, a remark on `@f` gives the saved bytes of trace-autodiff's
    split, of the plain cut and of the result, the ops recomputed and their
    FLOPs, followed by the list of what `@f_fwd` saves.

    `trace.forward_end` in `@f_grad` marks where its forward ends. Passes
    may run in between (canonicalization, CSE) as long as they move no op
    across it; a forward op that reads a backward value is an error.
  }];
  let options = [
    Option<"budget", "budget", "std::string", "\"\"",
           "Activation bytes @f_fwd may save: a fraction of the plain cut "
           "(0..1) or a byte count (200000, 200KB, 1.5MiB)">,
    Option<"saveMatmuls", "save-matmuls", "bool", "true",
           "Never recompute trace.matmul or trace.convolution in the "
           "plain cut">,
    ListOption<"saveNames", "save-names", "std::string",
               "Values (by trace.name) that must be saved">,
    Option<"maxRecomputeReduction", "max-recompute-reduction", "int64_t",
           "4096",
           "Reductions over more elements per output element are not "
           "recomputed by the plain cut">,
    Option<"maxRecomputeContraction", "max-recompute-contraction", "int64_t",
           "64",
           "Matmuls of two activations contracting over at most this many "
           "elements (q·kᵀ over a head) may be recomputed by the plain "
           "cut; 0: none">,
    Option<"report", "report", "bool", "false",
           "Emit a remark per function: saved bytes before and after, what "
           "is saved, ops and FLOPs recomputed">,
  ];
  let dependentDialects = ["::mlir::trace::TraceDialect",
                           "::mlir::func::FuncDialect"];
}

def TraceSchedulePass : Pass<"trace-schedule", "func::FuncOp"> {
  let summary = "Recompute long-lived values again and reorder ops to lower a function's peak of live bytes";
  let description = [{
    Lowers the peak of live bytes of each single-block function, in the
    memory model `trace-memory-report` prints (views share storage, a value
    is freed after its last reader). Run it after `trace-remat` (and on
    `@f_bwd` in particular): the min-cut decides what is saved, not when
    the backward holds what it recomputes, and a value recomputed for the
    first backward op that reads it stays live until the last one.

    1. Live-range splitting by recomputation (XLA's HloRematerialization):
       at the peak, a value live across it but not read there is dropped
       and computed again just before its next reader, from values live
       there, cloning up to `max-chain` producers whose values are dead by
       then. The candidate that lowers the peak most is taken (fewest FLOPs
       on ties) and kept only if (peak, live bytes summed over the
       schedule) goes down; repeated until nothing helps or the clones
       reach `max-extra-flops` times the function's FLOPs. Only pure
       single-result ops of at most `max-flops-per-element` FLOPs per
       element they produce are cloned; a `trace.matmul` only if its
       contraction is short (at most `max-matmul-flops-per-element`:
       attention's scores q k^T, computed again from q and k rather than
       held through the layer's MLP backward); never `trace.convolution`
       or an op with
       `trace.remat = "must_save"`. Clones carry `trace.recomputed`, and
       read what they do not clone through a `trace.optimization_barrier`
       (dropped when the chain was moved whole), so the CSE after
       `trace-to-linalg` in the CPU and GPU pipelines does not merge them
       with the originals again.
    2. Reordering: greedy list scheduling that runs the ready op adding the
       fewest bytes (two rankings are tried), as PyTorch Inductor's
       `reorder_for_peak_memory`; the given order is kept when neither is
       better.

    Functions with several blocks, with region ops that are not isolated
    from above, or with a `trace.forward_end` (`@f_grad`, whose op order
    tells trace-remat where its forward ends) are left alone. With
    `report`, a remark gives the peak before and after and the FLOPs
    added.
  }];
  let options = [
    Option<"split", "split", "bool", "true",
           "Recompute values again to shorten their live ranges">,
    Option<"reorder", "reorder", "bool", "true",
           "Reorder ops by greedy list scheduling">,
    Option<"maxChain", "max-chain", "int64_t", "16",
           "Most ops one split clones">,
    Option<"maxFlopsPerElement", "max-flops-per-element", "int64_t", "256",
           "Ops above this many FLOPs per element produced are not cloned">,
    Option<"maxMatmulFlopsPerElement", "max-matmul-flops-per-element",
           "int64_t", "128",
           "A matmul above this many FLOPs per element (twice its "
           "contraction) is not cloned">,
    Option<"maxExtraFlops", "max-extra-flops", "double", "0.25",
           "FLOPs the splits may add, as a fraction of the function's">,
    Option<"report", "report", "bool", "false",
           "Emit a remark per function: peak before and after, FLOPs added">,
  ];
  let dependentDialects = ["::mlir::trace::TraceDialect"];
}

def TraceFusePass : Pass<"trace-fuse", "func::FuncOp"> {
  let summary = "Group elementwise, broadcast, view and reduction ops into trace.fusion regions";
  let description = [{
    Forms `trace.fusion` regions, each meant to become one loop nest (one
    GPU kernel), by the rules of XLA's GPU fusion:

    * a **loop** fusion (`trace.fusion_kind = "loop"`, named `loop_<n>`)
      holds elementwise ops (`compare`, `select`, `convert` included),
      `broadcast_in_dim`, `reshape`, `transpose` and `slice` whose results
      all have the same number of elements: one output iteration space. A
      producer whose result has another size (the operand of a broadcast or
      a slice) is not fused, so nothing is computed twice (but see
      producer duplication below);
    * an **input** fusion (`"input"`, `input_<n>`) has one reduction, or
      sibling reductions of operands with the same shape, as its root, with
      loop ops over the reduced operand's iteration space fused in (its
      producers, and their other readers as extra results). A reduction's
      result is never used inside its fusion: its consumers start a new
      fusion.

    Matmuls, `concatenate`, `iota`, `random_uniform`, non-splat constants,
    checkpoint regions and existing fusions stay outside, and so does a
    transpose only matmuls read (the matmul reads it in place, as XLA folds
    a transpose into a dot's layout). A splat constant
    (`trace.full`, a splat `trace.constant`) a fusion reads is cloned into
    it, so it is neither an input nor a kernel of its own. Likewise a
    `broadcast_in_dim` that grows its operand gets a copy per reader
    first, so each copy fuses into its reader, which then reads the small
    operand: no fusion writes a broadcast out at full size.

    Producer-consumer fusion runs first, consumers before producers in
    reverse program order; then horizontal fusion merges fusions of the same
    kind and iteration space that read a common value (loop fusions with
    the same element count, reductions of operands with the same shape). A
    value a fusion computes and something outside reads becomes one of its
    results (a multi-output fusion). Two groups are merged only if no path
    leaves one and re-enters the other through ops or other groups outside
    both (the merged region would depend on itself; a group counts as one
    node, since it becomes one op), and only within `max-ops` ops
    and `max-inputs` distinct inputs: proxies for a kernel's register
    pressure and parameter count. A lone elementwise or view op is left
    alone (as a kernel it is the same); a lone reduction becomes a fusion,
    since the GPU lowering of a fusion folds the fill of the accumulator
    into the reduction (one kernel instead of two).

    Then producer duplication, as XLA duplicates cheap producers into
    consumer fusions: values of one group that only one other group reads,
    computed by at most 16 loop ops over the reader's iteration space, are
    computed again in the reader from the group's inputs (or its values of
    another kind) when those take fewer bytes than the values, counting
    only inputs that would not stay live until the reader anyway. The
    values are then no result of the first fusion: they are not written
    out and held until the reader runs (GELU's backward reads three
    tensors of the pre-activation's size, recomputed from one).

    The pass works on each block separately: the function body and the body
    of each `trace.checkpoint` region, which stays in place (fusions may
    form inside it, never across its boundary). It never moves ops between
    functions, so run after `trace-remat` it fuses `@f_fwd` and `@f_bwd`
    apart and keeps every save / recompute decision. Fused ops are placed
    at their group's last op; the block is then re-sorted topologically
    (stable), which moves only the readers of early fused values.
  }];
  let options = [
    Option<"maxOps", "max-ops", "int64_t", "64",
           "Most ops in one fusion (a register-pressure proxy)">,
    Option<"maxInputs", "max-inputs", "int64_t", "16",
           "Most distinct inputs of one fusion (a register-pressure and "
           "kernel-parameter proxy)">,
  ];
  let dependentDialects = ["::mlir::trace::TraceDialect"];
}

def TraceOutlineRepeatsPass : Pass<"trace-outline-repeats", "ModuleOp"> {
  let summary = "Outline the repeated layers of a step into one function each, called per layer";
  let description = [{
    A model's repeated blocks (the layers of a `ModuleList`) are the same
    ops on different weights, in the forward, in the backward and in the
    recomputation of each. This pass finds them and makes each kind a
    function that every layer calls, so that everything after it
    (lowering, bufferization, LLVM) works on one copy, and compile time
    stays flat in depth, as a JAX user gets by scanning over layers.

    1. Runs. The importer names each op's location after the module that
       made it (`blocks.3.attn.qkv`); autodiff and recomputation keep the
       forward op's location. An op's layer is that path up to its first
       numeric component (`blocks.3`). A run is a maximal stretch of a
       block's ops of one layer; ops of no layer (constants, `<model>`)
       between two ops of the same layer belong to the run.
    2. Candidates. Each run of at least `min-ops` ops is cloned into a
       function whose arguments are the values it reads from outside (in
       order of first use) and whose results are its values used after it.
       `trace.name` attributes and the labels of fusions and checkpoint
       regions are dropped from the clone.
    3. Sharing. Candidates whose printed bodies are equal, in any function
       of the module, become one private function, named as an identifier
       after its first run's function and layer (`forward_bwd_blocks_3`),
       and each of their runs becomes a `func.call` of it. The text decides, so only runs that are
       the same computation up to their operands are ever merged; a run
       like no other stays inline.

    First, a transpose of a transpose is folded (trace-schedule's
    recomputations leave such pairs after the last canonicalization), and
    transposes nothing reads are erased; then a transpose that only
    matmuls read is cloned to just before each reader, so that it is in
    the reader's function, where `trace-fold-transpose-into-matmul` folds
    it.

    Run it after `trace-fuse` (the fusions are then part of the bodies) and
    before lowering; the passes after it work on each function and on
    calls. The C interface is unchanged: only the exported functions'
    bodies change.
  }];
  let options = [
    Option<"minOps", "min-ops", "int64_t", "8",
           "Fewest ops (nested ones included) a run needs to be outlined">,
  ];
  let statistics = [
    Statistic<"numRuns", "runs", "Runs replaced by a call">,
    Statistic<"numFunctions", "functions", "Functions the runs call">,
  ];
  let dependentDialects = ["::mlir::func::FuncDialect"];
}

def TraceMemoryReportPass : Pass<"trace-memory-report", "ModuleOp"> {
  let summary = "Report saved bytes, peak live bytes and FLOPs of @f_fwd/@f_bwd";
  let description = [{
    For each training split trace-autodiff made (the `fwd` and `bwd` of a
    function's `#trace.derivatives`), walks
    the schedule (op order) with static shapes and reports: bytes saved for
    backward (activations, and arguments such as weights, apart), the peak
    of live bytes in the forward and in the backward, and the FLOPs of the
    forward, of the backward and of its recomputation (ops the split cloned
    into `@f_bwd`, tagged `trace.recomputed`).

    Liveness: a function's arguments are live from the start until their
    last use (results until the end); an op's results from the op until
    their last use; view ops (reshape, transpose, broadcast_in_dim, slice)
    alias their operand and take no bytes of their own. The forward's
    residuals stay live to its end, as they do while the step runs.

    When `@f_grad` is still there (with its `trace.forward_end`), the same
    figures of trace-autodiff's own split, rebuilt from it in a scratch
    module, are given beside them: the schedule before `trace-remat` and
    `trace-schedule` (`before_remat` in JSON, a dashed line in the SVG).

    Writes a readable table (or JSON with `json`) to `output` (default:
    stderr, like upstream's `-print-op-stats`), and with `svg=FILE` a
    timeline of live bytes over the forward then the backward schedule.
    With `peak-values=N` the table also lists the N largest values
    allocated at each function's peak, to say what makes the peak.
    The IR is not changed.
  }];
  let options = [
    Option<"json", "json", "bool", "false", "Write JSON instead of a table">,
    Option<"output", "output", "std::string", "\"\"",
           "File for the report (default: stderr)">,
    Option<"svg", "svg", "std::string", "\"\"",
           "Also write an SVG timeline of live bytes to this file">,
    Option<"peakValues", "peak-values", "int64_t", "0",
           "In the table, list this many of the largest values allocated "
           "at each function's peak (name, bytes, first and last op)">,
  ];
}

#endif // TRACE_DIALECT_TRACE_TRANSFORMS_PASSES_TD
