// trace-plan-buffers: freed temporaries of a function's block become views
// of one page-aligned arena; buffers live at the same time get disjoint
// bytes, the others share them (largest placed first, each at the lowest
// offset that fits). Escaping, dynamic, nested and strided buffers keep
// their own allocation.
// RUN: trace-opt %s -split-input-file -trace-plan-buffers -allow-unregistered-dialect | FileCheck %s
// RUN: trace-opt %s -split-input-file -trace-plan-buffers=print -allow-unregistered-dialect 2>&1 >/dev/null | FileCheck %s --check-prefix=PRINT

// %a (4096 B) and %b (1024 B) are live together; %c (2048 B) starts after
// %a's dealloc, so it reuses %a's bytes at offset 0, while %b sits at 4096.
// PRINT: remark: trace-plan-buffers: 3 buffers in an arena of 5120 bytes; their live peak is 5120 bytes
// CHECK-LABEL: func @reuse
// CHECK: %[[ARENA:.*]] = memref.alloc() {alignment = 4096 : i64} : memref<5120xi8>
// CHECK: %[[A:.*]] = memref.view %[[ARENA]][%c0{{.*}}][] : memref<5120xi8> to memref<32x32xf32>
// CHECK: %[[B:.*]] = memref.view %[[ARENA]][%c4096{{.*}}][] : memref<5120xi8> to memref<256xf32>
// CHECK: linalg.add ins(%{{.*}}, %{{.*}} : memref<32x32xf32>, memref<32x32xf32>) outs(%[[A]]
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%[[B]]
// CHECK: %[[C:.*]] = memref.view %[[ARENA]][%c0{{.*}}][] : memref<5120xi8> to memref<512xf32>
// CHECK-NOT: memref.dealloc %[[A]]
// CHECK-NOT: memref.dealloc %[[B]]
// CHECK-NOT: memref.dealloc %[[C]]
// CHECK: memref.dealloc %[[ARENA]] : memref<5120xi8>
// CHECK-NEXT: return
func.func @reuse(%x: memref<32x32xf32>, %out: memref<256xf32>) {
  %zero = arith.constant 0.0 : f32
  %a = memref.alloc() : memref<32x32xf32>
  %b = memref.alloc() : memref<256xf32>
  linalg.add ins(%x, %x : memref<32x32xf32>, memref<32x32xf32>) outs(%a : memref<32x32xf32>)
  linalg.fill ins(%zero : f32) outs(%b : memref<256xf32>)
  memref.dealloc %a : memref<32x32xf32>
  %c = memref.alloc() : memref<512xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<512xf32>)
  memref.copy %b, %out : memref<256xf32> to memref<256xf32>
  memref.dealloc %b : memref<256xf32>
  memref.dealloc %c : memref<512xf32>
  return
}

// -----

// Three buffers that are all live together: disjoint, sizes rounded up to
// 64 bytes (the 3 x f32 buffer takes 64).
// PRINT: remark: trace-plan-buffers: 3 buffers in an arena of 192 bytes; their live peak is 192 bytes
// CHECK-LABEL: func @all_live
// CHECK: memref.alloc() {alignment = 4096 : i64} : memref<192xi8>
// CHECK-DAG: memref.view %{{.*}}[%c0{{.*}}][] : memref<192xi8> to memref<3xf32>
// CHECK-DAG: memref.view %{{.*}}[%c64{{.*}}][] : memref<192xi8> to memref<2xf64>
// CHECK-DAG: memref.view %{{.*}}[%c128{{.*}}][] : memref<192xi8> to memref<4xi32>
func.func @all_live() {
  %a = memref.alloc() : memref<3xf32>
  %b = memref.alloc() : memref<2xf64>
  %c = memref.alloc() : memref<4xi32>
  "test.use"(%a, %b, %c) : (memref<3xf32>, memref<2xf64>, memref<4xi32>) -> ()
  memref.dealloc %a : memref<3xf32>
  memref.dealloc %b : memref<2xf64>
  memref.dealloc %c : memref<4xi32>
  return
}

// -----

