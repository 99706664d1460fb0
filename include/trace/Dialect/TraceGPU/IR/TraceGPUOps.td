//===- TraceGPUOps.td - host-side GPU library calls --------*- tablegen -*-===//
//
// The trace_gpu dialect holds what the GPU pipeline's host code calls
// besides kernels: library calls that run on the device and are ordered
// with the kernels on the same stream, through `!gpu.async.token`s as
// upstream's gpu.alloc, gpu.memcpy and gpu.launch_func are.
//
//===----------------------------------------------------------------------===//

#ifndef TRACE_GPU_OPS
#define TRACE_GPU_OPS

include "mlir/Dialect/GPU/IR/GPUBase.td"
include "mlir/IR/OpBase.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def TraceGPU_Dialect : Dialect {
  let name = "trace_gpu";
  let cppNamespace = "::mlir::trace_gpu";
  let summary = "GPU library calls in host code, ordered on a stream";
  let description = [{
    Ops of the GPU pipeline's host code that call a library on the device
    (cuBLAS), written as GPU async ops: `gpu-async-region` threads a
    `!gpu.async.token` through them as through kernel launches, and
    `gpu-to-llvm` lowers each to a runtime call on the token's stream, so a
    library call needs no host synchronization before or after it.
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect"];
}

def TraceGPU_GemmOp : Op<TraceGPU_Dialect, "gemm", [GPU_AsyncOpInterface]> {
  let summary = "C = A B + beta C on device memory, on a stream (cuBLAS)";
  let description = [{
    A matmul (rank 2) or a batch of matmuls (rank 3) on device buffers:
    `C = A B + beta C`, or `C[i] = A[i] B[i] + beta C[i]`. A and B may be
    row-major or column-major strided views (a transposed operand is a
    `memref.transpose` view, read in place); C is row-major. With beta 0, C
    is not read.

    The op is always asynchronous: it runs after its async dependencies on
    their stream and its token says when C is written. `gpu-async-region`
    gives it its one dependency, and `gpu-to-llvm` (through this dialect's
    convert-to-LLVM interface) lowers it to a call of the CUDA runtime's
    `trace_cuda_{batch_,}matmul_{f32,f64}(A, B, C, beta, stream)`, which
    queues the gemm on that stream. Without exactly one dependency the op
    does not lower.

    ```mlir
    %t1 = trace_gpu.gemm [%t0] %a, %b, %c beta = 0.0
        : memref<8x4xf32>, memref<4x6xf32>, memref<8x6xf32>
    ```

    trace-linalg-to-blas{runtime=cuda} creates it from linalg.matmul and
    linalg.batch_matmul.
  }];
  let arguments = (ins
    Variadic<GPU_AsyncToken>:$asyncDependencies,
    Arg<StridedMemRefRankOf<[F32, F64], [2, 3]>, "A", [MemRead]>:$a,
    Arg<StridedMemRefRankOf<[F32, F64], [2, 3]>, "B", [MemRead]>:$b,
    Arg<StridedMemRefRankOf<[F32, F64], [2, 3]>, "C", [MemRead, MemWrite]>:$c,
    F64Attr:$beta);
  let results = (outs GPU_AsyncToken:$asyncToken);
  let assemblyFormat = [{
    (` ` `[` $asyncDependencies^ `]`)? $a `,` $b `,` $c `beta` `=` $beta attr-dict
    `:` type($a) `,` type($b) `,` type($c)
  }];
  let hasVerifier = 1;
}

def TraceGPU_CallOp : Op<TraceGPU_Dialect, "call", [
    GPU_AsyncOpInterface, AttrSizedOperandSegments,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "Call a host function that queues GPU work on the caller's stream";
  let description = [{
    Calls a host function whose body only queues work on a stream (kernel
    launches, gemms, device allocations and frees, calls like this one) and
    returns nothing. The callee takes the stream as its first argument,
    an `!llvm.ptr`, followed by the operands. So the call is a GPU async op
    like a launch: it runs after its async dependencies, and its token
    says when the callee's work is done, with no host wait before or after
    it. Upstream's func.call is a host op: `gpu-async-region` waits for the
    GPU before each one.

    `trace-gpu-async-region` makes calls of such functions this op, and
    `gpu-to-llvm` (through this dialect's convert-to-LLVM interface) lowers
    it to an `llvm.call` of the callee with the dependency's stream first
    and the operands as `func-to-llvm` passes them; its token is that
    stream. Without exactly one dependency the op does not lower.

    ```mlir
    %t1 = trace_gpu.call [%t0] @layer(%x, %w) : memref<8x4xf32>, memref<4x4xf32>
    // func.func private @layer(%stream: !llvm.ptr, %x: memref<8x4xf32>,
    //                          %w: memref<4x4xf32>)
    ```
  }];
  let arguments = (ins
    Variadic<GPU_AsyncToken>:$asyncDependencies,
    FlatSymbolRefAttr:$callee,
    Variadic<AnyType>:$args);
  let results = (outs GPU_AsyncToken:$asyncToken);
  let assemblyFormat = [{
    (` ` `[` $asyncDependencies^ `]`)? $callee `(` $args `)` attr-dict
    (`:` type($args)^)?
  }];
}

#endif // TRACE_GPU_OPS
