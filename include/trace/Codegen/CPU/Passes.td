//===- Passes.td - passes of the CPU backend ---------------*- tablegen -*-===//
//
// The CPU backend's own steps: vectorizable math and reductions, and GPU
// kernels run as loops (a check of the GPU lowering without a GPU).
//
//===----------------------------------------------------------------------===//

#ifndef TRACE_CODEGEN_CPU_PASSES_TD
#define TRACE_CODEGEN_CPU_PASSES_TD

include "mlir/Pass/PassBase.td"

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

def TraceGPULaunchesOnCPUPass : Pass<"trace-gpu-launches-on-cpu", "func::FuncOp"> {
  let summary = "Run each gpu.launch's blocks and threads as loops on the CPU";
  let description = [{
    A test aid: with it, `trace-cpu-pipeline{gpu-kernels}` (and
    `trace-run --gpu-kernels`) executes the kernels trace-gpu-pipeline
    forms (trace-gpu-map-linalg's grids, guards and block reductions) on a
    machine without a GPU, so their results can be compared with the plain
    CPU pipeline's. Upstream MLIR has no CPU lowering of `gpu.launch`.

    Each launch becomes loops over its blocks (z, y, x) and, in each block,
    over its threads. A barrier at the body's top level (`gpu.barrier`, or
    the one inside `gpu.all_reduce`) splits the body into phases; every
    thread of a block runs a phase before any thread runs the next. A value
    one phase defines and a later one reads is kept per thread in a buffer
    (constants are cloned instead). An all-reduce folds its operands over
    the block's threads in thread order (the GPU's order is a tree, so sums
    can differ in rounding). A barrier nested in a loop or branch, a
    reduction with a region, async tokens, clusters and memory attributions
    are errors at the op.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
  ];
}

