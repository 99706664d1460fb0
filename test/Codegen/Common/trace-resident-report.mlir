// RUN: trace-opt %s -split-input-file -trace-resident-report=print -allow-unregistered-dialect -o /dev/null 2>&1 | FileCheck %s
// RUN: trace-opt %s -trace-resident-report="output=%t.json" -allow-unregistered-dialect -o /dev/null
// RUN: FileCheck %s --check-prefix=JSON < %t.json

// The arena's pages are resident from a view's first use: %a's 16 pages,
// then %b's (131072 bytes, the peak, at the second fill). The release
// hands %a's back; the copy writes the out-parameter (%out, after the one
// input: 4096 bytes, below glibc's mapping threshold, so its bytes); the
// arena's dealloc drops the rest. The out-parameter is held at the return.
// %a's last use is the first fill, so at the second its 16 pages are
// resident and idle (the release comes after): the live bytes peak at the
// copy, %b and %out (65536 + 4096).
// CHECK: remark: trace-resident-report: peak 131072 bytes above the entry, holds 4096 at the return; arena 131072 (131072 resident at most, 65536 released), donated 0 (0 freed, 0 before the peak); live peak 69632
// JSON: "arena_bytes": 131072,
// JSON: "freed_donated_before_peak_bytes": 0,
// JSON: "held_bytes": 4096,
// JSON: "live_peak_bytes": 69632,
// JSON: "name": "arena",
// JSON: "out_bytes": 4096,
// JSON: "peak_at": "linalg.fill at
// JSON: "peak_bytes": 131072,
// JSON: "released_bytes": 65536,
func.func private @trace_rt_release_pages(memref<?xi8>, index, index)
func.func @arena(%in: memref<1024xf32>, %out: memref<1024xf32>)
    attributes {trace.inputs = 1 : i64} {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c64k = arith.constant 65536 : index
  %arena = memref.alloc() {alignment = 64 : i64} : memref<131072xi8>
  %dyn = memref.cast %arena : memref<131072xi8> to memref<?xi8>
  %a = memref.view %arena[%c0][] : memref<131072xi8> to memref<16384xf32>
  %b = memref.view %arena[%c64k][] : memref<131072xi8> to memref<16384xf32>
  linalg.fill ins(%zero : f32) outs(%a : memref<16384xf32>)
  linalg.fill ins(%zero : f32) outs(%b : memref<16384xf32>)
  call @trace_rt_release_pages(%dyn, %c0, %c64k) : (memref<?xi8>, index, index) -> ()
  %head = memref.subview %b[0] [1024] [1] : memref<16384xf32> to memref<1024xf32, strided<[1]>>
  memref.copy %head, %out : memref<1024xf32, strided<[1]>> to memref<1024xf32>
  memref.dealloc %arena : memref<131072xi8>
  return
}

// -----

// A copy from %a into %b holds both live: %a to its last use, %b from
// its first, on the pages %c left resident and idle. A lifetime that
// started after its op, or ended before it, would leave half idle there.
// CHECK: remark: trace-resident-report: peak 131072 bytes above the entry, holds 0 at the return; arena 131072 (131072 resident at most, 0 released), donated 0 (0 freed, 0 before the peak); live peak 131072
func.func @live_copy(%in: memref<1024xf32>) attributes {trace.inputs = 1 : i64} {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c64k = arith.constant 65536 : index
  %arena = memref.alloc() {alignment = 4096 : i64} : memref<131072xi8>
  %a = memref.view %arena[%c0][] : memref<131072xi8> to memref<16384xf32>
  %b = memref.view %arena[%c64k][] : memref<131072xi8> to memref<16384xf32>
  %c = memref.view %arena[%c64k][] : memref<131072xi8> to memref<16384xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<16384xf32>)
  "test.use"(%c) : (memref<16384xf32>) -> ()
  linalg.fill ins(%zero : f32) outs(%a : memref<16384xf32>)
  memref.copy %a, %b : memref<16384xf32> to memref<16384xf32>
  "test.use"(%b) : (memref<16384xf32>) -> ()
  memref.dealloc %arena : memref<131072xi8>
  return
}

// -----

// A callee with an arena of its own adds its peak to the caller's, and
// its live peak to the caller's live bytes: its %p is idle when %q is
// written.
// CHECK: remark: trace-resident-report: peak 131072 bytes above the entry, holds 0 at the return; arena 0 (0 resident at most, 0 released), donated 0 (0 freed, 0 before the peak); live peak 65536
func.func private @own_arena() {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c64k = arith.constant 65536 : index
  %arena = memref.alloc() {alignment = 4096 : i64} : memref<131072xi8>
  %p = memref.view %arena[%c0][] : memref<131072xi8> to memref<16384xf32>
  %q = memref.view %arena[%c64k][] : memref<131072xi8> to memref<16384xf32>
  linalg.fill ins(%zero : f32) outs(%p : memref<16384xf32>)
  linalg.fill ins(%zero : f32) outs(%q : memref<16384xf32>)
  "test.use"(%q) : (memref<16384xf32>) -> ()
  memref.dealloc %arena : memref<131072xi8>
  return
}
func.func @calls_own_arena() attributes {trace.inputs = 0 : i64} {
  call @own_arena() : () -> ()
  return
}

