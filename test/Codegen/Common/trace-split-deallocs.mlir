// A dealloc of several fresh allocations is split into one per allocation,
// each retaining only the retained values of that allocation (or of unknown
// origin); memrefs of shared or unknown origin stay together.
// RUN: trace-opt %s -split-input-file -pass-pipeline="builtin.module(func.func(trace-split-deallocs))" | FileCheck %s
// After the upstream simplification, the same frees as the simplification
// alone makes:
// RUN: trace-opt %s -split-input-file -pass-pipeline="builtin.module(func.func(trace-split-deallocs),buffer-deallocation-simplification,canonicalize)" | FileCheck %s --check-prefix=SIMP
// RUN: trace-opt %s -split-input-file -pass-pipeline="builtin.module(buffer-deallocation-simplification,canonicalize)" | FileCheck %s --check-prefix=SIMP

// CHECK-LABEL: func @three_allocations
// CHECK-SAME: (%[[ARG:.*]]: memref<4xf32>, %[[C:.*]]: i1)
// CHECK: %[[A:.*]] = memref.alloc() : memref<4xf32>
// CHECK: %[[B:.*]] = memref.alloc() : memref<4xf32>
// CHECK: %[[D:.*]] = memref.alloc() : memref<8xf32>
// CHECK: %[[V:.*]] = memref.subview %[[D]]
// CHECK: %[[BASE:.*]], %{{.*}}, %{{.*}}, %{{.*}} = memref.extract_strided_metadata %[[D]]
// CHECK-NEXT: call @use
// CHECK-NEXT: bufferization.dealloc (%[[A]] : memref<4xf32>) if (%[[C]]){{$}}
// CHECK-NEXT: %[[RB:.*]] = bufferization.dealloc (%[[B]] : memref<4xf32>) if (%[[C]]) retain (%[[B]] : memref<4xf32>)
// CHECK-NEXT: %[[RD:.*]] = bufferization.dealloc (%[[BASE]] : memref<f32>) if (%[[C]]) retain (%[[V]] : memref<4xf32, strided<[1], offset: 2>>)
// CHECK-NEXT: %[[FALSE:.*]] = arith.constant false
// CHECK-NEXT: return %[[RB]], %[[RD]], %[[FALSE]]
// B and D are retained: the simplification drops their frees and returns
// their conditions; A is freed.
// SIMP-LABEL: func @three_allocations
// SIMP-SAME: (%[[ARG:.*]]: memref<4xf32>, %[[C:.*]]: i1)
// SIMP: call @use
// SIMP-NEXT: bufferization.dealloc (%{{.*}} : memref<4xf32>) if (%[[C]]){{$}}
// SIMP-NEXT: return %[[C]], %[[C]], %{{.*}} : i1, i1, i1
func.func @three_allocations(%arg: memref<4xf32>, %c: i1)
    -> (i1, i1, i1) {
  %a = memref.alloc() : memref<4xf32>
  %b = memref.alloc() : memref<4xf32>
  %d = memref.alloc() : memref<8xf32>
  %v = memref.subview %d[2] [4] [1] : memref<8xf32> to memref<4xf32, strided<[1], offset: 2>>
  %base, %offset, %size, %stride = memref.extract_strided_metadata %d : memref<8xf32> -> memref<f32>, index, index, index
  call @use(%a, %b, %d) : (memref<4xf32>, memref<4xf32>, memref<8xf32>) -> ()
  %r:3 = bufferization.dealloc (%a, %b, %base : memref<4xf32>, memref<4xf32>, memref<f32>)
      if (%c, %c, %c)
      retain (%b, %v, %arg : memref<4xf32>, memref<4xf32, strided<[1], offset: 2>>, memref<4xf32>)
  return %r#0, %r#1, %r#2 : i1, i1, i1
}
func.func private @use(memref<4xf32>, memref<4xf32>, memref<8xf32>)

// -----

// Two memrefs of one allocation stay in one dealloc with every retained
// value; the third is split off.
// CHECK-LABEL: func @shared_origin
// CHECK: %[[A:.*]] = memref.alloc() : memref<8xf32>
// CHECK: %[[B:.*]] = memref.alloc() : memref<4xf32>
// CHECK: %[[V:.*]] = memref.subview %[[A]]
// CHECK-NEXT: %[[RB:.*]] = bufferization.dealloc (%[[B]] : memref<4xf32>) if (%{{.*}}) retain (%[[B]] : memref<4xf32>)
// CHECK-NEXT: %[[REST:.*]]:2 = bufferization.dealloc (%[[A]], %[[V]] : memref<8xf32>, memref<4xf32, strided<[1]>>) if (%{{.*}}, %{{.*}}) retain (%[[B]], %[[ARG:.*]] : memref<4xf32>, memref<4xf32>)
// CHECK-NEXT: %[[OR:.*]] = arith.ori %[[REST]]#0, %[[RB]]
// CHECK-NEXT: return %[[OR]], %[[REST]]#1
// SIMP-LABEL: func @shared_origin
// SIMP-SAME: (%{{.*}}: memref<4xf32>, %[[C:.*]]: i1)
// SIMP: bufferization.dealloc (%{{.*}}, %{{.*}} : memref<8xf32>, memref<4xf32, strided<[1]>>) if (%[[C]], %[[C]]){{$}}
// SIMP-NEXT: return %[[C]], %{{.*}} : i1, i1
func.func @shared_origin(%arg: memref<4xf32>, %c: i1) -> (i1, i1) {
  %a = memref.alloc() : memref<8xf32>
  %b = memref.alloc() : memref<4xf32>
  %v = memref.subview %a[0] [4] [1] : memref<8xf32> to memref<4xf32, strided<[1]>>
  %r:2 = bufferization.dealloc (%a, %b, %v : memref<8xf32>, memref<4xf32>, memref<4xf32, strided<[1]>>)
      if (%c, %c, %c) retain (%b, %arg : memref<4xf32>, memref<4xf32>)
  return %r#0, %r#1 : i1, i1
}

