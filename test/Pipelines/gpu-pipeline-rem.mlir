// trace.rem (fmod, floor division, remainder) in a kernel. The host's
// arith-to-llvm leaves kernels alone, so convert-gpu-to-nvvm lowers
// arith.remf to libdevice's exact fmod; a module-wide arith-to-llvm made
// it llvm.frem first, which the NVVM conversion refuses.
// RUN: trace-opt %s --trace-gpu-pipeline | FileCheck %s
// RUN: trace-opt %s --trace-gpu-pipeline="format=isa" | FileCheck %s

// CHECK: llvm.func @f(
// CHECK: gpu.launch_func {{.*}}@f_kernel::@f_kernel
// CHECK: gpu.binary @f_kernel
func.func @f(%a: tensor<64xf32>, %b: tensor<64xf32>) -> tensor<64xf32> {
  %r = trace.rem %a, %b : tensor<64xf32>
  return %r : tensor<64xf32>
}
