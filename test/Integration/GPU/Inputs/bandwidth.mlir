// The GPU check's bandwidth probe: one elementwise kernel over 8192 x 8192
// f32 (two 256 MB inputs read, one 256 MB result written per call), large
// enough that the call's fixed costs (allocation, launch, synchronization)
// are small beside the memory traffic. scripts/build-gpu-check.sh builds it
// with vector loads (bandwidth) and without (bandwidth_scalar).
func.func @scale_add(%x: tensor<8192x8192xf32>, %y: tensor<8192x8192xf32>) -> tensor<8192x8192xf32> {
  %half = trace.full 0.5 : tensor<8192x8192xf32>
  %a = trace.mul %x, %half : tensor<8192x8192xf32>
  %b = trace.add %a, %y : tensor<8192x8192xf32>
  return %b : tensor<8192x8192xf32>
}