// Not planned: a returned buffer (no dealloc), a dynamic shape, a strided
// layout, i1 and i24 elements (LLVM stores them in more bits than they
// have), a buffer of a nested region, and a buffer freed in
// another block. The two plain temporaries still share an arena.
// PRINT: remark: trace-plan-buffers: 2 buffers in an arena of 128 bytes; their live peak is 128 bytes
// CHECK-LABEL: func @kept
// CHECK: memref.alloc() {alignment = 4096 : i64} : memref<128xi8>
// CHECK: %[[R:.*]] = memref.alloc() : memref<4xf32>
// CHECK: memref.alloc(%{{.*}}) : memref<?xf32>
// CHECK: memref.alloc() : memref<4x4xf32, strided<[8, 1]>>
// CHECK: memref.alloc() : memref<8xi1>
// CHECK: memref.alloc() : memref<4xi24>
// CHECK: scf.if
// CHECK: memref.alloc() : memref<2xf32>
// CHECK: memref.alloc() : memref<5xf32>
// CHECK: return %[[R]]
func.func @kept(%n: index, %flag: i1) -> memref<4xf32> {
  %r = memref.alloc() : memref<4xf32>
  %d = memref.alloc(%n) : memref<?xf32>
  %s = memref.alloc() : memref<4x4xf32, strided<[8, 1]>>
  %i = memref.alloc() : memref<8xi1>
  %odd = memref.alloc() : memref<4xi24>
  %t0 = memref.alloc() : memref<4xf32>
  %t1 = memref.alloc() : memref<4xf32>
  "test.use"(%r, %d, %s, %i, %odd, %t0, %t1) : (memref<4xf32>, memref<?xf32>, memref<4x4xf32, strided<[8, 1]>>, memref<8xi1>, memref<4xi24>, memref<4xf32>, memref<4xf32>) -> ()
  scf.if %flag {
    %nested = memref.alloc() : memref<2xf32>
    "test.use"(%nested) : (memref<2xf32>) -> ()
    memref.dealloc %nested : memref<2xf32>
  }
  %other = memref.alloc() : memref<5xf32>
  scf.if %flag {
    memref.dealloc %other : memref<5xf32>
  }
  memref.dealloc %d : memref<?xf32>
  memref.dealloc %s : memref<4x4xf32, strided<[8, 1]>>
  memref.dealloc %i : memref<8xi1>
  memref.dealloc %odd : memref<4xi24>
  memref.dealloc %t0 : memref<4xf32>
  memref.dealloc %t1 : memref<4xf32>
  return %r : memref<4xf32>
}

// -----

// One temporary alone is left as it is (no remark between the one above
// and @late_use's).
// PRINT-NOT: remark
// CHECK-LABEL: func @single
// CHECK-NOT: memref.view
// CHECK: memref.alloc() : memref<4xf32>
func.func @single() {
  %a = memref.alloc() : memref<4xf32>
  "test.use"(%a) : (memref<4xf32>) -> ()
  memref.dealloc %a : memref<4xf32>
  return
}

// -----

// A buffer is live from its first use, not from its alloc: %b is allocated
// before %a is freed but first used after, so both take offset 0.
// PRINT: remark: trace-plan-buffers: 2 buffers in an arena of 1024 bytes; their live peak is 1024 bytes
// CHECK-LABEL: func @late_use
// CHECK: memref.alloc() {alignment = 4096 : i64} : memref<1024xi8>
// CHECK-COUNT-2: memref.view %{{.*}}[%c0{{.*}}][] : memref<1024xi8> to memref<256xf32>
func.func @late_use() {
  %a = memref.alloc() : memref<256xf32>
  %b = memref.alloc() : memref<256xf32>
  "test.use"(%a) : (memref<256xf32>) -> ()
  memref.dealloc %a : memref<256xf32>
  "test.use"(%b) : (memref<256xf32>) -> ()
  memref.dealloc %b : memref<256xf32>
  return
}

// -----

