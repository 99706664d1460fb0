// RUN: trace-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(trace-early-dealloc))" | FileCheck %s

// Each free moves up to just after the buffer's last use, so %a is gone
// before %c is made: the peak is two buffers, not three.
// CHECK-LABEL: func.func @chain
// CHECK:      %[[A:.*]] = memref.alloc
// CHECK:      linalg.fill {{.*}} outs(%[[A]]
// CHECK:      %[[B:.*]] = memref.alloc
// CHECK:      linalg.copy ins(%[[A]] {{.*}} outs(%[[B]]
// CHECK-NEXT: memref.dealloc %[[A]]
// CHECK:      %[[C:.*]] = memref.alloc
// CHECK:      linalg.copy ins(%[[B]] {{.*}} outs(%[[C]]
// CHECK-NEXT: memref.dealloc %[[B]]
// CHECK:      linalg.copy ins(%[[C]] {{.*}} outs(%arg0
// CHECK-NEXT: memref.dealloc %[[C]]
// CHECK-NEXT: return
func.func @chain(%out: memref<64xf32>) {
  %zero = arith.constant 0.0 : f32
  %a = memref.alloc() : memref<64xf32>
  linalg.fill ins(%zero : f32) outs(%a : memref<64xf32>)
  %b = memref.alloc() : memref<64xf32>
  linalg.copy ins(%a : memref<64xf32>) outs(%b : memref<64xf32>)
  %c = memref.alloc() : memref<64xf32>
  linalg.copy ins(%b : memref<64xf32>) outs(%c : memref<64xf32>)
  linalg.copy ins(%c : memref<64xf32>) outs(%out : memref<64xf32>)
  memref.dealloc %a : memref<64xf32>
  memref.dealloc %b : memref<64xf32>
  memref.dealloc %c : memref<64xf32>
  return
}

// -----

// A view keeps its buffer alive: the free follows the view's last use,
// through a chain of views.
// CHECK-LABEL: func.func @views
// CHECK:      %[[A:.*]] = memref.alloc
// CHECK:      %[[V:.*]] = memref.subview %[[A]]
// CHECK:      %[[W:.*]] = memref.expand_shape %[[V]]
// CHECK:      linalg.fill
// CHECK:      linalg.copy ins(%[[W]] {{.*}} outs(%arg0
// CHECK-NEXT: memref.dealloc %[[A]]
// CHECK-NEXT: linalg.fill {{.*}} outs(%arg1
func.func @views(%out: memref<2x4xf32>, %other: memref<8xf32>) {
  %zero = arith.constant 0.0 : f32
  %a = memref.alloc() : memref<16xf32>
  %v = memref.subview %a[8] [8] [1] : memref<16xf32> to memref<8xf32, strided<[1], offset: 8>>
  %w = memref.expand_shape %v [[0, 1]] output_shape [2, 4] : memref<8xf32, strided<[1], offset: 8>> into memref<2x4xf32, strided<[4, 1], offset: 8>>
  linalg.fill ins(%zero : f32) outs(%a : memref<16xf32>)
  linalg.copy ins(%w : memref<2x4xf32, strided<[4, 1], offset: 8>>) outs(%out : memref<2x4xf32>)
  linalg.fill ins(%zero : f32) outs(%other : memref<8xf32>)
  memref.dealloc %a : memref<16xf32>
  return
}

// -----

// A use inside a region counts as a use by the op holding it.
// CHECK-LABEL: func.func @nested
// CHECK:      %[[A:.*]] = memref.alloc
// CHECK:      scf.for
// CHECK:        memref.load %[[A]]
// CHECK:      }
// CHECK-NEXT: memref.dealloc %[[A]]
// CHECK-NEXT: linalg.fill
func.func @nested(%out: memref<8xf32>) {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %a = memref.alloc() : memref<8xf32>
  linalg.fill ins(%zero : f32) outs(%a : memref<8xf32>)
  scf.for %i = %c0 to %c8 step %c1 {
    %x = memref.load %a[%i] : memref<8xf32>
    memref.store %x, %out[%i] : memref<8xf32>
  }
  linalg.fill ins(%zero : f32) outs(%out : memref<8xf32>)
  memref.dealloc %a : memref<8xf32>
  return
}