// -----

// A donated argument (one the function frees) is resident at the entry and
// goes at its dealloc; an input is not counted. %t (128 KiB) is the peak,
// before the donated value is freed: every byte resident there is live.
// CHECK: remark: trace-resident-report: peak 131072 bytes above the entry, holds 0 at the return; arena 0 (0 resident at most, 0 released), donated 65536 (65536 freed, 0 before the peak); live peak 131072
func.func @donated(%saved: memref<16384xf32>, %w: memref<16384xf32>)
    attributes {trace.inputs = 2 : i64} {
  %zero = arith.constant 0.0 : f32
  %t = memref.alloc() : memref<32768xf32>
  linalg.fill ins(%zero : f32) outs(%t : memref<32768xf32>)
  "test.use"(%saved, %w, %t) : (memref<16384xf32>, memref<16384xf32>, memref<32768xf32>) -> ()
  memref.dealloc %saved : memref<16384xf32>
  "test.use"(%t) : (memref<32768xf32>) -> ()
  memref.dealloc %t : memref<32768xf32>
  return
}

// -----

// The donated value (64 KiB) is freed at its last read, before the
// backward's larger temporary (128 KiB) is written: the peak comes after
// the free, the temporary alone.
// CHECK: remark: trace-resident-report: peak 65536 bytes above the entry, holds 0 at the return; arena 0 (0 resident at most, 0 released), donated 65536 (65536 freed, 65536 before the peak); live peak 65536
func.func @donated_first(%saved: memref<16384xf32>)
    attributes {trace.inputs = 1 : i64} {
  %zero = arith.constant 0.0 : f32
  "test.use"(%saved) : (memref<16384xf32>) -> ()
  memref.dealloc %saved : memref<16384xf32>
  %t = memref.alloc() : memref<32768xf32>
  linalg.fill ins(%zero : f32) outs(%t : memref<32768xf32>)
  memref.dealloc %t : memref<32768xf32>
  return
}

// -----

// A layer's function adds its own peak (%s, 64 KiB) for the length of the
// call, on top of the caller's %x (64 KiB); a returned allocation (a saved
// value, allocated by the library) is held.
// CHECK: remark: trace-resident-report: peak 131072 bytes above the entry, holds 65536 at the return; arena 0 (0 resident at most, 0 released), donated 0 (0 freed, 0 before the peak); live peak 131072
// JSON: "name": "calls",
// JSON: "peak_at": "func.call at
// JSON: "returned_bytes": 65536
func.func private @layer(%x: memref<16384xf32>) {
  %zero = arith.constant 0.0 : f32
  %s = memref.alloc() : memref<16384xf32>
  linalg.fill ins(%zero : f32) outs(%s : memref<16384xf32>)
  "test.use"(%x, %s) : (memref<16384xf32>, memref<16384xf32>) -> ()
  memref.dealloc %s : memref<16384xf32>
  return
}
func.func @calls(%in: memref<16384xf32>) -> memref<16384xf32>
    attributes {trace.inputs = 1 : i64} {
  %x = memref.alloc() : memref<16384xf32>
  memref.copy %in, %x : memref<16384xf32> to memref<16384xf32>
  call @layer(%x) : (memref<16384xf32>) -> ()
  return %x : memref<16384xf32>
}

// -----

// More than one block: not modelled, and said so.
// CHECK: remark: trace-resident-report: peak 0 bytes above the entry, holds 0 at the return; arena 0 (0 resident at most, 0 released), donated 0 (0 freed, 0 before the peak); live peak 0; not modelled: more than one block
func.func @branches(%c: i1) {
  cf.cond_br %c, ^a, ^b
^a:
  return
^b:
  return
}

// -----

// An allocation of unknown size, and one in a loop's body (it comes and
// goes with each trip): not modelled, and said where.
// CHECK: remark: trace-resident-report: {{.*}}; not modelled: an allocation of unknown size (memref.alloc at
// CHECK: remark: trace-resident-report: {{.*}}; not modelled: an allocation inside a region (memref.alloc at
func.func @dynamic(%n: index) {
  %a = memref.alloc(%n) : memref<?xf32>
  "test.use"(%a) : (memref<?xf32>) -> ()
  memref.dealloc %a : memref<?xf32>
  return
}
func.func @loop(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    %a = memref.alloc() : memref<16384xf32>
    "test.use"(%a) : (memref<16384xf32>) -> ()
    memref.dealloc %a : memref<16384xf32>
  }
  return
}
