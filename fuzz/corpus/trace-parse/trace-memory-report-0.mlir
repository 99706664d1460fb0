// trace-memory-report on a training split, checked against numbers worked
// out by hand. f(x) = tanh(exp(x)) on tensor<4xf32> (16 bytes a value):
//  @f_fwd: x is live (16); exp allocates (32) and x dies (16); tanh
//    allocates (32). Peak 32; exp(x) and tanh(exp(x)) are saved: 2 values,
//    32 bytes of activations. FLOPs 4 + 4.
//  @f_bwd: its 3 arguments (saved tanh, saved exp, cotangent) are 48 bytes;
//    y*y allocates (64), y dies (48); full 1 (64); 1 - y^2 (80, the peak),
//    two die (48); g * that (64) ... FLOPs 4 (mul) + 0 (full) + 4 + 4 + 4.


// JSON: "backward": {
// JSON-NEXT: "argument_bytes": 48,
// JSON-NEXT: "flops": 16,
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

// NOSPLIT: warning: trace-memory-report: no training split (@f_fwd/@f_bwd) found; run trace-autodiff first
// UNWRITABLE: error: trace-memory-report: cannot write '{{.*}}r.txt'

func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %e = trace.exp %x : tensor<4xf32>
  %t = trace.tanh %e : tensor<4xf32>
  return %t : tensor<4xf32>
}
