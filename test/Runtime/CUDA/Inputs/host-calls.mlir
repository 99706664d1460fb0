// Host code trace-gpu-pipeline emits: allocations, frees, a constant copied
// to the device, kernel launches (module load, function lookup, launch at
// translation), one stream per call, and matmuls on cuBLAS.
func.func @softmax_scaled(%x: tensor<4x64xf32>) -> tensor<4x64xf32> {
  %c = trace.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %cb = trace.broadcast_in_dim %c, dims = [0] : tensor<4xf32> -> tensor<4x64xf32>
  %y = trace.mul %x, %cb : tensor<4x64xf32>
  %m = trace.reduce_max %y dims = [1] keepdim : tensor<4x64xf32> -> tensor<4x1xf32>
  %mb = trace.broadcast_in_dim %m, dims = [0, 1] : tensor<4x1xf32> -> tensor<4x64xf32>
  %d = trace.sub %y, %mb : tensor<4x64xf32>
  %e = trace.exp %d : tensor<4x64xf32>
  %s = trace.reduce_sum %e dims = [1] keepdim : tensor<4x64xf32> -> tensor<4x1xf32>
  %sb = trace.broadcast_in_dim %s, dims = [0, 1] : tensor<4x1xf32> -> tensor<4x64xf32>
  %r = trace.div %e, %sb : tensor<4x64xf32>
  return %r : tensor<4x64xf32>
}

// Matmuls: calls of the runtime's cuBLAS gemm (2-D, batched; f32, f64).
func.func @matmuls(%a: tensor<8x4xf32>, %b: tensor<4x6xf32>,
                   %q: tensor<2x8x4xf64>, %k: tensor<2x4x8xf64>)
    -> (tensor<8x6xf32>, tensor<2x8x8xf64>) {
  %ab = trace.matmul %a, %b : tensor<8x4xf32>, tensor<4x6xf32> -> tensor<8x6xf32>
  %qk = trace.matmul %q, %k : tensor<2x8x4xf64>, tensor<2x4x8xf64> -> tensor<2x8x8xf64>
  return %ab, %qk : tensor<8x6xf32>, tensor<2x8x8xf64>
}