def TraceOutlineKernelsPass : Pass<"trace-outline-kernels", "ModuleOp"> {
  let summary = "Give each loop nest a function of its own, one per distinct body";
  let description = [{
    The CPU analogue of GPU kernel outlining, run on buffers before
    `convert-linalg-to-loops`: every linalg op left in a function (a fused
    elementwise nest, a reduction, a fill, a copy; BLAS calls are calls
    already) moves into a private `func.func @trace_kernel_<hash>` that
    takes the op's buffers, and any other values it reads, as arguments.
    Constants the op reads are cloned into the kernel, so LLVM still sees
    them. The host function keeps a `func.call` per nest.

    Two nests whose kernels print the same (the same ops, types and
    attributes, up to the buffers they are given) share one kernel: every
    layer of a repeated block calls the same functions, so LLVM optimizes
    and the code generator emits each body once, however deep the model.
    The name is a hash of the body, so the same kernel has the same name in
    every module (`trace-compile --cache-dir` keys its object cache on it).

    Kernels carry LLVM's `noinline`: inlined back, they would make one
    function of the whole step again, whose loop passes grow faster than
    linearly with its size (the reason for this pass: without it a deep
    model's step spends minutes in LLVM).
  }];
  let options = [
    Option<"dedupe", "dedupe", "bool", /*default=*/"true",
           "Let nests with identical bodies share one kernel">,
  ];
  let dependentDialects = ["::mlir::func::FuncDialect"];
}

def TraceVectorizeReductionsPass : Pass<"trace-vectorize-reductions"> {
  let summary = "Reduce the trailing, contiguous dims of a linalg.reduce or row-reduction generic in vector registers";
  let description = [{
    `convert-linalg-to-loops` lowers a reduction to a loop that loads and
    stores its accumulator in the output buffer at every element, and adds
    in order: LLVM can neither keep the accumulator in a register (the
    output may alias the input, as far as it knows) nor vectorize the
    additions (floating-point addition is not associative). A row sum of
    softmax then runs one scalar add, store and load per element.

    This pass rewrites a `linalg.reduce` on buffers whose reduced dims are
    the input's trailing dims (each output element reduces one contiguous
    row) and whose body is one combining op (`arith.addf`, `mulf`,
    `maximumf`, `minimumf`, `maxnumf`, `minnumf`, or an integer add, mul,
    min, max, and, or, xor): per row, a vector accumulator of one
    register's width (512 bits) is folded over the row, then reduced to
    one element with `vector.reduction`, the output's old value its start,
    then any remainder is folded in order. The rows are an `scf.parallel`,
    for `trace-parallel-loops` to give a thread team. Rows shorter than a register,
    dynamic shapes, strided layouts and other bodies are left to the loops.

    It also rewrites the row reductions
    `trace-fuse-elementwise-linalg{into-reductions}` leaves: a
    `linalg.generic` whose leading loops are parallel and the rest
    reductions, whose output is indexed by the parallel loops, whose
    inputs (static, contiguous, of whole bytes) are read at every point or
    once per row (the kept dims, and 0 for dims of size 1), and whose
    payload is arith and math ops ending in one combine with the
    accumulator. The payload runs on vectors (per-row values and
    constants broadcast), the remainder on scalars: softmax's
    `sum(exp(x - max))` in one pass, nothing stored.

    Floating-point sums are then summed in another order than the loops'
    (lanes, then a tree when `convert-vector-to-llvm` reassociates), as
    PyTorch's vectorized kernels and XLA's CPU backend do: results differ in
    rounding, not in value. Integer and min/max results are exact.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::vector::VectorDialect"];
}

def TraceParallelLoopsPass : Pass<"trace-parallel-loops", "func::FuncOp"> {
  let summary = "Keep the outermost scf.parallel of each nest that is worth a thread team; run the others in order";
  let description = [{
    Run after `convert-linalg-to-parallel-loops` and before
    `convert-scf-to-openmp`, which turns every `scf.parallel` left into an
    OpenMP team. Forking a team costs microseconds, so only a loop with
    enough work should: this pass keeps an `scf.parallel` that is not
    inside a kept one, has at least 2 iterations, and whose work, its
    iterations times the ops its body runs (nested loops with static trip
    counts multiply their bodies'; a dynamic bound counts as enough), is
    at least `min-work`. Every other `scf.parallel` (a small one, or one
    inside a kept one) becomes nested `scf.for`s, running in the order
    the loop lists its iterations.

    A kept loop keeps only its leading dims parallel, the fewest with 64
    iterations but never the innermost of several (a loop of one dim
    keeps it): the others become `scf.for`s
    inside it, so the innermost dim stays a loop LLVM vectorizes rather
    than part of one collapsed index.

    A kept loop's iterations run on the team's threads, each output
    element computed by one thread in the order the sequential loop
    would: the results are bitwise those of one thread. A loop with
    reductions (`scf.reduce` with operands) always runs in order, its
    reductions the `scf.for`s' iteration arguments, combined in iteration
    order: a team would combine partial results in no fixed order.
  }];
  let options = [
    Option<"minWork", "min-work", "int64_t", /*default=*/"16384",
           "The least work (iterations times body ops) a loop needs to "
           "run on a thread team">,
  ];
  let dependentDialects = ["::mlir::scf::SCFDialect"];
}

def TraceCopyKernelsPass : Pass<"trace-copy-kernels", "func::FuncOp"> {
  let summary = "Make each strided memref.copy of static shape a linalg.copy, a loop nest like the others";
  let description = [{
    A `memref.copy` from or to a strided buffer (a slice of a
    concatenation's buffer: the gradients of q, k and v written into
    qkv's) lowers to a call of MLIR's `memrefCopy`, which copies one
    element at a time, with the index arithmetic of any rank per element,
    on the calling thread. As a `linalg.copy` it becomes a loop nest like
    every other: a kernel of its own (`trace-outline-kernels`), vectorized
    by LLVM, and on the thread team when it is large enough
    (`trace-parallel-loops`). A copy between two contiguous buffers stays
    `memref.copy`, which lowers to one `memcpy`; so does one of dynamic
    shape.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

#endif // TRACE_CODEGEN_CPU_PASSES_TD
