// trace-memory-report on a training split, checked against numbers worked
// out by hand. f(x) = tanh(exp(x)) on tensor<4xf32> (16 bytes a value):
//  @f_fwd: x is live (16); exp allocates (32) and x dies (16); tanh
//    allocates (32). Peak 32; exp(x) and tanh(exp(x)) are saved: 2 values,
//    32 bytes of activations. FLOPs 4 + 4.
//  @f_bwd: its 3 arguments (saved tanh, saved exp, cotangent) are 48 bytes;
//    y*y allocates (64), y dies (48); full 1 (64); 1 - y^2 (80, the peak),
//    two die (48); g * that (64) ... FLOPs 4 (mul) + 0 (full) + 4 + 4 + 4.
// RUN: trace-opt %s --trace-autodiff --trace-memory-report -o /dev/null 2>&1 | FileCheck %s
// RUN: trace-opt %s --trace-autodiff --trace-memory-report="json output=%t.json svg=%t.svg" -o /dev/null
// RUN: FileCheck %s --check-prefix=JSON < %t.json
// RUN: FileCheck %s --check-prefix=SVG < %t.svg
// RUN: trace-opt %s --trace-autodiff --trace-remat --trace-memory-report="svg=%t.remat.svg" -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMAT
// RUN: FileCheck %s --check-prefix=REMATSVG < %t.remat.svg
// RUN: trace-opt %s --trace-memory-report -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOSPLIT
// RUN: trace-opt %s --trace-autodiff --trace-memory-report=peak-values=3 -o /dev/null 2>&1 | FileCheck %s --check-prefix=PEAK
// RUN: not trace-opt %s --trace-autodiff --trace-memory-report="output=%t/no/such/dir/r.txt" -o /dev/null 2>&1 | FileCheck %s --check-prefix=UNWRITABLE

// CHECK: trace-memory-report: @f_fwd / @f_bwd
// CHECK-NEXT: forward backward
// CHECK-NEXT: ops{{ +}}2{{ +}}5
// CHECK-NEXT: FLOPs{{ +}}8{{ +}}16
// CHECK-NEXT: of which recomputation{{ +}}0{{ +}}0
// CHECK-NEXT: ops recomputed{{ +}}0{{ +}}0
// CHECK-NEXT: argument bytes{{ +}}16{{ +}}48
// CHECK-NEXT: peak live bytes (with arguments){{ +}}32{{ +}}80
// Without the caller's x: the forward's two results (exp(x) saved, tanh
// the result), and in the backward the saved values, the cotangent and
// what they make. The floor: the gradient and the largest transient.
// CHECK-NEXT: peak allocated (without weights){{ +}}32{{ +}}80
// CHECK-NEXT: the step: peak 80 bytes above weights and inputs; floor 32 (gradients 16 + largest transient 16)
// CHECK-NEXT: saved for backward: 2 values, 32 bytes (32 of activations, 0 of arguments)

// What makes each peak, largest first (here all 16 bytes, in argument then
// program order): the forward's two results; in the backward, at the full
// 1 (op 1), the three arguments, y*y and the full.
// PEAK: allocated at the forward's peak (op, from, to):
// PEAK-NEXT: 16 trace.exp 0 2
// PEAK-NEXT: 16 trace.tanh 1 2
// PEAK-NEXT: allocated at the backward's peak (op, from, to):
// PEAK-NEXT: 16 saved.tanh.0 -1 1
// PEAK-NEXT: 16 saved.exp.1 -1 4
// PEAK-NEXT: 16 cot.result0 -1 3
// PEAK-NEXT: ... 2 more

// JSON: "backward": {
// JSON-NEXT: "allocated_peak_bytes": 80,
// JSON-NEXT: "argument_bytes": 48,
// JSON-NEXT: "flops": 16,
// JSON-NEXT: "largest_transient_bytes": 16,
// JSON-NEXT: "ops": 5,
// JSON-NEXT: "peak_live_bytes": 80,
// JSON: "forward": {
// JSON: "peak_live_bytes": 32,
// JSON: "name": "f",
// JSON-NEXT: "saved": {
// JSON-NEXT: "activation_bytes": 32,
// JSON-NEXT: "argument_bytes": 0,
// JSON-NEXT: "values": 2

// Seven points: 2 forward ops then 5 backward ops, the dashed boundary.
// SVG: <svg xmlns="http://www.w3.org/2000/svg"
// SVG: @f: live bytes over the schedule (forward | backward)
// SVG: stroke-dasharray
// SVG: <polyline {{.*}} points="{{[0-9.]+,[0-9.]+ [0-9.]+,[0-9.]+ [0-9.]+,[0-9.]+ [0-9.]+,[0-9.]+ [0-9.]+,[0-9.]+ [0-9.]+,[0-9.]+ [0-9.]+,[0-9.]+ }}"/>
// SVG: forward peak 32 B, backward peak 80 B, saved 32 B of activations

// After trace-remat the backward reads only x (an argument, passed to
// @f_bwd again rather than returned by @f_fwd) and recomputes exp and
// tanh (8 FLOPs); the forward's peak is x and one value, 16 + 16 = 32,
// as before remat. The backward's peak is 64: the cotangent, the full 1,
// exp(x) and tanh (x died at exp); then y*y writes over y and 1 - y^2 over
// one of its operands, each the last read of a result of the same size
// (in place, as bufferization does; arguments are never overwritten, which
// keeps the first table's 80). The line after it is trace-autodiff's split,
// rebuilt from @f_grad: the numbers of the first table above. The SVG draws
// that schedule dashed (2 + 5 points) under the current one (2 + 7).
// REMAT: peak live bytes (with arguments){{ +}}32{{ +}}64
// REMAT-NEXT: peak allocated (without weights){{ +}}32{{ +}}64
// REMAT-NEXT: the step: peak 64 bytes
// REMAT-NEXT: saved for backward: 1 values, 16 bytes (0 of activations, 16 of arguments)
// REMAT-NEXT: before trace-remat (trace-autodiff's split): 32 bytes of activations saved, peak live bytes 32 / 80, recompute FLOPs 0
// REMATSVG: <polyline {{.*}} stroke-dasharray="3 2" points="{{[0-9.]+,[0-9.]+ [0-9.]+,[0-9.]+ [0-9.]+,[0-9.]+ [0-9.]+,[0-9.]+ [0-9.]+,[0-9.]+ [0-9.]+,[0-9.]+ [0-9.]+,[0-9.]+ }}"/>
// REMATSVG: dashed: before trace-remat, backward peak 80 B
// REMATSVG: <polyline fill="none" stroke="#1f77b4" {{.*}} points="{{[0-9.]+,[0-9.]+ [0-9.]+,[0-9.]+ [0-9.]+,[0-9.]+ [0-9.]+,[0-9.]+ [0-9.]+,[0-9.]+ [0-9.]+,[0-9.]+ [0-9.]+,[0-9.]+ [0-9.]+,[0-9.]+ [0-9.]+,[0-9.]+ }}"/>

// NOSPLIT: warning: trace-memory-report: no training split (@f_fwd/@f_bwd) found; run trace-autodiff first
// UNWRITABLE: error: trace-memory-report: cannot write '{{.*}}r.txt'

func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %e = trace.exp %x : tensor<4xf32>
  %t = trace.tanh %e : tensor<4xf32>
  return %t : tensor<4xf32>
}
