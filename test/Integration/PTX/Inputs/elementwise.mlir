// Elementwise chains whose math functions become libdevice calls (__nv_*):
// f32 (exp, tanh, erf, fabs, log, sqrt, rsqrt, sin, cos, logistic, pow),
// f64 (exp, log, tanh, erf) and f16/bf16 (computed in f32). One kernel each.
func.func @f32_chain(%x: tensor<4x1000xf32>, %y: tensor<4x1000xf32>) -> tensor<4x1000xf32> {
  %a = trace.exp %x : tensor<4x1000xf32>
  %b = trace.tanh %y : tensor<4x1000xf32>
  %c = trace.mul %a, %b : tensor<4x1000xf32>
  %d = trace.erf %c : tensor<4x1000xf32>
  %e = trace.abs %d : tensor<4x1000xf32>
  %f = trace.log %e : tensor<4x1000xf32>
  %g = trace.sqrt %e : tensor<4x1000xf32>
  %h = trace.rsqrt %e : tensor<4x1000xf32>
  %i = trace.sin %f : tensor<4x1000xf32>
  %j = trace.cos %g : tensor<4x1000xf32>
  %k = trace.logistic %h : tensor<4x1000xf32>
  %l = trace.pow %e, %y : tensor<4x1000xf32>
  %m = trace.add %i, %j : tensor<4x1000xf32>
  %n = trace.add %k, %l : tensor<4x1000xf32>
  %o = trace.maximum %m, %n : tensor<4x1000xf32>
  return %o : tensor<4x1000xf32>
}
func.func @f64_chain(%x: tensor<256xf64>) -> tensor<256xf64> {
  %a = trace.exp %x : tensor<256xf64>
  %b = trace.log %a : tensor<256xf64>
  %c = trace.tanh %b : tensor<256xf64>
  %d = trace.erf %c : tensor<256xf64>
  return %d : tensor<256xf64>
}
func.func @f16_chain(%x: tensor<512xf16>) -> tensor<512xf16> {
  %a = trace.exp %x : tensor<512xf16>
  %b = trace.tanh %a : tensor<512xf16>
  %c = trace.mul %a, %b : tensor<512xf16>
  return %c : tensor<512xf16>
}
func.func @bf16_gelu(%x: tensor<512xbf16>) -> tensor<512xbf16> {
  %a = trace.erf %x : tensor<512xbf16>
  %c = trace.mul %x, %a : tensor<512xbf16>
  return %c : tensor<512xbf16>
}
