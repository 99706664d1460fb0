// RUN: trace-opt %s -split-input-file --trace-dedupe-gpu-kernels | FileCheck %s

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

// -----

// Two kernels whose constants outlining cloned in another order (the host
// code used them in another order): one body, so one kernel.

module attributes {gpu.container_module} {
  gpu.module @layer_kernel {
    gpu.func @layer_kernel(%a: memref<16xf32>) kernel {
      %i = gpu.thread_id x
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %j = arith.addi %i, %c1 : index
      %k = arith.addi %j, %c2 : index
      %x = memref.load %a[%k] : memref<16xf32>
      memref.store %x, %a[%i] : memref<16xf32>
      gpu.return
    }
  }
  gpu.module @step_kernel {
    gpu.func @step_kernel(%a: memref<16xf32>) kernel {
      %i = gpu.thread_id x
      %c2 = arith.constant 2 : index
      %c1 = arith.constant 1 : index
      %j = arith.addi %i, %c1 : index
      %k = arith.addi %j, %c2 : index
      %x = memref.load %a[%k] : memref<16xf32>
      memref.store %x, %a[%i] : memref<16xf32>
      gpu.return
    }
  }
  func.func @order(%a: memref<16xf32>) {
    %one = arith.constant 1 : index
    gpu.launch_func @layer_kernel::@layer_kernel blocks in (%one, %one, %one) threads in (%one, %one, %one) args(%a : memref<16xf32>)
    gpu.launch_func @step_kernel::@step_kernel blocks in (%one, %one, %one) threads in (%one, %one, %one) args(%a : memref<16xf32>)
    return
  }
}

// CHECK: gpu.module @layer_kernel {
// CHECK-NOT: gpu.module @step_kernel
// CHECK-LABEL: func.func @order(
// CHECK: gpu.launch_func @layer_kernel::@layer_kernel
// CHECK-NEXT: gpu.launch_func @layer_kernel::@layer_kernel
