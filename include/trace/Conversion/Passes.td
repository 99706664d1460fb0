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
    * `convolution` pads and dilates its input (a zero fill and a strided
      `tensor.insert_slice`, a `tensor.extract_slice` to crop), splits the
      channels into groups (`tensor.expand_shape`), then is one
      `linalg.generic` over (n, g, o, spatial..., c, window...), or with
      `convolutions=im2col` an im2col `linalg.generic` copy and a
      `linalg.matmul` (`batch_matmul` over the groups); `reverse` is a
      `linalg.generic` copy counting the reversed dims down;
    * `gather` is a `linalg.generic` over the result that reads the operand
      with `tensor.extract` at the clamped index; `scatter_add` a nest of
      `scf.for` loops over the indices, each a `tensor.extract` and a
      `tensor.insert`, or with `scatters=dense` one `linalg.generic` that
      reduces over the indexed dim; `stop_gradient` is its operand;
    * `random_uniform` is Philox4x32-10 written out in arith ops, bit for bit
      the definition in `trace/Support/Philox.h`;
    * `trace.forward_end` is erased;
    * `trace.checkpoint` and `trace.fusion` regions are inlined; with
      `keep-fusions`, `trace.fusion` regions stay, their bodies converted,
      for `trace-lower-fusions` to make one kernel of each.
    * `trace.optimization_barrier` is replaced by its operand; with
      `keep-barriers` it stays, for `trace-erase-barriers` after a CSE.

    Discardable `trace.*` attributes (value names) are dropped. The pass fails,
    with an error at the op, if a trace op cannot be converted or a trace
    attribute would remain.
  }];
  let options = [
    Option<"keepFusions", "keep-fusions", "bool", "false",
           "Keep trace.fusion regions (their bodies converted) instead of "
           "inlining them">,
    Option<"keepBarriers", "keep-barriers", "bool", "false",
           "Keep trace.optimization_barrier ops (for a CSE that must not "
           "undo recomputation) instead of replacing each by its operand">,
    Option<"convolutions", "convolutions",
           "::mlir::trace::ConvolutionLowering",
           "::mlir::trace::ConvolutionLowering::Direct",
           "How trace.convolution lowers: direct, im2col or auto",
           [{::llvm::cl::values(
             clEnumValN(::mlir::trace::ConvolutionLowering::Direct, "direct",
                        "one linalg.generic over the output and the window"),
             clEnumValN(::mlir::trace::ConvolutionLowering::Im2col, "im2col",
                        "an im2col copy and a linalg matmul, for a BLAS"),
             clEnumValN(::mlir::trace::ConvolutionLowering::Auto, "auto",
                        "im2col where the matmul's reduction and rows are "
                        "large enough, else direct"))}]>,
    Option<"scatters", "scatters", "::mlir::trace::ScatterLowering",
           "::mlir::trace::ScatterLowering::Loops",
           "How trace.scatter_add lowers: loops or dense",
           [{::llvm::cl::values(
             clEnumValN(::mlir::trace::ScatterLowering::Loops, "loops",
                        "scf.for loops over the indices"),
             clEnumValN(::mlir::trace::ScatterLowering::Dense, "dense",
                        "one linalg.generic reducing over the indexed dim "
                        "(for the GPU)"))}]>,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect",
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
    Option<"runtime", "runtime", "::mlir::trace::BLASRuntime",
           "::mlir::trace::BLASRuntime::CPU",
           "Whose matmuls to call: cpu or cuda",
           [{::llvm::cl::values(
             clEnumValN(::mlir::trace::BLASRuntime::CPU, "cpu",
                        "OpenBLAS, trace_rt_*"),
             clEnumValN(::mlir::trace::BLASRuntime::CUDA, "cuda",
                        "cuBLAS on device memory, trace_cuda_*"))}]>,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::func::FuncDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::trace_gpu::TraceGPUDialect"];
}

#endif // TRACE_CONVERSION_PASSES_TD
