// trace-gpu-device-memory: host allocations become device allocations, and
// constants are copied to the device where they are read.
// RUN: trace-opt %s --split-input-file --verify-diagnostics --trace-gpu-device-memory | FileCheck %s

// CHECK-LABEL: func @buffers
// CHECK-NOT: memref.alloc
// CHECK: %[[T:.*]] = gpu.alloc () : memref<4xf32>
// CHECK: %[[R:.*]] = gpu.alloc () : memref<4xf32>
// CHECK: gpu.launch
// CHECK:   memref.store %{{.*}}, %[[T]][
// CHECK: gpu.launch
// CHECK:   memref.load %[[T]][
// CHECK:   memref.store %{{.*}}, %[[R]][
// CHECK: gpu.dealloc %[[T]] : memref<4xf32>
// CHECK-NOT: memref.dealloc
// CHECK: return %[[R]]
func.func @buffers(%x: memref<4xf32>) -> memref<4xf32> {
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %tmp = memref.alloc() {alignment = 64 : i64} : memref<4xf32>
  %res = memref.alloc() {alignment = 64 : i64} : memref<4xf32>
  gpu.launch blocks(%b0, %b1, %b2) in (%g0 = %c1, %g1 = %c1, %g2 = %c1)
             threads(%t0, %t1, %t2) in (%s0 = %c4, %s1 = %c1, %s2 = %c1) {
    %v = memref.load %x[%t0] : memref<4xf32>
    memref.store %v, %tmp[%t0] : memref<4xf32>
    gpu.terminator
  }
  gpu.launch blocks(%b0, %b1, %b2) in (%g0 = %c1, %g1 = %c1, %g2 = %c1)
             threads(%t0, %t1, %t2) in (%s0 = %c4, %s1 = %c1, %s2 = %c1) {
    %v = memref.load %tmp[%t0] : memref<4xf32>
    %w = arith.addf %v, %v : f32
    memref.store %w, %res[%t0] : memref<4xf32>
    gpu.terminator
  }
  memref.dealloc %tmp : memref<4xf32>
  return %res : memref<4xf32>
}

// -----

// CHECK-LABEL: func @constant
// CHECK: %[[G:.*]] = memref.get_global @table : memref<4xf32>
// CHECK: %[[D:.*]] = gpu.alloc () : memref<4xf32>
// CHECK: gpu.memcpy %[[D]], %[[G]] : memref<4xf32>, memref<4xf32>
// CHECK: gpu.launch
// CHECK:   memref.load %[[D]][
// CHECK: gpu.dealloc %[[D]] : memref<4xf32>
// CHECK-NEXT: return
memref.global "private" constant @table : memref<4xf32> = dense<[1.0, 2.0, 3.0, 4.0]>
func.func @constant(%y: memref<4xf32>) {
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %g = memref.get_global @table : memref<4xf32>
  gpu.launch blocks(%b0, %b1, %b2) in (%g0 = %c1, %g1 = %c1, %g2 = %c1)
             threads(%t0, %t1, %t2) in (%s0 = %c4, %s1 = %c1, %s2 = %c1) {
    %v = memref.load %g[%t0] : memref<4xf32>
    memref.store %v, %y[%t0] : memref<4xf32>
    gpu.terminator
  }
  return
}

// -----

func.func @host_load(%x: memref<4xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  // expected-error @below {{reads or writes a buffer in host code}}
  %v = memref.load %x[%c0] : memref<4xf32>
  return %v : f32
}

// -----

// A scalar read on the host (a random op's seed) and the integer ops on it
// move into the kernel that uses them: each thread reads the element.
// CHECK-LABEL: func @seed
// CHECK-NOT: memref.load
// CHECK: gpu.launch
// CHECK: %[[S:.*]] = memref.load %arg0[] : memref<i64>
// CHECK-NEXT: %[[HI:.*]] = arith.shrui %[[S]], %{{.*}} : i64
// CHECK: arith.addi %{{.*}}, %[[HI]] : i64
func.func @seed(%seed: memref<i64>, %out: memref<4xi64>) {
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : i64
  %s = memref.load %seed[] : memref<i64>
  %hi = arith.shrui %s, %c32 : i64
  gpu.launch blocks(%b0, %b1, %b2) in (%g0 = %c1, %g1 = %c1, %g2 = %c1)
             threads(%t0, %t1, %t2) in (%s0 = %c4, %s1 = %c1, %s2 = %c1) {
    %i = arith.index_cast %t0 : index to i64
    %v = arith.addi %i, %hi : i64
    memref.store %v, %out[%t0] : memref<4xi64>
    gpu.terminator
  }
  return
}

// -----

// A buffer a kernel may write between the read and its use is not read
// later instead: the host load stays, and is an error.
func.func @written_between(%x: memref<4xi64>, %out: memref<4xi64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %tmp = memref.alloc() : memref<i64>
  gpu.launch blocks(%b0, %b1, %b2) in (%g0 = %c1, %g1 = %c1, %g2 = %c1)
             threads(%t0, %t1, %t2) in (%s0 = %c1, %s1 = %c1, %s2 = %c1) {
    %v = memref.load %x[%c0] : memref<4xi64>
    memref.store %v, %tmp[] : memref<i64>
    gpu.terminator
  }
  // expected-error @below {{reads or writes a buffer in host code}}
  %s = memref.load %tmp[] : memref<i64>
  gpu.launch blocks(%b0, %b1, %b2) in (%g0 = %c1, %g1 = %c1, %g2 = %c1)
             threads(%t0, %t1, %t2) in (%s0 = %c4, %s1 = %c1, %s2 = %c1) {
    memref.store %s, %tmp[] : memref<i64>
    gpu.terminator
  }
  gpu.launch blocks(%b0, %b1, %b2) in (%g0 = %c1, %g1 = %c1, %g2 = %c1)
             threads(%t0, %t1, %t2) in (%s0 = %c4, %s1 = %c1, %s2 = %c1) {
    memref.store %s, %out[%t0] : memref<4xi64>
    gpu.terminator
  }
  memref.dealloc %tmp : memref<i64>
  return
}