// -----

// An alias that leaves through a terminator (scf.if yields the buffer
// itself): what the op's result points to is not tracked, so the free
// stays where deallocation put it.
// CHECK-LABEL: func.func @escapes
// CHECK:      %[[A:.*]] = memref.alloc
// CHECK:      %[[R:.*]] = scf.if
// CHECK:      linalg.fill {{.*}} outs(%arg0
// CHECK-NEXT: memref.dealloc %[[A]]
// CHECK-NEXT: return
func.func @escapes(%out: memref<8xf32>, %cond: i1) {
  %zero = arith.constant 0.0 : f32
  %a = memref.alloc() : memref<8xf32>
  %r = scf.if %cond -> memref<8xf32> {
    scf.yield %a : memref<8xf32>
  } else {
    scf.yield %out : memref<8xf32>
  }
  linalg.fill ins(%zero : f32) outs(%r : memref<8xf32>)
  linalg.fill ins(%zero : f32) outs(%out : memref<8xf32>)
  memref.dealloc %a : memref<8xf32>
  return
}

// -----

// A loop that takes the buffer as an iteration argument: its result may
// be the buffer, so the free follows the result's last use.
// CHECK-LABEL: func.func @loop_result
// CHECK:      %[[A:.*]] = memref.alloc
// CHECK:      %[[R:.*]] = scf.for
// CHECK:      linalg.copy ins(%[[R]] {{.*}} outs(%arg0
// CHECK-NEXT: memref.dealloc %[[A]]
// CHECK-NEXT: linalg.fill {{.*}} outs(%arg0
func.func @loop_result(%out: memref<8xf32>) {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %a = memref.alloc() : memref<8xf32>
  %r = scf.for %i = %c0 to %c8 step %c1 iter_args(%it = %a) -> memref<8xf32> {
    scf.yield %it : memref<8xf32>
  }
  linalg.copy ins(%r : memref<8xf32>) outs(%out : memref<8xf32>)
  linalg.fill ins(%zero : f32) outs(%out : memref<8xf32>)
  memref.dealloc %a : memref<8xf32>
  return
}

// -----

// CHECK-LABEL: func.func @cast_result
// CHECK:      %[[A:.*]] = memref.alloc
// CHECK:      %[[C:.*]] = memref.cast %[[A]]
// CHECK:      linalg.fill {{.*}} outs(%[[C]]
// CHECK-NEXT: memref.dealloc %[[A]]
// CHECK-NEXT: linalg.fill {{.*}} outs(%arg0
func.func @cast_result(%out: memref<8xf32>) {
  %zero = arith.constant 0.0 : f32
  %a = memref.alloc() : memref<8xf32>
  %c = memref.cast %a : memref<8xf32> to memref<?xf32>
  linalg.fill ins(%zero : f32) outs(%a : memref<8xf32>)
  linalg.fill ins(%zero : f32) outs(%c : memref<?xf32>)
  linalg.fill ins(%zero : f32) outs(%out : memref<8xf32>)
  memref.dealloc %a : memref<8xf32>
  return
}

// -----

// Unused: freed right after it is made.
// CHECK-LABEL: func.func @unused
// CHECK:      %[[A:.*]] = memref.alloc
// CHECK-NEXT: memref.dealloc %[[A]]
// CHECK-NEXT: linalg.fill
func.func @unused(%out: memref<8xf32>) {
  %zero = arith.constant 0.0 : f32
  %a = memref.alloc() : memref<8xf32>
  linalg.fill ins(%zero : f32) outs(%out : memref<8xf32>)
  memref.dealloc %a : memref<8xf32>
  return
}