// A private function only calls use (a layer's, trace-outline-repeats) is
// planned first, and its arena (2 x 1024 B, live together: 2048 B) becomes
// its last argument. Each call passes a buffer the caller's plan places:
// the layer's scratch and the caller's %t (4096 B), live at once, get
// disjoint bytes; %u, after both, reuses %t's.
// PRINT: remark: trace-plan-buffers: 2 buffers in an arena of 2048 bytes; their live peak is 2048 bytes
// PRINT: remark: trace-plan-buffers: 3 buffers in an arena of 6144 bytes; their live peak is 6144 bytes
// CHECK-LABEL: func.func private @layer(
// CHECK-SAME: %[[IN:[^:]*]]: memref<256xf32>, %[[OUT:[^:]*]]: memref<256xf32>, %[[SCRATCH:[^:]*]]: memref<2048xi8>)
// CHECK-NOT: memref.alloc
// CHECK: memref.view %[[SCRATCH]]
// CHECK: memref.view %[[SCRATCH]]
// CHECK-NOT: memref.dealloc
// CHECK: return
// CHECK-LABEL: func.func @step(
// CHECK: %[[ARENA:.*]] = memref.alloc() {alignment = 4096 : i64} : memref<6144xi8>
// CHECK: %[[T:.*]] = memref.view %[[ARENA]][%c0{{.*}}][] : memref<6144xi8> to memref<1024xf32>
// CHECK: %[[S:.*]] = memref.view %[[ARENA]][%c4096{{.*}}][] : memref<6144xi8> to memref<2048xi8>
// CHECK: call @layer(%{{.*}}, %{{.*}}, %[[S]])
// CHECK: %[[U:.*]] = memref.view %[[ARENA]][%c0{{.*}}][] : memref<6144xi8> to memref<512xf32>
// CHECK-NOT: memref.alloc
// CHECK: memref.dealloc %[[ARENA]]
func.func private @layer(%in: memref<256xf32>, %out: memref<256xf32>) {
  %a = memref.alloc() : memref<256xf32>
  %b = memref.alloc() : memref<256xf32>
  "test.use"(%in, %a) : (memref<256xf32>, memref<256xf32>) -> ()
  "test.use"(%a, %b) : (memref<256xf32>, memref<256xf32>) -> ()
  "test.use"(%b, %out) : (memref<256xf32>, memref<256xf32>) -> ()
  memref.dealloc %a : memref<256xf32>
  memref.dealloc %b : memref<256xf32>
  return
}
func.func @step(%x: memref<256xf32>, %y: memref<256xf32>, %z: memref<512xf32>) {
  %t = memref.alloc() : memref<1024xf32>
  "test.use"(%t) : (memref<1024xf32>) -> ()
  call @layer(%x, %y) : (memref<256xf32>, memref<256xf32>) -> ()
  "test.use"(%t) : (memref<1024xf32>) -> ()
  memref.dealloc %t : memref<1024xf32>
  %u = memref.alloc() : memref<512xf32>
  "test.use"(%u) : (memref<512xf32>) -> ()
  memref.copy %u, %z : memref<512xf32> to memref<512xf32>
  memref.dealloc %u : memref<512xf32>
  return
}

// -----

// A called function with one temporary hands it to the caller's plan too
// (alone, it would keep its own allocation).
// CHECK-LABEL: func.func private @one(
// CHECK-SAME: %{{[^:]*}}: memref<256xf32>, %[[SCRATCH:[^:]*]]: memref<1024xi8>)
// CHECK-NOT: memref.alloc
// CHECK: memref.view %[[SCRATCH]]
// CHECK-LABEL: func.func @calls_one(
// CHECK: %[[ARENA:.*]] = memref.alloc() {alignment = 4096 : i64} : memref<2048xi8>
// CHECK: call @one(%{{.*}}, %{{.*}}) : (memref<256xf32>, memref<1024xi8>) -> ()
// CHECK: call @one(%{{.*}}, %{{.*}}) : (memref<256xf32>, memref<1024xi8>) -> ()
// CHECK: memref.dealloc %[[ARENA]]
func.func private @one(%in: memref<256xf32>) {
  %a = memref.alloc() : memref<256xf32>
  "test.use"(%in, %a) : (memref<256xf32>, memref<256xf32>) -> ()
  memref.dealloc %a : memref<256xf32>
  return
}
func.func @calls_one(%x: memref<256xf32>) {
  %t = memref.alloc() : memref<256xf32>
  "test.use"(%t) : (memref<256xf32>) -> ()
  call @one(%x) : (memref<256xf32>) -> ()
  "test.use"(%t) : (memref<256xf32>) -> ()
  memref.dealloc %t : memref<256xf32>
  call @one(%x) : (memref<256xf32>) -> ()
  return
}

// -----

