// RUN: trace-opt %s --split-input-file --allow-unregistered-dialect \
// RUN:   --pass-pipeline='builtin.module(func.func(trace-result-views-in-place))' \
// RUN:   | FileCheck %s

// A reshape of an allocation copied into an out-param: the allocation
// becomes the out-param, reshaped back; no copy is left.
// CHECK-LABEL: func.func @expand(
// CHECK-SAME: %[[OUT:.*]]: memref<4x64x512xf32>)
// CHECK-NEXT: %[[A:.*]] = memref.collapse_shape %[[OUT]] {{\[\[}}0, 1], [2]] : memref<4x64x512xf32> into memref<256x512xf32>
// CHECK-NEXT: "test.matmul"(%[[A]])
// CHECK-NEXT: return
func.func @expand(%out: memref<4x64x512xf32>) {
  %a = memref.alloc() : memref<256x512xf32>
  "test.matmul"(%a) : (memref<256x512xf32>) -> ()
  %v = memref.expand_shape %a [[0, 1], [2]] output_shape [4, 64, 512] : memref<256x512xf32> into memref<4x64x512xf32>
  memref.copy %v, %out : memref<4x64x512xf32> to memref<4x64x512xf32>
  return
}

// -----

// A chain of reshapes, a view of it also read before the copy.
// CHECK-LABEL: func.func @chain(
// CHECK-SAME: %[[OUT:.*]]: memref<2x2x2xf32>)
// CHECK-NEXT: %[[C:.*]] = memref.collapse_shape %[[OUT]] {{\[\[}}0], [1, 2]] : memref<2x2x2xf32> into memref<2x4xf32>
// CHECK-NEXT: %[[E:.*]] = memref.expand_shape %[[C]] {{\[\[}}0], [1, 2]] output_shape [2, 2, 2] : memref<2x4xf32> into memref<2x2x2xf32>
// CHECK-NEXT: %[[A:.*]] = memref.collapse_shape %[[E]] {{\[\[}}0, 1], [2]] : memref<2x2x2xf32> into memref<4x2xf32>
// CHECK-NEXT: "test.fill"(%[[A]])
// CHECK-NEXT: %[[V:.*]] = memref.expand_shape %[[A]]
// CHECK-NEXT: "test.read"(%[[V]])
// CHECK-NEXT: return
func.func @chain(%out: memref<2x2x2xf32>) {
  %a = memref.alloc() : memref<4x2xf32>
  "test.fill"(%a) : (memref<4x2xf32>) -> ()
  %v = memref.expand_shape %a [[0, 1], [2]] output_shape [2, 2, 2] : memref<4x2xf32> into memref<2x2x2xf32>
  "test.read"(%v) : (memref<2x2x2xf32>) -> ()
  %w = memref.collapse_shape %v [[0], [1, 2]] : memref<2x2x2xf32> into memref<2x4xf32>
  %x = memref.expand_shape %w [[0], [1, 2]] output_shape [2, 2, 2] : memref<2x4xf32> into memref<2x2x2xf32>
  memref.copy %x, %out : memref<2x2x2xf32> to memref<2x2x2xf32>
  return
}

// -----

// Left alone: one allocation behind two out-params; a use after the copy;
// an out-param read elsewhere; a direct copy of an argument.
// CHECK-LABEL: func.func @kept(
// CHECK-COUNT-4: memref.copy
// CHECK: return
func.func @kept(%in: memref<4xf32>, %o1: memref<2x2xf32>, %o2: memref<2x2xf32>, %o3: memref<2x2xf32>, %o4: memref<4xf32>) {
  %a = memref.alloc() : memref<4xf32>
  "test.fill"(%a) : (memref<4xf32>) -> ()
  %v = memref.expand_shape %a [[0, 1]] output_shape [2, 2] : memref<4xf32> into memref<2x2xf32>
  memref.copy %v, %o1 : memref<2x2xf32> to memref<2x2xf32>
  memref.copy %v, %o2 : memref<2x2xf32> to memref<2x2xf32>
  %b = memref.alloc() : memref<4xf32>
  %w = memref.expand_shape %b [[0, 1]] output_shape [2, 2] : memref<4xf32> into memref<2x2xf32>
  memref.copy %w, %o3 : memref<2x2xf32> to memref<2x2xf32>
  "test.read"(%b, %o3) : (memref<4xf32>, memref<2x2xf32>) -> ()
  memref.copy %in, %o4 : memref<4xf32> to memref<4xf32>
  return
}

// -----

// Left alone: another view of the allocation is written after the copy.
// CHECK-LABEL: func.func @written_after(
// CHECK: memref.copy
// CHECK: "test.fill"
func.func @written_after(%out: memref<2x2xf32>) {
  %a = memref.alloc() : memref<4xf32>
  %s = memref.subview %a[0] [2] [1] : memref<4xf32> to memref<2xf32, strided<[1]>>
  %v = memref.expand_shape %a [[0, 1]] output_shape [2, 2] : memref<4xf32> into memref<2x2xf32>
  memref.copy %v, %out : memref<2x2xf32> to memref<2x2xf32>
  "test.fill"(%s) : (memref<2xf32, strided<[1]>>) -> ()
  return
}

// -----

// No reshape at all: the allocation a call fills (upstream's out-param at
// the call of a function whose results it moved) is the caller's
// out-param from the start.
// CHECK-LABEL: func.func @call(
// CHECK-SAME: %[[IN:.*]]: memref<4xf32>, %[[OUT:.*]]: memref<4xf32>)
// CHECK-NEXT: call @layer(%[[IN]], %[[OUT]])
// CHECK-NEXT: return
func.func private @layer(%in: memref<4xf32>, %out: memref<4xf32>)
func.func @call(%in: memref<4xf32>, %out: memref<4xf32>) {
  %a = memref.alloc() : memref<4xf32>
  call @layer(%in, %a) : (memref<4xf32>, memref<4xf32>) -> ()
  memref.copy %a, %out : memref<4xf32> to memref<4xf32>
  return
}
