//===- Passes.td - passes both backends share --------------*- tablegen -*-===//
//
// Between trace-to-linalg and the backends: linalg on tensors (elementwise
// fusion, transposes read in place, accumulators unshared, trace.fusion
// regions made one linalg.generic), bufferization aids, and buffer
// passes (deallocation at last use, one arena per function).
//
//===----------------------------------------------------------------------===//

#ifndef TRACE_CODEGEN_COMMON_PASSES_TD
#define TRACE_CODEGEN_COMMON_PASSES_TD

include "mlir/Pass/PassBase.td"

def TraceFuseElementwisePass : Pass<"trace-fuse-elementwise-linalg", "func::FuncOp"> {
  let summary = "Fuse elementwise linalg.generic producers into consumers without recomputation";
  let description = [{
    The CPU pipeline's fusion on linalg on tensors: an all-parallel
    `linalg.generic` with one use is fused into the `linalg.generic` that
    uses it when the consumer reads each produced element once (the
    operand's indexing map is a permutation), so elementwise chains become
    one loop nest and nothing is computed twice. Two kinds of producer
    fuse into every generic that reads them, whatever their uses: a pure
    copy (a broadcast), which in a reader is only indexing, and a boolean
    mask of at most two ops (a compare), recomputed in each reader, broadcast
    reads included, rather than stored as i1 bytes that vector code loads
    one at a time.

    Then, once nothing more fuses so, a producer of at most 8 payload ops
    that several generics read, each elementwise, is computed again in
    each of them, so it is never written out: a `trace.fusion` with two
    results (GELU's output and its gradient) otherwise wrote every
    intermediate both use to a buffer of its own. The ops so copied are at
    most as many as the function's payloads then hold: in a chain where
    each value feeds two readers, each copy makes its producer's own
    inputs shared, and without a bound the work would double at every
    step back.

    With `into-reductions` (the CPU pipeline), a `linalg.reduce` of
    trailing dims whose input a generic produces is made a generic first,
    and producers fuse into it when each of their inputs is read at every
    point or once per output row and their payload is arith and math ops:
    the form `trace-vectorize-reductions` vectorizes. A softmax's
    `sum(exp(x - max))` is then one pass that writes no exp buffer.

    Upstream's `linalg-fuse-elementwise-ops` is not used because it also
    propagates reshapes by expanding named ops into generics; it then fuses
    a layer norm into the following matmul, recomputing it for every output
    column (a 100x slowdown on a GPT block).
  }];
  let options = [
    Option<"intoReductions", "into-reductions", "bool", "false",
           "Fuse producers into row reductions (trace-vectorize-reductions' form)">,
  ];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
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
  let summary = "Give every linalg destination its own linalg.fill and tensor.empty";
  let description = [{
    On tensors, before bufferization: a `linalg.fill` whose result is the
    destination (`outs`) of several linalg ops (CSE merges the identical
    zero accumulators of matmuls and reductions of one shape) is cloned,
    with its `tensor.empty`, before each such op but the first. One-shot
    bufferization then writes each op into its own freshly filled buffer
    instead of filling one buffer and copying it for every op but the last,
    and `trace-linalg-to-blas` can replace a matmul's zero fill by beta = 0.
    A fill with other uses than destinations keeps them.

    Then every use of a `tensor.empty` with several uses gets its own clone
    right before its user. CSE merges the empties of one shape, and every
    op whose destination is one of them joins one alias set in One-Shot
    Bufferize's analysis, whose conflict checks then grow with the cube of
    the function's length (most of a deep model's MLIR time). An empty
    is only a shape, so the clones change no value. Before that, an
    elementwise `linalg.generic` whose destination is an empty its payload
    does not read takes as destination an input of the same type and
    indexing map, in the same block, that dies at it (no later use of it or
    of any value sharing its buffer) and whose buffer the function makes
    (not an argument's or a constant's), so it can write where the input
    was, as the shared empties let it; a buffer passes along at most 16
    nests.
  }];
  let dependentDialects = ["::mlir::tensor::TensorDialect"];
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

def TraceEraseBarriersPass : Pass<"trace-erase-barriers", "func::FuncOp"> {
  let summary = "Replace each trace.optimization_barrier by its operand";
  let description = [{
    The CPU and GPU pipelines lower with `trace-to-linalg{keep-barriers}`,
    so that their CSE cannot merge the ops `trace-schedule` recomputed with
    the originals; this pass, right after that CSE, removes the barriers
    (they compute nothing), so the linalg passes after it and bufferization
    see upstream ops only.
  }];
}

def TraceReadonlyArgsPass : Pass<"trace-readonly-args", "func::FuncOp"> {
  let summary = "Mark tensor arguments of public functions read-only for bufferization";
  let description = [{
    Sets `bufferization.writable = false` on every tensor argument of a
    public function. One-shot bufferization with function boundaries then
    never updates a caller's input buffer in place (it copies instead), so a
    compiled training step leaves its parameters and activations untouched
    and can be called again on the same buffers. A donated argument
    (`trace.donated`, the C API's saved values into @f_bwd) is the
    callee's: it becomes `bufferization.writable = true`, so bufferization
    may reuse it in place.
  }];
  let dependentDialects = ["::mlir::bufferization::BufferizationDialect"];
}

def TraceDistinctResultsPass : Pass<"trace-distinct-results", "func::FuncOp"> {
  let summary = "Return each buffer once: a memref a return repeats is returned as a copy";
  let description = [{
    On buffers, before `buffer-results-to-out-params`. A training step's
    forward returns one value twice when it is both a result and a saved
    value (`return %loss, %loss`). Each result becomes an out-param of its
    own, and upstream's hoisting replaces an allocation by the first
    out-param only, so every repeat of a value in a `func.return` is
    replaced by a fresh allocation (`memref.alloc` of the same type) and a
    `memref.copy` of the value into it. Returns that repeat nothing are
    left as they are. A public function also gets `trace.inputs`, its number of
    arguments: those that follow them after `buffer-results-to-out-params`
    are its out-parameters (`trace-resident-report` reads it).
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect"];
}

def TraceResultViewsInPlacePass
    : Pass<"trace-result-views-in-place", "func::FuncOp"> {
  let summary = "Compute a result returned as a reshape of an allocation straight in its out-param";
  let description = [{
    On buffers, after `buffer-results-to-out-params{hoist-static-allocs}`.
    Upstream's hoisting replaces an allocation that is returned as it is by
    the out-param, and copies every other result in. A training step often
    returns a reshape of an allocation (a matmul's 256x512 output saved as
    the 4x64x512 activation), and that copy kept the allocation and its
    copy live together at the end of @f_fwd.

    For a `memref.copy %view, %out` where `%out` is a block argument with
    no other use and `%view` is a chain of `memref.expand_shape` /
    `memref.collapse_shape` ops from a `memref.alloc` of the same block,
    with identity layouts throughout, every use of the chain before the
    copy, and only copies and the return after it (as
    buffer-results-to-out-params leaves them), the allocation becomes the
    inverse reshapes of `%out` and the copy goes. An allocation that two such copies read is left alone.

    The chain may be empty: an allocation copied into an out-param as it
    is. Upstream hoists those, but not one it creates itself at a call of
    a function whose results it turned into out-params (a layer's
    function, `trace-outline-repeats`), when the caller returns the
    result: a layer's weight gradients were computed in the arena and
    copied out.
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect"];
}

def TraceFreeDonatedPass : Pass<"trace-free-donated", "func::FuncOp"> {
  let summary = "Free each donated argument buffer (trace.donated) after its last use";
  let description = [{
    On buffers, after deallocation and before `trace-early-dealloc`. A
    memref argument marked `trace.donated` is owned by the function (the C
    API's saved values passed to @f_bwd): a `memref.dealloc` of it goes
    before every return, and `trace-early-dealloc` then moves it to just
    after the last use of the buffer or of any view of it, so a saved
    activation is freed as soon as the backward has read it, as eager
    PyTorch frees a saved tensor. The attribute is removed.
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect"];
}

def TraceSplitDeallocsPass : Pass<"trace-split-deallocs", "func::FuncOp"> {
  let summary = "Split bufferization.dealloc ops per fresh allocation, in linear time";
  let description = [{
    On buffers, between `ownership-based-buffer-deallocation` and
    `buffer-deallocation-simplification`. Ownership-based deallocation puts
    one `bufferization.dealloc` of every buffer of a block before its
    terminator: in a training step, thousands of memrefs, retaining
    hundreds of results. The upstream simplification splits it by asking
    `BufferOriginAnalysis` about every pair of memrefs and every memref
    against every retained value, which is quadratic and took seconds at
    24 GPT layers. This pass makes the same split from one origin per
    value (the source through view-like ops): a memref whose origin is an
    allocation that no other memref of the dealloc shares gets a dealloc of
    its own, retaining only the retained values whose origin is that
    allocation or unknown (a retained function argument cannot alias a
    fresh allocation). Memrefs of shared origin, and arguments, stay in one
    dealloc with every retained value; a dealloc with a memref of unknown
    origin (which may alias any allocation) is left whole. Each retained value's updated
    condition becomes the disjunction of those of the deallocs that retain
    it (`false` when none does). The upstream simplification then runs on
    small deallocs only.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
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

def TracePlanBuffersPass : Pass<"trace-plan-buffers", "ModuleOp"> {
  let summary = "Place a function's temporary buffers in one arena by liveness";
  let description = [{
    After `trace-early-dealloc`: each `memref.alloc` of the function's
    single block with a static shape and identity layout whose buffer a
    `memref.dealloc` of the same block frees becomes a `memref.view` into
    one `memref<N x i8>` arena, allocated (on a page: its pages are the
    kernel's) at the start of the function and freed before its return; the buffer's deallocation
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

    Functions are planned callees first. A private function that only
    `func.call` ops use (a layer's function, `trace-outline-repeats`)
    takes its arena as a last argument instead; each call gets a buffer
    for it, allocated just before the call and freed just after, which the
    caller's plan then places among its own temporaries. One plan covers
    the step and its layers: with an arena each, the backward's peak was
    its own arena plus a layer's.

    With `release-pages`, pages of a top-level function's arena that no
    later op touches are handed back while it runs: after the op that frees
    the last buffer on a page, in batches of at least 256 KiB or a
    sixteenth of the arena, by a call of the CPU runtime's
    `trace_rt_release_pages(arena, offset, bytes)` (`madvise(MADV_DONTNEED)`
    of the whole pages inside the range). An arena's resident pages would
    otherwise stay until the function returns, however few buffers are
    still live: at the end of a backward, the gradients are all written
    while the arena still holds every page the layers touched. (A page
    that dies is not touched again in the call; the next call faults it
    in again, which `trace-prune-releases` weighs.)

    With `release-between-lifetimes` as well, a page also goes back
    between two of its lifetimes (the buffers on it, merged where their
    lifetimes overlap or follow one another with no op between): the
    buffer that takes it again writes before it reads. Batches are then
    of at least 64 KiB, and a page a lifetime takes again before its
    batch goes is left out of it. The peak then reaches the live peak
    `trace-resident-report` computes, at the cost of the faults or
    populates of the pages that come back: `bench/step_time.py` measures
    a lower peak but a slower step (docs/Benchmarks.md, "Pages released
    between lifetimes"), so it is off by default.

    With `populate-pages`, each run of at least two pages that an op is
    the first to touch in one of their lifetimes (the first op that uses
    the buffers on them, not a view of them; with
    `release-between-lifetimes`, every lifetime, since a release may have
    gone between) is made resident
    just before that op by one call of
    `trace_rt_populate_pages(arena, offset, bytes)`
    (`madvise(MADV_POPULATE_WRITE)` of the whole pages inside the range),
    and in a public function each out-parameter (an argument after its
    `trace.inputs` first ones) and each allocation left outside the arena
    by one call of `trace_rt_populate_buffer(address, bytes)` before its
    first use. A buffer's pages then become resident all at once where
    its first op may have touched only part of them, as
    `trace-resident-report` counts them anyway. Populating a run of pages
    in one call costs a small fraction of faulting them in one by one.

    MLIR has no such planner upstream (`promote-buffers-to-stack` moves
    small buffers to the stack, one by one).
  }];
  let options = [
    Option<"print", "print", "bool", /*default=*/"false",
           "Report each planned function's arena size and live peak">,
    Option<"releasePages", "release-pages", "bool", /*default=*/"false",
           "Hand the arena's pages back as they die "
           "(trace_rt_release_pages, the CPU runtime)">,
    Option<"releaseBetween", "release-between-lifetimes", "bool",
           /*default=*/"false",
           "With release-pages, also hand a page back between two of its "
           "lifetimes, for the buffer that takes it again to fault in">,
    Option<"populatePages", "populate-pages", "bool", /*default=*/"false",
           "Make the pages each op touches first, and each out-parameter, "
           "resident in one call before it (trace_rt_populate_pages and "
           "trace_rt_populate_buffer, the CPU runtime)">,
  ];
}

def TracePruneReleasesPass : Pass<"trace-prune-releases", "ModuleOp"> {
  let summary = "Keep only the page releases that lower a function's peak";
  let description = [{
    After `trace-plan-buffers` with `release-pages`: each public function's
    `trace_rt_release_pages` calls are weighed latest first, against
    `trace-resident-report`'s simulation of the function with all of
    them. A release goes when, without it (and without those already
    dropped), no later step would rise above the function's peak, its
    pages counted as still resident until an op makes them resident again
    (a later buffer on them) or the arena goes; the others stay. So a
    release after the peak mostly goes (one that keeps a later callee's
    peak down stays), and one before it goes when what follows stays low
    enough. Then each `trace_rt_populate_pages` call that makes no page
    resident (a later lifetime of pages whose release went) goes too.

    A page handed back is not free: the next step touches it again and
    faults (the heap gives the arena the same addresses), and on a small
    VM a fault costs microseconds. On the 4-layer GPT of
    `bench/step_time.py` the releases cost 8099 faults a step.

    A function the simulation does not model (more than one block, a
    recursive call, an allocation of unknown size or inside a region)
    keeps every release, and so does a public function another function
    of the module calls (its peak is part of its caller's). `print`
    reports, per function, how many releases and bytes were kept and how
    many populates went.
  }];
  let options = [
    Option<"print", "print", "bool", /*default=*/"false",
           "Report each function's kept releases as a remark">,
  ];
}

def TraceResidentReportPass : Pass<"trace-resident-report", "ModuleOp"> {
  let summary = "Predict what each public function makes resident, from "
                "its planned buffers";
  let description = [{
    After `trace-plan-buffers`: a simulation, op by op in the order of
    each public function's one block, of the bytes its buffers make
    resident above what was resident at its entry. It is what the compiled
    step does, read off the IR that runs, where `trace-memory-report`
    models the trace ops before bufferization and fusion:

    - the arena's pages become resident when a view of them is first
      used or a `trace_rt_populate_pages` call names them (every page the
      range touches), and go at a `trace_rt_release_pages` call (whole
      pages inside the range) or at the arena's dealloc;
    - each other allocation from its first use to its dealloc; one the
      function returns (the saved values of `@f_fwd`) stays;
    - an out-parameter (an argument after the function's `trace.inputs`
      first ones, as `buffer-results-to-out-params` appends them: the
      caller's fresh buffer) when it is first used, and stays;
    - a donated argument (one the function deallocates,
      `trace-free-donated`) is resident at the entry and goes at its
      dealloc;
    - a call of a function of the module adds the callee's own peak (its
      arguments are the caller's) for the length of the call;
    - a `trace_rt_populate_buffer` call touches the buffer whose pointer
      it takes.

    A function with more than one block, a recursive call, an allocation
    of unknown size or one inside a region (a loop's body) is "not
    modelled", and the remark and JSON say why.

    Next to the peak, two figures say what a better plan could gain:

    - the donated bytes freed before the peak: where it is 0, every
      saved value is still to be read when the peak comes;
    - the live peak: at each op, what is resident less the arena's
      resident pages that hold no live buffer (a buffer cut from the
      arena is live from the first op that touches it to its last use,
      through views and casts), with a callee's live peak on top during
      its call; the most of it over the function. Every other resident
      byte counts as live (a donated value until its free at its last
      read, an out-parameter once written, an allocation until its
      free). It is the peak if each arena page were resident only while
      a buffer on it is live: no placement with these buffers' page
      footprints, in this op order (a layer's call as one op), does
      better, one arena shared by the saved values and the backward's
      temporaries included; packing them tighter gains at most about a
      page per live buffer. The gap between the peak and the live peak is
      what page releases and placement leave on the table. Where a view
      of the arena is at an unknown offset, of size 0, or yielded from a
      region, every resident page counts as live.

    Memory is counted as glibc gives it with `MALLOC_MMAP_THRESHOLD_=65536`
    (what `bench/step_time.py` measures the peak with): a block of 64 KiB
    or more is its own mapping, resident by whole pages as it is touched
    and returned on free; a smaller one counts its bytes. Any op that
    touches a buffer touches all of it. Inputs were resident before the
    call (without `trace.inputs`, every argument not donated is an input).

    `print` emits each function's figures as a remark; `output` writes
    them as JSON (`trace-compile` puts them in `memory-report.json` and
    its table, and adds the step's peak: the larger of `@f_fwd`'s peak
    and what it holds plus `@f_bwd`'s, and its live peak, the same sum of
    live peaks). The pass then removes
    `trace.inputs`, which has no meaning further down; the CPU pipeline
    always runs it, so that the attribute does not reach LLVM.
  }];
  let options = [
    Option<"print", "print", "bool", /*default=*/"false",
           "Report each public function's predicted peak as a remark">,
    Option<"output", "output", "std::string", /*default=*/"\"\"",
           "Write the figures as JSON to this file">,
  ];
}

#endif // TRACE_CODEGEN_COMMON_PASSES_TD