// release-pages: %a (1 MiB) and %b (256 KiB) are live together, at 0 and
// 1 MiB. After %a's dealloc no op touches its pages: they are handed back
// (one run, at least 256 KiB or a sixteenth of the arena). %b's pages die
// after the last op doing work, and go with the arena.
// RUN: trace-opt %s -split-input-file -trace-plan-buffers=release-pages -allow-unregistered-dialect | FileCheck %s --check-prefix=RELEASE
// RELEASE: func.func private @trace_rt_release_pages(memref<?xi8>, index, index) attributes {llvm.emit_c_interface}
// RELEASE-LABEL: func @release
// RELEASE: %[[ARENA:.*]] = memref.alloc() {alignment = 4096 : i64} : memref<1310720xi8>
// RELEASE: %[[DYN:.*]] = memref.cast %[[ARENA]] : memref<1310720xi8> to memref<?xi8>
// RELEASE: linalg.fill {{.*}} outs(%{{.*}} : memref<512x512xf32>)
// RELEASE-NEXT: %[[OFF:.*]] = arith.constant 0 : index
// RELEASE-NEXT: %[[LEN:.*]] = arith.constant 1048576 : index
// RELEASE-NEXT: call @trace_rt_release_pages(%[[DYN]], %[[OFF]], %[[LEN]])
// RELEASE: linalg.fill
// RELEASE-NOT: call @trace_rt_release_pages
// RELEASE: memref.dealloc %[[ARENA]]
// Without the option, no call.
// CHECK-LABEL: func @release
// CHECK-NOT: trace_rt_release_pages
// CHECK: return
func.func @release(%out: memref<256xf32>) {
  %zero = arith.constant 0.0 : f32
  %a = memref.alloc() : memref<512x512xf32>
  %b = memref.alloc() : memref<256x256xf32>
  linalg.fill ins(%zero : f32) outs(%b : memref<256x256xf32>)
  linalg.fill ins(%zero : f32) outs(%a : memref<512x512xf32>)
  memref.dealloc %a : memref<512x512xf32>
  linalg.fill ins(%zero : f32) outs(%b : memref<256x256xf32>)
  "test.use"(%b) : (memref<256x256xf32>) -> ()
  memref.dealloc %b : memref<256x256xf32>
  return
}

// -----

// release-between-lifetimes: %a and %c share bytes (256 KiB at 256 KiB),
// one op apart. %a's pages go back after its last use and, with
// populate-pages, come back in one call before %c's first write
// (trace-prune-releases keeps the pair only where it lowers the peak).
// Without the option they stay: their last lifetime, %c's, ends with the
// function.
// RUN: trace-opt %s -split-input-file -trace-plan-buffers="release-pages release-between-lifetimes populate-pages" -allow-unregistered-dialect | FileCheck %s --check-prefix=GAP
// RUN: trace-opt %s -split-input-file -trace-plan-buffers="release-pages populate-pages" -allow-unregistered-dialect | FileCheck %s --check-prefix=NOGAP
// NOGAP-LABEL: func @release_gap
// NOGAP-NOT: call @trace_rt_release_pages
// NOGAP: return
// GAP-LABEL: func @release_gap
// GAP: %[[ARENA:.*]] = memref.alloc() {alignment = 4096 : i64} : memref<524288xi8>
// GAP: %[[DYN:.*]] = memref.cast %[[ARENA]]
// GAP: %[[B:.*]] = memref.view %[[ARENA]]
// GAP: %[[A:.*]] = memref.view %[[ARENA]]
// GAP: %[[C:.*]] = memref.view %[[ARENA]]
// GAP: linalg.fill {{.*}} outs(%[[A]] :
// GAP-NEXT: "test.use"(%[[A]])
// GAP-NEXT: %[[OFF:.*]] = arith.constant 262144 : index
// GAP-NEXT: %[[LEN:.*]] = arith.constant 262144 : index
// GAP-NEXT: call @trace_rt_release_pages(%[[DYN]], %[[OFF]], %[[LEN]])
// GAP-NEXT: "test.use"(%[[B]])
// GAP-NEXT: %[[OFF2:.*]] = arith.constant 262144 : index
// GAP-NEXT: %[[LEN2:.*]] = arith.constant 262144 : index
// GAP-NEXT: call @trace_rt_populate_pages(%[[DYN]], %[[OFF2]], %[[LEN2]])
// GAP-NEXT: linalg.fill {{.*}} outs(%[[C]] :
// GAP-NOT: call @trace_rt_
// GAP: return
func.func @release_gap() {
  %zero = arith.constant 0.0 : f32
  %b = memref.alloc() : memref<65536xf32>
  %a = memref.alloc() : memref<65536xf32>
  %c = memref.alloc() : memref<65536xf32>
  linalg.fill ins(%zero : f32) outs(%b : memref<65536xf32>)
  linalg.fill ins(%zero : f32) outs(%a : memref<65536xf32>)
  "test.use"(%a) : (memref<65536xf32>) -> ()
  memref.dealloc %a : memref<65536xf32>
  "test.use"(%b) : (memref<65536xf32>) -> ()
  linalg.fill ins(%zero : f32) outs(%c : memref<65536xf32>)
  "test.use"(%b, %c) : (memref<65536xf32>, memref<65536xf32>) -> ()
  memref.dealloc %b : memref<65536xf32>
  memref.dealloc %c : memref<65536xf32>
  return
}

