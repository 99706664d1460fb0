// trace_gpu.gemm's verifier: operands that cannot form a matmul, or that
// cuBLAS cannot read (known from static strides); trace_gpu.call's: a
// callee that is not a function taking the stream and the operands.
// RUN: trace-opt %s -split-input-file -verify-diagnostics -o /dev/null

func.func @k_mismatch(%a: memref<8x4xf32>, %b: memref<5x6xf32>, %c: memref<8x6xf32>) {
  // expected-error @+1 {{'trace_gpu.gemm' op has mismatched k (A's columns, B's rows): 4 vs 5}}
  %t = trace_gpu.gemm %a, %b, %c beta = 1.0 : memref<8x4xf32>, memref<5x6xf32>, memref<8x6xf32>
  return
}

// -----

func.func @m_mismatch(%a: memref<8x4xf32>, %b: memref<4x6xf32>, %c: memref<7x6xf32>) {
  // expected-error @+1 {{'trace_gpu.gemm' op has mismatched m (A's rows, C's rows): 8 vs 7}}
  %t = trace_gpu.gemm %a, %b, %c beta = 1.0 : memref<8x4xf32>, memref<4x6xf32>, memref<7x6xf32>
  return
}

// -----

func.func @n_mismatch(%a: memref<8x4xf32>, %b: memref<4x6xf32>, %c: memref<8x5xf32>) {
  // expected-error @+1 {{'trace_gpu.gemm' op has mismatched n (B's columns, C's columns): 6 vs 5}}
  %t = trace_gpu.gemm %a, %b, %c beta = 1.0 : memref<8x4xf32>, memref<4x6xf32>, memref<8x5xf32>
  return
}

// -----

func.func @batch_mismatch(%a: memref<2x8x4xf32>, %b: memref<3x4x6xf32>, %c: memref<2x8x6xf32>) {
  // expected-error @+1 {{'trace_gpu.gemm' op has mismatched the batch (B's, C's): 3 vs 2}}
  %t = trace_gpu.gemm %a, %b, %c beta = 1.0 : memref<2x8x4xf32>, memref<3x4x6xf32>, memref<2x8x6xf32>
  return
}

// -----

func.func @ranks(%a: memref<2x8x4xf32>, %b: memref<4x6xf32>, %c: memref<8x6xf32>) {
  // expected-error @+1 {{'trace_gpu.gemm' op expects A, B and C of one rank, got 3, 2 and 2}}
  %t = trace_gpu.gemm %a, %b, %c beta = 1.0 : memref<2x8x4xf32>, memref<4x6xf32>, memref<8x6xf32>
  return
}

// -----

func.func @element_types(%a: memref<8x4xf32>, %b: memref<4x6xf64>, %c: memref<8x6xf32>) {
  // expected-error @+1 {{'trace_gpu.gemm' op expects A, B and C of one element type}}
  %t = trace_gpu.gemm %a, %b, %c beta = 1.0 : memref<8x4xf32>, memref<4x6xf64>, memref<8x6xf32>
  return
}

// -----

func.func @f16(%a: memref<8x4xf16>, %b: memref<4x6xf16>, %c: memref<8x6xf16>) {
  // expected-error @+1 {{operand #0 must be 2D/3D memref of 32-bit float or 64-bit float values, but got 'memref<8x4xf16>'}}
  %t = trace_gpu.gemm %a, %b, %c beta = 1.0 : memref<8x4xf16>, memref<4x6xf16>, memref<8x6xf16>
  return
}

// -----

func.func @a_strided(%a: memref<8x4xf32, strided<[8, 2]>>, %b: memref<4x6xf32>, %c: memref<8x6xf32>) {
  // expected-error @+1 {{'trace_gpu.gemm' op needs A row- or column-major (a unit stride in one of its last two dims), got 'memref<8x4xf32, strided<[8, 2]>>'}}
  %t = trace_gpu.gemm %a, %b, %c beta = 1.0 : memref<8x4xf32, strided<[8, 2]>>, memref<4x6xf32>, memref<8x6xf32>
  return
}

// -----

func.func @c_column_major(%a: memref<8x4xf32>, %b: memref<4x6xf32>, %c: memref<8x6xf32, strided<[1, 8]>>) {
  // expected-error @+1 {{'trace_gpu.gemm' op needs C row-major (a unit stride in its last dim), got 'memref<8x6xf32, strided<[1, 8]>>'}}
  %t = trace_gpu.gemm %a, %b, %c beta = 1.0 : memref<8x4xf32>, memref<4x6xf32>, memref<8x6xf32, strided<[1, 8]>>
  return
}

// -----

func.func @call_unknown() {
  // expected-error @+1 {{'trace_gpu.call' op calls @missing, which is not a symbol of the module}}
  %t = trace_gpu.call @missing()
  return
}

// -----

memref.global "private" @g : memref<4xf32>
func.func @call_not_function() {
  // expected-error @+1 {{'trace_gpu.call' op calls @g, which is not a function}}
  %t = trace_gpu.call @g()
  return
}

// -----

func.func private @no_stream(%x: memref<4xf32>)
func.func @call_no_stream(%x: memref<4xf32>) {
  // expected-error @+1 {{'trace_gpu.call' op calls @no_stream, whose first argument is not the stream (!llvm.ptr)}}
  %t = trace_gpu.call @no_stream(%x) : memref<4xf32>
  return
}

// -----

func.func private @returns(%s: !llvm.ptr) -> index
func.func @call_returns() {
  // expected-error @+1 {{'trace_gpu.call' op calls @returns, which returns values; its work is queued on a stream and it returns nothing}}
  %t = trace_gpu.call @returns()
  return
}

// -----

func.func private @takes(%s: !llvm.ptr, %x: memref<4xf32>)
func.func @call_mismatch(%x: memref<8xf32>) {
  // expected-error @+1 {{'trace_gpu.call' op passes 'memref<8xf32>' to @takes, which takes the stream and 'memref<4xf32>'}}
  %t = trace_gpu.call @takes(%x) : memref<8xf32>
  return
}
