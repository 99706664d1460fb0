// trace-prune-releases: a page release stays only where dropping it would
// raise the function's peak (trace-resident-report's simulation).
// RUN: trace-opt %s -split-input-file -trace-prune-releases -allow-unregistered-dialect | FileCheck %s
// RUN: trace-opt %s -split-input-file -trace-prune-releases=print -allow-unregistered-dialect -o /dev/null 2>&1 | FileCheck %s --check-prefix=PRINT
// RUN: trace-opt %s -split-input-file -trace-prune-releases -trace-resident-report=print -allow-unregistered-dialect -o /dev/null 2>&1 | FileCheck %s --check-prefix=AFTER

// %a (512 KiB) is the peak. Its release comes before %b and %c, which
// would otherwise stack on it (704 KiB): it stays. %b's release comes
// after the peak, and without it %b's 128 KiB and %c's 64 KiB stay under
// 512 KiB: it goes, with its constants.
// PRINT: remark: trace-prune-releases: kept 1 of 2 page releases (524288 of 655360 bytes), dropped 0 populates of resident pages; peak 524288 bytes
// CHECK-LABEL: func @prune
// CHECK: linalg.fill {{.*}} outs(%{{.*}} : memref<131072xf32>)
// CHECK-NEXT: call @trace_rt_release_pages(%{{.*}}, %[[C0:.*]], %[[C512K:.*]])
// CHECK-NEXT: linalg.fill {{.*}} outs(%{{.*}} : memref<32768xf32>)
// CHECK-NEXT: linalg.fill {{.*}} outs(%{{.*}} : memref<16384xf32>)
// CHECK-NOT: trace_rt_release_pages
// CHECK: return
// The peak is the same with one release as with two.
// AFTER: remark: trace-resident-report: peak 524288 bytes above the entry, holds 0 at the return; arena 720896 (524288 resident at most, 524288 released)
func.func private @trace_rt_release_pages(memref<?xi8>, index, index)
func.func @prune() {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c512k = arith.constant 524288 : index
  %c640k = arith.constant 655360 : index
  %c128k = arith.constant 131072 : index
  %arena = memref.alloc() {alignment = 64 : i64} : memref<720896xi8>
  %dyn = memref.cast %arena : memref<720896xi8> to memref<?xi8>
  %a = memref.view %arena[%c0][] : memref<720896xi8> to memref<131072xf32>
  %b = memref.view %arena[%c512k][] : memref<720896xi8> to memref<32768xf32>
  %c = memref.view %arena[%c640k][] : memref<720896xi8> to memref<16384xf32>
  linalg.fill ins(%zero : f32) outs(%a : memref<131072xf32>)
  call @trace_rt_release_pages(%dyn, %c0, %c512k) : (memref<?xi8>, index, index) -> ()
  linalg.fill ins(%zero : f32) outs(%b : memref<32768xf32>)
  %b_off = arith.constant 524288 : index
  %b_len = arith.constant 131072 : index
  call @trace_rt_release_pages(%dyn, %b_off, %b_len) : (memref<?xi8>, index, index) -> ()
  linalg.fill ins(%zero : f32) outs(%c : memref<16384xf32>)
  "test.use"(%c) : (memref<16384xf32>) -> ()
  memref.dealloc %arena : memref<720896xi8>
  return
}

// -----

