// trace-cpu-pipeline takes the bundled example (checkpoint regions, matmuls,
// layer norms, gelu, dropout) to the LLVM dialect only, with its matmuls
// calling the runtime's BLAS; with blas=false they become loops.
// RUN: trace-opt %trace_src_root/examples/mlp_blocks.mlir --trace-cpu-pipeline | FileCheck %s --implicit-check-not=trace. --implicit-check-not=linalg. --implicit-check-not=tensor. --implicit-check-not=memref. --implicit-check-not=unrealized_conversion_cast
// RUN: trace-opt %trace_src_root/examples/mlp_blocks.mlir --trace-cpu-pipeline="blas=false" | FileCheck %s --check-prefix=LOOPS
// Loop nests with enough work run on an OpenMP team, over their leading
// dim; with threads=false, none does.
// RUN: trace-opt %trace_src_root/examples/mlp_blocks.mlir --trace-cpu-pipeline="min-parallel-work=256" | FileCheck %s --check-prefix=THREADS
// RUN: trace-opt %trace_src_root/examples/mlp_blocks.mlir --trace-cpu-pipeline="min-parallel-work=256 threads=false" | FileCheck %s --check-prefix=NOTEAM

// CHECK: llvm.func @_mlir_ciface_trace_rt_matmul_f32(!llvm.ptr, !llvm.ptr, !llvm.ptr, f32)
// CHECK: llvm.func @forward(
// CHECK-COUNT-4: llvm.call @trace_rt_matmul_f32(
// LOOPS-NOT: trace_rt_matmul
// LOOPS: llvm.func @forward(

// THREADS: llvm.func @forward(
// THREADS-COUNT-4: omp.parallel {
// THREADS-NOT: omp.parallel
// THREADS-NOT: collapse
// NOTEAM-NOT: omp.