// -----

// A dead page waits for its batch, and is left out of it when a buffer
// takes it again first: %s's page (at 256 KiB, 4 KiB, below a batch) dies
// after its last use; %t is written on it before %big dies. The batch at
// %big's end hands back %big's 256 KiB only, not the run through %t's
// page (266240 bytes), which %t still reads.
// RUN: trace-opt %s -split-input-file -trace-plan-buffers="release-pages release-between-lifetimes" -allow-unregistered-dialect | FileCheck %s --check-prefix=PENDING
// PENDING-LABEL: func @release_pending
// PENDING: "test.use"(%{{.*}}, %[[T:.*]]) : (memref<65536xf32>, memref<1024xf32>) -> ()
// PENDING-NEXT: %[[OFF:.*]] = arith.constant 0 : index
// PENDING-NEXT: %[[LEN:.*]] = arith.constant 262144 : index
// PENDING-NEXT: call @trace_rt_release_pages(%{{.*}}, %[[OFF]], %[[LEN]])
// PENDING-NEXT: "test.use"(%[[T]])
// PENDING-NOT: call @trace_rt_release_pages
// PENDING: return
func.func @release_pending() {
  %zero = arith.constant 0.0 : f32
  %big = memref.alloc() : memref<65536xf32>
  %s = memref.alloc() : memref<1024xf32>
  %t = memref.alloc() : memref<1024xf32>
  linalg.fill ins(%zero : f32) outs(%big : memref<65536xf32>)
  linalg.fill ins(%zero : f32) outs(%s : memref<1024xf32>)
  "test.use"(%s) : (memref<1024xf32>) -> ()
  memref.dealloc %s : memref<1024xf32>
  "test.use"(%big) : (memref<65536xf32>) -> ()
  linalg.fill ins(%zero : f32) outs(%t : memref<1024xf32>)
  "test.use"(%big, %t) : (memref<65536xf32>, memref<1024xf32>) -> ()
  memref.dealloc %big : memref<65536xf32>
  "test.use"(%t) : (memref<1024xf32>) -> ()
  "test.use"(%t) : (memref<1024xf32>) -> ()
  memref.dealloc %t : memref<1024xf32>
  return
}

// -----

// release-pages at the arena's end: %tail (262208 bytes, placed after %big)
// ends 64 bytes into a page the arena holds only part of. Its release stops
// at the arena's end: the bytes after it are the allocator's.
// RUN: trace-opt %s -split-input-file -trace-plan-buffers=release-pages -allow-unregistered-dialect | FileCheck %s --check-prefix=TAIL
// TAIL-LABEL: func @release_tail
// TAIL: memref.alloc() {alignment = 4096 : i64} : memref<1310784xi8>
// TAIL: linalg.fill {{.*}} outs(%{{.*}} : memref<65552xf32>)
// TAIL-NEXT: %[[OFF:.*]] = arith.constant 1048576 : index
// TAIL-NEXT: %[[LEN:.*]] = arith.constant 262208 : index
// TAIL-NEXT: call @trace_rt_release_pages(%{{.*}}, %[[OFF]], %[[LEN]])
func.func @release_tail() {
  %zero = arith.constant 0.0 : f32
  %big = memref.alloc() : memref<512x512xf32>
  %tail = memref.alloc() : memref<65552xf32>
  linalg.fill ins(%zero : f32) outs(%big : memref<512x512xf32>)
  linalg.fill ins(%zero : f32) outs(%tail : memref<65552xf32>)
  memref.dealloc %tail : memref<65552xf32>
  linalg.fill ins(%zero : f32) outs(%big : memref<512x512xf32>)
  "test.use"(%big) : (memref<512x512xf32>) -> ()
  memref.dealloc %big : memref<512x512xf32>
  return
}

