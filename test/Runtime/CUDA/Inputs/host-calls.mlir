// Host code trace-gpu-pipeline emits: allocations, frees, a constant copied
// to the device, kernel launches (module load, function lookup, launch at
// translation), one stream per call.
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
