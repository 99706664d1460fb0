// RUN: trace-opt %s --trace-dedupe-gpu-kernels | FileCheck %s

// Three launches, as gpu-kernel-outlining leaves them: a module per launch.
// @step_kernel and @step_kernel_0 differ only in their names (two layers of
// one block) and become one; @step_kernel_1 scales by another constant and
// stays.

module attributes {gpu.container_module} {
  gpu.module @step_kernel {
    gpu.func @step_kernel(%a: memref<32xf32>) kernel {
      %i = gpu.thread_id x
      %x = memref.load %a[%i] : memref<32xf32>
      %c = arith.constant 2.0 : f32
      %y = arith.mulf %x, %c : f32
      memref.store %y, %a[%i] : memref<32xf32>
      gpu.return
    }
  }
  gpu.module @step_kernel_0 {
    gpu.func @step_kernel(%a: memref<32xf32>) kernel {
      %i = gpu.thread_id x
      %x = memref.load %a[%i] : memref<32xf32>
      %c = arith.constant 2.0 : f32
      %y = arith.mulf %x, %c : f32
      memref.store %y, %a[%i] : memref<32xf32>
      gpu.return
    }
  }
  gpu.module @step_kernel_1 {
    gpu.func @step_kernel(%a: memref<32xf32>) kernel {
      %i = gpu.thread_id x
      %x = memref.load %a[%i] : memref<32xf32>
      %c = arith.constant 3.0 : f32
      %y = arith.mulf %x, %c : f32
      memref.store %y, %a[%i] : memref<32xf32>
      gpu.return
    }
  }
  func.func @step(%a: memref<32xf32>, %b: memref<32xf32>) {
    %one = arith.constant 1 : index
    %n = arith.constant 32 : index
    gpu.launch_func @step_kernel::@step_kernel blocks in (%one, %one, %one) threads in (%n, %one, %one) args(%a : memref<32xf32>)
    gpu.launch_func @step_kernel_0::@step_kernel blocks in (%one, %one, %one) threads in (%n, %one, %one) args(%b : memref<32xf32>)
    gpu.launch_func @step_kernel_1::@step_kernel blocks in (%one, %one, %one) threads in (%n, %one, %one) args(%b : memref<32xf32>)
    return
  }
}

// CHECK: gpu.module @step_kernel {
// CHECK-NOT: gpu.module @step_kernel_0
// CHECK: gpu.module @step_kernel_1 {
// CHECK: arith.constant 3.0
// CHECK-LABEL: func.func @step(
// CHECK: gpu.launch_func @step_kernel::@step_kernel {{.*}} args(%arg0 : memref<32xf32>)
// CHECK-NEXT: gpu.launch_func @step_kernel::@step_kernel {{.*}} args(%arg1 : memref<32xf32>)
// CHECK-NEXT: gpu.launch_func @step_kernel_1::@step_kernel {{.*}} args(%arg1 : memref<32xf32>)