// -----

// populate-pages: each run of pages an op is the first to touch is made
// resident just before that op, in one call. %a (1 MiB) is first touched by
// the first fill, %b (256 KiB, at 1 MiB) by the second (its subview is not
// a touch). %small (4 KiB, one page) gets no call of its own. The
// out-parameter %out (after trace.inputs = 1 input: 64 KiB) is populated
// before the copy that first writes it; the input %in is not.
// RUN: trace-opt %s -split-input-file -trace-plan-buffers=populate-pages -allow-unregistered-dialect | FileCheck %s --check-prefix=POPULATE
// POPULATE-DAG: func.func private @trace_rt_populate_pages(memref<?xi8>, index, index) attributes {llvm.emit_c_interface}
// POPULATE-DAG: func.func private @trace_rt_populate_buffer(index, index)
// POPULATE-LABEL: func @populate
// POPULATE: %[[ARENA:.*]] = memref.alloc() {alignment = 4096 : i64} : memref<1314816xi8>
// POPULATE: %[[DYN:.*]] = memref.cast %[[ARENA]] : memref<1314816xi8> to memref<?xi8>
// POPULATE: memref.view %[[ARENA]]{{.*}} to memref<1024xf32>
// POPULATE-NEXT: %[[OFF:.*]] = arith.constant 0 : index
// POPULATE-NEXT: %[[LEN:.*]] = arith.constant 1048576 : index
// POPULATE-NEXT: call @trace_rt_populate_pages(%[[DYN]], %[[OFF]], %[[LEN]])
// POPULATE-NEXT: linalg.fill {{.*}} outs(%{{.*}} : memref<512x512xf32>)
// POPULATE-NEXT: memref.subview
// POPULATE-NEXT: %[[OFF2:.*]] = arith.constant 1048576 : index
// POPULATE-NEXT: %[[LEN2:.*]] = arith.constant 262144 : index
// POPULATE-NEXT: call @trace_rt_populate_pages(%[[DYN]], %[[OFF2]], %[[LEN2]])
// POPULATE-NEXT: linalg.fill {{.*}} outs(%{{.*}} : memref<128x256xf32
// POPULATE-NEXT: linalg.fill {{.*}} outs(%{{.*}} : memref<1024xf32>)
// POPULATE-NEXT: %[[PTR:.*]] = memref.extract_aligned_pointer_as_index %arg1 : memref<16384xf32> -> index
// POPULATE-NEXT: %[[BYTES:.*]] = arith.constant 65536 : index
// POPULATE-NEXT: call @trace_rt_populate_buffer(%[[PTR]], %[[BYTES]]) : (index, index) -> ()
// POPULATE-NEXT: memref.copy %arg0, %arg1
// POPULATE-NOT: call @trace_rt_populate
// POPULATE: return
func.func @populate(%in: memref<16384xf32>, %out: memref<16384xf32>)
    attributes {trace.inputs = 1 : i64} {
  %zero = arith.constant 0.0 : f32
  %a = memref.alloc() : memref<512x512xf32>
  %b = memref.alloc() : memref<256x256xf32>
  %small = memref.alloc() : memref<1024xf32>
  linalg.fill ins(%zero : f32) outs(%a : memref<512x512xf32>)
  %half = memref.subview %b[0, 0] [128, 256] [1, 1] : memref<256x256xf32> to memref<128x256xf32, strided<[256, 1]>>
  linalg.fill ins(%zero : f32) outs(%half : memref<128x256xf32, strided<[256, 1]>>)
  linalg.fill ins(%zero : f32) outs(%small : memref<1024xf32>)
  memref.copy %in, %out : memref<16384xf32> to memref<16384xf32>
  "test.use"(%a, %b, %small) : (memref<512x512xf32>, memref<256x256xf32>, memref<1024xf32>) -> ()
  memref.dealloc %a : memref<512x512xf32>
  memref.dealloc %b : memref<256x256xf32>
  memref.dealloc %small : memref<1024xf32>
  return
}
