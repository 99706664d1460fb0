// trace-resident-report on the page calls of trace-plan-buffers' populate-pages.
// RUN: trace-opt %s -trace-resident-report=print -allow-unregistered-dialect -o /dev/null 2>&1 | FileCheck %s

// The populate calls make resident what they name, when they run: %b's
// pages (trace_rt_populate_pages: 64 KiB, not the whole arena), then the
// out-parameter (trace_rt_populate_buffer: 65536 bytes, mapped, whole
// pages), before the fill of %a that is the peak (192 KiB). Were they
// ignored, the out-parameter would come only at the copy, after %a's
// release, and the peak would be 128 KiB.
// CHECK: remark: trace-resident-report: peak 196608 bytes above the entry, holds 65536 at the return; arena 131072 (131072 resident at most, 65536 released)
func.func private @trace_rt_populate_pages(memref<?xi8>, index, index)
func.func private @trace_rt_populate_buffer(index, index)
func.func private @trace_rt_release_pages(memref<?xi8>, index, index)
func.func @populated(%in: memref<16384xf32>, %out: memref<16384xf32>)
    attributes {trace.inputs = 1 : i64} {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c64k = arith.constant 65536 : index
  %arena = memref.alloc() {alignment = 64 : i64} : memref<131072xi8>
  %dyn = memref.cast %arena : memref<131072xi8> to memref<?xi8>
  %a = memref.view %arena[%c0][] : memref<131072xi8> to memref<16384xf32>
  %b = memref.view %arena[%c64k][] : memref<131072xi8> to memref<16384xf32>
  call @trace_rt_populate_pages(%dyn, %c64k, %c64k) : (memref<?xi8>, index, index) -> ()
  %p = memref.extract_aligned_pointer_as_index %out : memref<16384xf32> -> index
  call @trace_rt_populate_buffer(%p, %c64k) : (index, index) -> ()
  linalg.fill ins(%zero : f32) outs(%a : memref<16384xf32>)
  call @trace_rt_release_pages(%dyn, %c0, %c64k) : (memref<?xi8>, index, index) -> ()
  linalg.fill ins(%zero : f32) outs(%b : memref<16384xf32>)
  memref.copy %b, %out : memref<16384xf32> to memref<16384xf32>
  memref.dealloc %arena : memref<131072xi8>
  return
}
