//===- Passes.td - passes of the GPU backend ---------------*- tablegen -*-===//
//
// The two steps of trace-gpu-pipeline that upstream MLIR does not provide:
// mapping loop nests onto a 1-D grid, and moving host allocations to the
// device. Everything else in the pipeline is upstream.
//
//===----------------------------------------------------------------------===//

#ifndef TRACE_CODEGEN_GPU_PASSES_TD
#define TRACE_CODEGEN_GPU_PASSES_TD

include "mlir/Pass/PassBase.td"

def TraceGPUMapLinalgPass : Pass<"trace-gpu-map-linalg", "func::FuncOp"> {
  let summary = "Lower linalg ops on buffers to scf.parallel loops mapped to GPU blocks and threads";
  let description = [{
    Prepares every linalg op of a host function (on buffers, after
    bufferization) to become one GPU kernel through upstream's
    `convert-parallel-loops-to-gpu`:

    * `memref.copy` becomes `linalg.copy`, so copies are kernels too (a host
      `memcpy` cannot read device memory);
    * an op whose iterators do not start with all its parallel dims is
      generalized and interchanged so that they do (a reduction over a
      leading dim would otherwise lower to a host loop around a kernel);
    * an op without parallel dims (a full reduction, a rank-0 fill) is
      wrapped in a one-iteration `scf.parallel`, so no loads or stores stay
      on the host;
    * a reduction over at least 32 elements (static shapes, not a
      contraction, each accumulator updated by one combiner that
      `gpu.all_reduce` has on a 32- or 64-bit value, possibly after a
      folded fill's first-iteration select) becomes one `gpu.launch` of one
      block per output element (`block-reductions`): its threads (a
      multiple of 32, at most block-size and at most the reduced extent)
      fold the elements tid, tid + threads, ..., outputs written at every
      point are stored on the way, `gpu.all_reduce` combines the partials
      (convert-gpu-to-nvvm lowers it to warp shuffles and a shared-memory
      exchange), and thread 0 stores start (+) total;
    * an all-parallel op whose outputs (and any inputs read with the same
      identity map) are dense gives each iteration W consecutive elements,
      W = 16 bytes / the widest such element (`vectorize`): one vector load
      per dense operand and one vector store per output when those buffers
      are 16-byte aligned at run time (a C API caller may pass any device
      pointer), element by element otherwise; other operands are loaded
      per element; the element count must be a multiple of W and at least
      32 W; the loop is then mapped like the others;
    * every other op becomes an `scf.parallel` nest
      (`linalg::linalgOpToParallelLoops`); reduction dims are `scf.for`
      loops inside it, run by one thread per output element;
    * each outermost `scf.parallel` is collapsed to one dim of N iterations
      and mapped: N <= block-size is one block of N threads; N up to
      block-size x max-blocks is tiled by block-size (a guard for the last
      tile) into blocks (x) of block-size threads (x); beyond, max-blocks
      blocks of block-size threads each loop over iterations tid, tid +
      block-size x max-blocks, ... (a grid-stride loop).

    Upstream's `scf-parallel-loop-tiling` + `gpu-map-parallel-loops` is not
    used: the tiling takes one list of tile sizes for every loop in the
    function, whatever its rank and extent, and the mapper gives each of at
    most three dims its own grid dim, so a 1-D loop tiled by [1, 256] runs
    one thread per block and a 4-D loop runs its fourth dim sequentially.
  }];
  let dependentDialects = [
    "::mlir::gpu::GPUDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::arith::ArithDialect",
    "::mlir::affine::AffineDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::vector::VectorDialect",
  ];
  let options = [
    Option<"blockSize", "block-size", "int64_t", "256",
           "Threads per block of the kernels' 1-D grid">,
    Option<"blockReductions", "block-reductions", "bool", "true",
           "Reduce over at least 32 elements with one block per output "
           "element (warp shuffles and shared memory) instead of one thread">,
    Option<"maxBlocks", "max-blocks", "int64_t", "4096",
           "Most blocks of an elementwise kernel's grid; beyond, each "
           "thread loops over the iterations (a grid-stride loop)">,
    Option<"vectorize", "vectorize", "bool", "true",
           "Give each thread of an elementwise kernel 16 bytes of each dense "
           "operand, read and written with vector loads and stores">,
  ];
}

def TraceGPUDeviceMemoryPass : Pass<"trace-gpu-device-memory", "ModuleOp"> {
  let summary = "Allocate host functions' buffers on the GPU";
  let description = [{
    After the loop nests became `gpu.launch` ops, every buffer a host
    function allocates is read and written by kernels only, so
    `memref.alloc` becomes `gpu.alloc` and `memref.dealloc` `gpu.dealloc`
    (made asynchronous on one stream later by `gpu-async-region`). A
    `memref.get_global` (a constant tensor) is copied into a device buffer
    with `gpu.memcpy` where it is read, and freed before each return.
    Arguments, results included (buffer-results-to-out-params made each
    result a trailing argument the function writes), must be device
    buffers; the caller owns them but for donated arguments, whose
    `memref.dealloc` (trace-free-donated) becomes a `gpu.dealloc` too.

    Host scalar code that reads a buffer (trace-to-linalg reads a random
    op's seed with `tensor.extract` outside the `linalg.generic`) moves into
    each kernel that uses its results, together with the integer and float
    ops on it: every thread reads the element. A load moves only from a
    function argument the function never writes or frees (an input, not a
    result's buffer or a donated argument) or past ops that write or free
    no memory.

    The pass fails, at the op, if host code outside `gpu.launch` still reads
    or writes a buffer (`memref.load`, `memref.store`, `memref.copy`), since
    that would dereference a device pointer on the host.
  }];
  let dependentDialects = [
    "::mlir::gpu::GPUDialect",
    "::mlir::memref::MemRefDialect",
  ];
}

def TraceDedupeGPUKernelsPass : Pass<"trace-dedupe-gpu-kernels", "ModuleOp"> {
  let summary = "Keep one gpu.module per distinct kernel body";
  let description = [{
    Runs after `gpu-kernel-outlining`, which makes a `gpu.module` of every
    launch. Two modules whose kernels are the same (the same ops, types
    and attributes; the names aside) are one kernel: every launch of the
    second launches the first, and the second is erased. Every layer of a
    repeated block launches the same kernels, so the PTX holds each body
    once and the NVPTX back end compiles it once, however deep the model.
    Upstream's outlining dedupes nothing: it names a module after its
    launch.
  }];
}

def TraceGPUAsyncRegionPass : Pass<"trace-gpu-async-region", "ModuleOp"> {
  let summary = "Upstream gpu-async-region, with calls of layers' functions on the caller's stream";
  let description = [{
    Runs upstream's `gpu-async-region` on every function: the GPU ops of a
    block are chained on one stream, and the host waits for it before each
    host op with side effects and before the return. A `func.call` is such
    an op, so each call of a layer's function (`trace-outline-repeats`)
    would wait for the GPU, and the callee would queue its work on a
    stream of its own and wait for that before returning.

    First, a call becomes `trace_gpu.call`, a GPU async op, where its
    callee only queues GPU work: private, one block, no results, every op
    without regions and either a GPU async op without dependencies (not
    `gpu.wait`) or free of memory effects, and every use of it a
    `func.call`. (The callee of a `trace_gpu.call` already in the input is
    taken to be on its caller's stream too.) The callee takes the stream as a new first
    argument (`!llvm.ptr`). This repeats, so a function that calls only such
    functions qualifies too. Then `gpu-async-region` runs, and in each such
    callee the stream it created is the argument and its wait before the
    return is gone. The whole step is one chain on one stream, with one
    host wait at its end.

    A function that does other host work (a host-side read, say) keeps its
    `func.call` and upstream's waits.
  }];
  let dependentDialects = [
    "::mlir::async::AsyncDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::LLVM::LLVMDialect",
    "::mlir::trace_gpu::TraceGPUDialect",
  ];
}

#endif // TRACE_CODEGEN_GPU_PASSES_TD
