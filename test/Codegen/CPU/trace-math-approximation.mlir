// f32 transcendental functions become polynomials (vectorizable
// arithmetic); f64 keeps the math op for libm.
// RUN: trace-opt %s -trace-math-approximation | FileCheck %s

// CHECK-LABEL: func @f32
// CHECK-NOT: math.tanh
// CHECK-NOT: math.exp
// CHECK-NOT: math.erf
// CHECK: return
func.func @f32(%x: f32) -> (f32, f32, f32) {
  %a = math.tanh %x : f32
  %b = math.exp %x : f32
  %c = math.erf %x : f32
  return %a, %b, %c : f32, f32, f32
}

// CHECK-LABEL: func @f64
// CHECK: math.tanh
// CHECK: math.exp
func.func @f64(%x: f64) -> (f64, f64) {
  %a = math.tanh %x : f64
  %b = math.exp %x : f64
  return %a, %b : f64, f64
}
