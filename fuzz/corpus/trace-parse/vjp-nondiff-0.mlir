// Where trace-autodiff passes no gradient: through the ops marked
// NonDifferentiable (compare, iota, random_uniform), into integer or bool
// values, and back through a float-to-integer convert. Such values get no
// cotangent, so no backward op is built for them and the rules' dead
// cotangent terms are removed; integer and bool arguments get no gradient
// result, and float arguments nothing reaches get zeros.

// select on a compare-derived predicate: only the chosen sides get g; the
// predicate gets no cotangent, so nothing flows through the compare into x*x
// (no 2 * x * g term: the backward has no mul at all).
func.func @select_compare(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %sq = trace.mul %x, %x : tensor<4xf32>
  %c = trace.compare gt, %sq, %y : tensor<4xf32>
  %r = trace.select %c, %x, %y : tensor<4xi1>, tensor<4xf32>
  return %r : tensor<4xf32>
}
