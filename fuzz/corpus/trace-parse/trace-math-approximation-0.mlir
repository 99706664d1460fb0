// f32 transcendental functions become polynomials (vectorizable
// arithmetic); f64 keeps the math op for libm.

func.func @f32(%x: f32) -> (f32, f32, f32) {
  %a = math.tanh %x : f32
  %b = math.exp %x : f32
  %c = math.erf %x : f32
  return %a, %b, %c : f32, f32, f32
}

func.func @f64(%x: f64) -> (f64, f64) {
  %a = math.tanh %x : f64
  %b = math.exp %x : f64
  return %a, %b : f64, f64
}
