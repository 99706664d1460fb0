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

def TraceReadonlyArgsPass : Pass<"trace-readonly-args", "func::FuncOp"> {
  let summary = "Mark tensor arguments of public functions read-only for bufferization";
  let description = [{
    Sets `bufferization.writable = false` on every tensor argument of a
    public function. One-shot bufferization with function boundaries then
    never updates a caller's input buffer in place (it copies instead), so a
    compiled training step leaves its parameters and activations untouched
    and can be called again on the same buffers.
  }];
  let dependentDialects = ["::mlir::bufferization::BufferizationDialect"];
}

def TraceFuseElementwisePass : Pass<"trace-fuse-elementwise-linalg", "func::FuncOp"> {
  let summary = "Fuse elementwise linalg.generic producers into consumers without recomputation";
  let description = [{
    The CPU pipeline's fusion on linalg on tensors: an all-parallel
    `linalg.generic` with one use is fused into the `linalg.generic` that
    uses it when the consumer reads each produced element once (the
    operand's indexing map is a permutation), so elementwise chains become
    one loop nest and nothing is computed twice.

    Upstream's `linalg-fuse-elementwise-ops` is not used because it also
    propagates reshapes by expanding named ops into generics; it then fuses
    a layer norm into the following matmul, recomputing it for every output
    column (a 100x slowdown on a GPT block).
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

def TraceMathApproximationPass : Pass<"trace-math-approximation"> {
  let summary = "Replace f32 transcendental functions with vectorizable polynomials";
  let description = [{
    Rewrites f32 `math.tanh`, `math.erf`, `math.exp`, `math.log` (and the
    other functions upstream approximates) into MLIR's polynomial
    approximations, which are plain arithmetic: the loops around them then
    vectorize, instead of calling scalar libm once per element. The
    approximations are accurate to a few ulp in f32 (the numerics tests
    check them against PyTorch). f64 keeps libm.

    Upstream exposes these patterns only through a test pass, hence this
    one.
  }];
  let dependentDialects = ["::mlir::math::MathDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::vector::VectorDialect"];
}

def TraceAutodiffPass : Pass<"trace-autodiff", "ModuleOp"> {
  let summary = "Reverse-mode autodiff: add @f_grad next to every public @f";
  let description = [{
    For every public function `@f` with a body (that is not itself a
    generated `_grad` function), adds

    ```
    @f_grad(<f's arguments>, <a cotangent per float result of f>)
        -> (<f's results>, <the gradient of each float argument of f>)
    ```

    the joint forward and backward computation: the forward ops of `@f`,
    then, in reverse order, each op's vector-Jacobian product from its
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

    Attributes for later passes: `@f_grad` carries `trace.forward_ops = N`
    (its first N ops are the forward) and its forward ops inside checkpoint
    regions that no policy saves carry the unit attribute
    `trace.checkpointed`; `trace-remat` reads both. Every op cloned into
    `@f_bwd` to recompute a forward value carries `trace.recomputed`.

    An op on the path from an argument to a result that neither has a VJP
    rule nor is marked `NonDifferentiable` is an error at that op.
    Functions the pass generated (attribute `trace.autodiff`) are skipped
    when it runs again.
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
    Runs after `trace-autodiff`. For each `@f_grad` it re-partitions the
    joint computation, replacing `@f_fwd` and `@f_bwd`: which forward values
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

    * `trace.matmul` (unless `save-matmuls=false`) and reductions of more
      than `max-recompute-reduction` elements per output element are not
      recomputed by the plain cut.
    * Ops inside checkpoint regions (`trace.checkpointed`, set by
      trace-autodiff) are never saved, unless the region's policy names
      them, or an op attribute below says otherwise. A value that enters a
      region from outside (the previous block's output) is not recomputed
      by the plain cut: it is saved, as `torch.utils.checkpoint` saves a
      region's inputs (recomputing a stack of regions from its first input
      would make every region's activations live at once).
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

    `trace.forward_ops` on `@f_grad` marks where its forward ends: run the
    pass right after trace-autodiff (passes that add, erase or move ops in
    `@f_grad` in between make it stale).
  }];
  let options = [
    Option<"budget", "budget", "std::string", "\"\"",
           "Activation bytes @f_fwd may save: a fraction of the plain cut "
           "(0..1) or a byte count (200000, 200KB, 1.5MiB)">,
    Option<"saveMatmuls", "save-matmuls", "bool", "true",
           "Never recompute trace.matmul in the plain cut">,
    ListOption<"saveNames", "save-names", "std::string",
               "Values (by trace.name) that must be saved">,
    Option<"maxRecomputeReduction", "max-recompute-reduction", "int64_t",
           "4096",
           "Reductions over more elements per output element are not "
           "recomputed by the plain cut">,
    Option<"report", "report", "bool", "false",
           "Emit a remark per function: saved bytes before and after, what "
           "is saved, ops and FLOPs recomputed">,
  ];
  let dependentDialects = ["::mlir::trace::TraceDialect",
                           "::mlir::func::FuncDialect"];
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
      a slice) is not fused, so nothing is computed twice;
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
    it, so it is neither an input nor a kernel of its own.

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

def TraceLowerFusionsPass : Pass<"trace-lower-fusions"> {
  let summary = "Make each trace.fusion region on linalg one linalg.generic, then inline it";
  let description = [{
    Runs after `trace-to-linalg{keep-fusions}`, in the GPU pipeline, so that
    each fusion `trace-fuse` formed becomes one loop nest, one kernel.
    Inside each `trace.fusion` region (isolated from above, so nothing
    outside is touched):

    * `linalg.transpose` and `linalg.reduce` are generalized; reshapes are
      moved to the region's edge by expanding the generics around them
      (upstream's reshape-by-expansion patterns, safe here because a
      fusion holds no matmul), where they are views after bufferization;
    * producers are fused into consumers that read each produced element
      once (upstream's elementwise fusion). Unlike
      `trace-fuse-elementwise-linalg`, a producer with other readers is
      fused too and stays a result of the fused op: `trace-fuse` decided
      that these values belong to one kernel;
    * two generics over the same loops are merged into one multi-output
      generic when neither reads the other (siblings), or when one reads
      the other's results only at the iteration point that wrote them (a
      producer with other readers feeding a reduction, which upstream would
      compute twice). An all-parallel generic may join a reduction's loops;
    * the fill that initializes a reduction's accumulator is folded into
      the reduction: the body takes the fill value where every reduction
      index is 0 (`linalg.index`), so it is no kernel of its own.

    Then the region is inlined. The numbers are unchanged:
    `test/Integration/CPU/fuse` runs the result on the CPU against the
    unfused functions, bit for bit.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
}

def TraceFoldTransposeIntoMatmulPass
    : Pass<"trace-fold-transpose-into-matmul", "func::FuncOp"> {
  let summary = "Read transposed matmul operands through indexing maps";
  let description = [{
    `linalg.matmul(A, linalg.transpose(W))`, the form of every `nn.Linear`
    (`x @ W^T`) and of attention scores (`q @ k^T`), becomes a matmul whose
    indexing map reads `W` transposed, so the transpose is never
    materialized. The same for a transposed left operand and for
    `linalg.batch_matmul` with the last two dims swapped.
    `trace-linalg-to-blas` then hands BLAS a transposed view.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

def TraceUnshareFillsPass : Pass<"trace-unshare-fills", "func::FuncOp"> {
  let summary = "Give every linalg destination its own linalg.fill";
  let description = [{
    On tensors, before bufferization: a `linalg.fill` whose result is the
    destination (`outs`) of several linalg ops (CSE merges the identical
    zero accumulators of matmuls and reductions of one shape) is cloned,
    with its `tensor.empty`, before each such op but the first. One-shot
    bufferization then writes each op into its own freshly filled buffer
    instead of filling one buffer and copying it for every op but the last,
    and `trace-linalg-to-blas` can replace a matmul's zero fill by beta = 0.
    A fill with other uses than destinations keeps them.
  }];
  let dependentDialects = ["::mlir::tensor::TensorDialect"];
}

def TraceEarlyDeallocPass : Pass<"trace-early-dealloc", "func::FuncOp"> {
  let summary = "Free each buffer right after its last use";
  let description = [{
    On buffers, after the deallocation pipeline: MLIR 22's ownership-based
    buffer deallocation frees a block's buffers at the end of the block, so
    every temporary of a training step would live until the function
    returns and the step's peak would be the sum of all of them, whatever
    trace-remat planned. This pass moves each `memref.dealloc` up to just
    after the last operation of its block that uses the buffer or any
    value that may alias it: the results of view-like ops, any memref
    result of an op that takes it, and what `memref.extract_*` derives
    from it, transitively; a use inside a nested region counts as a use by
    the op that holds the region. A deallocation whose buffer (or an
    alias) is used in another block, yielded, branched or returned stays
    where it is. Calls that receive a buffer (the BLAS runtimes) must not
    keep it, which holds for the trace runtimes.
  }];
}

def TracePlanBuffersPass : Pass<"trace-plan-buffers", "func::FuncOp"> {
  let summary = "Place a function's temporary buffers in one arena by liveness";
  let description = [{
    After `trace-early-dealloc`: each `memref.alloc` of the function's
    single block with a static shape and identity layout whose buffer a
    `memref.dealloc` of the same block frees becomes a `memref.view` into
    one `memref<N x i8>` arena, allocated (64-byte aligned) at the start of
    the function and freed before its return; the buffer's deallocation
    goes. Buffers whose lifetimes (from the first use to the dealloc, in
    block order: no byte is touched before the first use, which is often
    well after the alloc) overlap get disjoint byte ranges; others share
    bytes. Offsets
    are chosen greedily by size, largest first, each at the lowest
    64-byte-aligned offset that clears every overlapping buffer placed so
    far (the "greedy by size" arena planning of TFLite and XLA's heap
    simulator). Buffers that escape (results, no dealloc), live in nested
    regions, are freed elsewhere or more than once, have dynamic shapes,
    strided layouts, a memory space, an alignment above 64 or elements
    that are not 1, 2, 4, 8 or 16 bytes keep their own allocation.

    A training step then makes one allocation for its temporaries instead
    of one per buffer: no allocator call, and no page faults of fresh
    memory, per temporary. The arena is at least the peak of the planned
    buffers' live bytes; `print` reports each function's arena against that
    peak as a remark.

    MLIR has no such planner upstream (`promote-buffers-to-stack` moves
    small buffers to the stack, one by one).
  }];
  let options = [
    Option<"print", "print", "bool", /*default=*/"false",
           "Report each planned function's arena size and live peak">,
  ];
}

def TraceLinalgToBLASPass : Pass<"trace-linalg-to-blas", "ModuleOp"> {
  let summary = "Call the runtime's BLAS for f32/f64 matmuls on buffers";
  let description = [{
    After bufferization, `linalg.matmul` and `linalg.batch_matmul` on
    memrefs of f32 or f64 (in the default form, or reading an operand
    transposed as trace-fold-transpose-into-matmul leaves them; the operand
    then goes as a transposed strided view) become a runtime's
    `C = A B + beta C`, with beta 1 (the matmul's accumulation) or 0 when a
    `linalg.fill` of +0.0 initializes C just before (only allocations and
    ops without memory effects in between): the fill is erased, one GPU
    kernel less per matmul. The runtimes:

    - `runtime=cpu`: calls of `trace_rt_matmul_<t>` and
      `trace_rt_batch_matmul_<t>` of lib/Runtime/CPU, with OpenBLAS's
      `cblas_?gemm`. Operands are cast to dynamically shaped strided
      memrefs, so one runtime symbol serves every shape. Other element
      types are left for `convert-linalg-to-loops`.
    - `runtime=cuda` (trace-gpu-pipeline): `trace_gpu.gemm` ops, which
      gpu-async-region orders on the kernels' stream and gpu-to-llvm lowers
      to `trace_cuda_matmul_<t>` / `trace_cuda_batch_matmul_<t>` of
      lib/Runtime/CUDA (cuBLAS's `cublas?gemm`,
      `cublas?gemmStridedBatched` on that stream): no host synchronization
      around a matmul. Only operands whose static strides cuBLAS can read (a
      unit stride in one of the last two dims) are taken; other matmuls
      stay, and become kernels.

    Upstream's `convert-linalg-to-std` is not used because it names the
    callee after the static shapes (`linalg_matmul_view8x16xf32_...`), which
    no precompiled runtime can provide.
  }];
  let options = [
    Option<"runtime", "runtime", "std::string", /*default=*/"\"cpu\"",
           "Whose matmuls to call: cpu (OpenBLAS, trace_rt_*) or cuda "
           "(cuBLAS on device memory, trace_cuda_*)">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::func::FuncDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::trace_gpu::TraceGPUDialect"];
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
       element they produce are cloned; never `trace.matmul` or an op with
       `trace.remat = "must_save"`. Clones carry `trace.recomputed`.
    2. Reordering: greedy list scheduling that runs the ready op adding the
       fewest bytes (two rankings are tried), as PyTorch Inductor's
       `reorder_for_peak_memory`; the given order is kept when neither is
       better.

    Functions with several blocks, with region ops that are not isolated
    from above, or with `trace.forward_ops` (`@f_grad`, whose op order
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
    Option<"maxExtraFlops", "max-extra-flops", "double", "0.25",
           "FLOPs the splits may add, as a fraction of the function's">,
    Option<"report", "report", "bool", "false",
           "Emit a remark per function: peak before and after, FLOPs added">,
  ];
  let dependentDialects = ["::mlir::trace::TraceDialect"];
}

def TraceMemoryReportPass : Pass<"trace-memory-report", "ModuleOp"> {
  let summary = "Report saved bytes, peak live bytes and FLOPs of @f_fwd/@f_bwd";
  let description = [{
    For each training split trace-autodiff made (`@f_fwd`, `@f_bwd`), walks
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

    When `@f_grad` is still there (with `trace.forward_ops`), the same
    figures of trace-autodiff's own split, rebuilt from it in a scratch
    module, are given beside them: the schedule before `trace-remat` and
    `trace-schedule` (`before_remat` in JSON, a dashed line in the SVG).

    Writes a readable table (or JSON with `json`) to `output` (default:
    stderr, like upstream's `-print-op-stats`), and with `svg=FILE` a
    timeline of live bytes over the forward then the backward schedule.
    The IR is not changed.
  }];
  let options = [
    Option<"json", "json", "bool", "false", "Write JSON instead of a table">,
    Option<"output", "output", "std::string", "\"\"",
           "File for the report (default: stderr)">,
    Option<"svg", "svg", "std::string", "\"\"",
           "Also write an SVG timeline of live bytes to this file">,
  ];
}

#endif // TRACE_TRANSFORMS_PASSES_TD