// A release whose pages a later buffer (%d) takes again before the peak:
// without it they stay resident only until %d's populate would have made
// them so, under the peak (%b and %d, 252 KiB; counted one step longer,
// 256 KiB at the populate, they would rise above it). It goes, and so
// does the populate, which then makes nothing resident. (Weighed as
// holding its pages to the arena's end, it stayed.)
// PRINT: remark: trace-prune-releases: kept 0 of 1 page releases (0 of 131072 bytes), dropped 1 populates of resident pages; peak 258048 bytes
// CHECK-LABEL: func @taken_again
// CHECK-NOT: call @trace_rt_release_pages
// CHECK-NOT: call @trace_rt_populate_pages
// CHECK: return
// AFTER: remark: trace-resident-report: peak 258048 bytes above the entry, holds 0 at the return; arena 262144 (258048 resident at most, 0 released)
func.func private @trace_rt_release_pages(memref<?xi8>, index, index)
func.func private @trace_rt_populate_pages(memref<?xi8>, index, index)
func.func @taken_again(%in: memref<16xf32>) {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c128k = arith.constant 131072 : index
  %arena = memref.alloc() {alignment = 4096 : i64} : memref<262144xi8>
  %dyn = memref.cast %arena : memref<262144xi8> to memref<?xi8>
  %a = memref.view %arena[%c0][] : memref<262144xi8> to memref<32768xf32>
  %d = memref.view %arena[%c0][] : memref<262144xi8> to memref<32768xf32>
  %b = memref.view %arena[%c128k][] : memref<262144xi8> to memref<31744xf32>
  linalg.fill ins(%zero : f32) outs(%a : memref<32768xf32>)
  call @trace_rt_release_pages(%dyn, %c0, %c128k) : (memref<?xi8>, index, index) -> ()
  "test.use"(%in) : (memref<16xf32>) -> ()
  call @trace_rt_populate_pages(%dyn, %c0, %c128k) : (memref<?xi8>, index, index) -> ()
  linalg.fill ins(%zero : f32) outs(%d : memref<32768xf32>)
  linalg.fill ins(%zero : f32) outs(%b : memref<31744xf32>)
  "test.use"(%b, %d) : (memref<31744xf32>, memref<32768xf32>) -> ()
  memref.dealloc %arena : memref<262144xi8>
  return
}

// -----

// The same pages taken again by the op that writes them (no populate):
// the release goes.
// PRINT: remark: trace-prune-releases: kept 0 of 1 page releases (0 of 131072 bytes), dropped 0 populates of resident pages; peak 258048 bytes
// CHECK-LABEL: func @taken_again_by_fill
// CHECK-NOT: call @trace_rt_release_pages
// CHECK: return
func.func private @trace_rt_release_pages(memref<?xi8>, index, index)
func.func @taken_again_by_fill(%in: memref<16xf32>) {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c128k = arith.constant 131072 : index
  %arena = memref.alloc() {alignment = 4096 : i64} : memref<262144xi8>
  %dyn = memref.cast %arena : memref<262144xi8> to memref<?xi8>
  %a = memref.view %arena[%c0][] : memref<262144xi8> to memref<32768xf32>
  %d = memref.view %arena[%c0][] : memref<262144xi8> to memref<32768xf32>
  %b = memref.view %arena[%c128k][] : memref<262144xi8> to memref<31744xf32>
  linalg.fill ins(%zero : f32) outs(%a : memref<32768xf32>)
  call @trace_rt_release_pages(%dyn, %c0, %c128k) : (memref<?xi8>, index, index) -> ()
  "test.use"(%in) : (memref<16xf32>) -> ()
  linalg.fill ins(%zero : f32) outs(%d : memref<32768xf32>)
  linalg.fill ins(%zero : f32) outs(%b : memref<31744xf32>)
  "test.use"(%b, %d) : (memref<31744xf32>, memref<32768xf32>) -> ()
  memref.dealloc %arena : memref<262144xi8>
  return
}

// -----

// A public function another function of the module calls: its peak is
// part of the caller's, which the pass does not weigh, so its releases
// all stay (the one after the peak too), and it reports nothing.
// PRINT-NOT: remark: trace-prune-releases: {{.*}}inner
// CHECK-LABEL: func @inner
// CHECK: linalg.fill
// CHECK-NEXT: call @trace_rt_release_pages
// CHECK-LABEL: func @outer
func.func private @trace_rt_release_pages(memref<?xi8>, index, index)
func.func @inner() {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c64k = arith.constant 65536 : index
  %arena = memref.alloc() {alignment = 64 : i64} : memref<131072xi8>
  %dyn = memref.cast %arena : memref<131072xi8> to memref<?xi8>
  %a = memref.view %arena[%c0][] : memref<131072xi8> to memref<16384xf32>
  %b = memref.view %arena[%c64k][] : memref<131072xi8> to memref<16384xf32>
  linalg.fill ins(%zero : f32) outs(%a : memref<16384xf32>)
  call @trace_rt_release_pages(%dyn, %c0, %c64k) : (memref<?xi8>, index, index) -> ()
  linalg.fill ins(%zero : f32) outs(%b : memref<16384xf32>)
  "test.use"(%b) : (memref<16384xf32>) -> ()
  memref.dealloc %arena : memref<131072xi8>
  return
}
func.func @outer() {
  call @inner() : () -> ()
  return
}