// -----

// A memref of unknown origin (a select of two allocations) may alias
// either: the dealloc is left whole.
// CHECK-LABEL: func @unknown_origin
// CHECK: bufferization.dealloc (%{{.*}}, %{{.*}}, %{{.*}} : memref<4xf32>, memref<4xf32>, memref<4xf32>) if (%{{.*}}, %{{.*}}, %{{.*}}){{$}}
// CHECK-NOT: bufferization.dealloc
// SIMP-LABEL: func @unknown_origin
// SIMP: bufferization.dealloc (%{{.*}}, %{{.*}}, %{{.*}} : memref<4xf32>, memref<4xf32>, memref<4xf32>)
func.func @unknown_origin(%c: i1) {
  %a = memref.alloc() : memref<4xf32>
  %b = memref.alloc() : memref<4xf32>
  %s = arith.select %c, %a, %b : memref<4xf32>
  bufferization.dealloc (%a, %b, %s : memref<4xf32>, memref<4xf32>, memref<4xf32>) if (%c, %c, %c)
  return
}

// -----

// A retained value of unknown origin is retained by every split dealloc,
// and its condition is their disjunction.
// CHECK-LABEL: func @unknown_retained
// CHECK: %[[S:.*]] = arith.select
// CHECK-NEXT: %[[RA:.*]] = bufferization.dealloc (%{{.*}} : memref<4xf32>) if (%{{.*}}) retain (%[[S]] : memref<4xf32>)
// CHECK-NEXT: %[[RB:.*]] = bufferization.dealloc (%{{.*}} : memref<4xf32>) if (%{{.*}}) retain (%[[S]] : memref<4xf32>)
// CHECK-NEXT: %[[OR:.*]] = arith.ori %[[RA]], %[[RB]]
// CHECK-NEXT: return %[[S]], %[[OR]]
// SIMP-LABEL: func @unknown_retained
// SIMP: %[[RA:.*]] = bufferization.dealloc (%{{.*}} : memref<4xf32>) if (%{{.*}}) retain (%[[S:.*]] : memref<4xf32>)
// SIMP-NEXT: %[[RB:.*]] = bufferization.dealloc (%{{.*}} : memref<4xf32>) if (%{{.*}}) retain (%[[S]] : memref<4xf32>)
// SIMP-NEXT: %[[OR:.*]] = arith.ori %[[RA]], %[[RB]]
// SIMP-NEXT: return %[[S]], %[[OR]]
func.func @unknown_retained(%c: i1) -> (memref<4xf32>, i1) {
  %a = memref.alloc() : memref<4xf32>
  %b = memref.alloc() : memref<4xf32>
  %s = arith.select %c, %a, %b : memref<4xf32>
  %r = bufferization.dealloc (%a, %b : memref<4xf32>, memref<4xf32>) if (%c, %c) retain (%s : memref<4xf32>)
  return %s, %r : memref<4xf32>, i1
}

// -----

// A memref listed twice stays with the rest (the dealloc frees it once); so
// does an argument, which may alias other arguments.
// CHECK-LABEL: func @duplicate_and_argument
// CHECK-SAME: (%[[ARG:.*]]: memref<4xf32>, %[[C:.*]]: i1)
// CHECK: %[[A:.*]] = memref.alloc() : memref<4xf32>
// CHECK: %[[B:.*]] = memref.alloc() : memref<4xf32>
// CHECK-NEXT: bufferization.dealloc (%[[B]] : memref<4xf32>) if (%[[C]]){{$}}
// CHECK-NEXT: bufferization.dealloc (%[[A]], %[[A]], %[[ARG]] : memref<4xf32>, memref<4xf32>, memref<4xf32>) if (%[[C]], %[[C]], %[[C]]){{$}}
// CHECK-NEXT: return
func.func @duplicate_and_argument(%arg: memref<4xf32>, %c: i1) {
  %a = memref.alloc() : memref<4xf32>
  %b = memref.alloc() : memref<4xf32>
  bufferization.dealloc (%a, %b, %a, %arg : memref<4xf32>, memref<4xf32>, memref<4xf32>, memref<4xf32>) if (%c, %c, %c, %c)
  return
}