// -----

// So is an out-parameter (an argument the function writes, where
// buffer-results-to-out-params put a result): only an argument the
// function never writes is read-only, and its read may move.
func.func @written_out_param(%x: memref<4xi64>, %res: memref<i64>,
                             %out: memref<4xi64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  gpu.launch blocks(%b0, %b1, %b2) in (%g0 = %c1, %g1 = %c1, %g2 = %c1)
             threads(%t0, %t1, %t2) in (%s0 = %c1, %s1 = %c1, %s2 = %c1) {
    %v = memref.load %x[%c0] : memref<4xi64>
    memref.store %v, %res[] : memref<i64>
    gpu.terminator
  }
  // expected-error @below {{reads or writes a buffer in host code}}
  %s = memref.load %res[] : memref<i64>
  gpu.launch blocks(%b0, %b1, %b2) in (%g0 = %c1, %g1 = %c1, %g2 = %c1)
             threads(%t0, %t1, %t2) in (%s0 = %c4, %s1 = %c1, %s2 = %c1) {
    memref.store %s, %res[] : memref<i64>
    gpu.terminator
  }
  gpu.launch blocks(%b0, %b1, %b2) in (%g0 = %c1, %g1 = %c1, %g2 = %c1)
             threads(%t0, %t1, %t2) in (%s0 = %c4, %s1 = %c1, %s2 = %c1) {
    memref.store %s, %out[%t0] : memref<4xi64>
    gpu.terminator
  }
  return
}

// -----

// An input the function never writes is read-only: its read moves into
// every kernel that uses it, past a kernel that writes other memory.
// CHECK-LABEL: func @unwritten_input
// CHECK-NOT: memref.load
// CHECK: gpu.launch
// CHECK: memref.load %arg0[] : memref<i64>
// CHECK: memref.store %{{.*}}, %arg1[
// CHECK: gpu.launch
// CHECK: memref.load %arg0[] : memref<i64>
// CHECK: memref.store %{{.*}}, %arg2[
func.func @unwritten_input(%seed: memref<i64>, %out: memref<4xi64>,
                           %other: memref<4xi64>) {
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %s = memref.load %seed[] : memref<i64>
  gpu.launch blocks(%b0, %b1, %b2) in (%g0 = %c1, %g1 = %c1, %g2 = %c1)
             threads(%t0, %t1, %t2) in (%s0 = %c4, %s1 = %c1, %s2 = %c1) {
    memref.store %s, %out[%t0] : memref<4xi64>
    gpu.terminator
  }
  gpu.launch blocks(%b0, %b1, %b2) in (%g0 = %c1, %g1 = %c1, %g2 = %c1)
             threads(%t0, %t1, %t2) in (%s0 = %c4, %s1 = %c1, %s2 = %c1) {
    memref.store %s, %other[%t0] : memref<4xi64>
    gpu.terminator
  }
  return
}

// -----

// A donated argument freed between its read and a kernel (trace-free-donated
// and trace-early-dealloc put the free after its last host use) is not read
// in the kernel: the kernel would run after the stream-ordered free.
func.func @freed_input(%seed: memref<i64>, %out: memref<4xi64>) {
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  // expected-error @below {{reads or writes a buffer in host code}}
  %s = memref.load %seed[] : memref<i64>
  memref.dealloc %seed : memref<i64>
  gpu.launch blocks(%b0, %b1, %b2) in (%g0 = %c1, %g1 = %c1, %g2 = %c1)
             threads(%t0, %t1, %t2) in (%s0 = %c4, %s1 = %c1, %s2 = %c1) {
    memref.store %s, %out[%t0] : memref<4xi64>
    gpu.terminator
  }
  return
}

// -----

// A kernel that writes the buffer it would read is not given the read:
// each thread would read it at the start while others write it.
func.func @kernel_writes_it(%x: memref<4xi64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %tmp = memref.alloc() : memref<4xi64>
  gpu.launch blocks(%b0, %b1, %b2) in (%g0 = %c1, %g1 = %c1, %g2 = %c1)
             threads(%t0, %t1, %t2) in (%s0 = %c4, %s1 = %c1, %s2 = %c1) {
    %v = memref.load %x[%t0] : memref<4xi64>
    memref.store %v, %tmp[%t0] : memref<4xi64>
    gpu.terminator
  }
  // expected-error @below {{reads or writes a buffer in host code}}
  %s = memref.load %tmp[%c0] : memref<4xi64>
  gpu.launch blocks(%b0, %b1, %b2) in (%g0 = %c1, %g1 = %c1, %g2 = %c1)
             threads(%t0, %t1, %t2) in (%s0 = %c4, %s1 = %c1, %s2 = %c1) {
    %v = memref.load %tmp[%t0] : memref<4xi64>
    %w = arith.addi %v, %s : i64
    memref.store %w, %tmp[%t0] : memref<4xi64>
    gpu.terminator
  }
  memref.dealloc %tmp : memref<4xi64>
  return
}
