// trace-remat's cut decisions on small graphs: what @f_fwd saves (its
// `saved.*` results) and what @f_bwd recomputes (ops tagged
// trace.recomputed), under the cost rules, checkpoint regions, per-op
// policies and save-names. Budgets: trace-remat-budget.mlir; errors:
// trace-remat-errors.mlir.

// A chain of elementwise ops after a matmul: the matmul's output (which the
// first mul's gradient reads) is saved, the chain is recomputed from it.
// save-names keeps b as well; only a is recomputed.
// NAMES-LABEL: func.func @chain_fwd(
// NAMES-SAME: {trace.name = "saved.b"}, tensor<4x16xf32> {trace.name = "saved.mm"}, tensor<8x16xf32> {trace.name = "saved.w"}, tensor<4x8xf32> {trace.name = "saved.x"})
// Matmuls may be recomputed: only the arguments are saved.
// NOMM-LABEL: func.func @chain_fwd(
// NOMM-SAME: -> (tensor<4x16xf32>, tensor<4x8xf32> {trace.name = "saved.x"}, tensor<8x16xf32> {trace.name = "saved.w"})
// NOMM-LABEL: func.func @chain_bwd(
// NOMM: trace.matmul %{{.*}}, %{{.*}} {trace.name = "mm", trace.recomputed}
func.func @chain(%x: tensor<4x8xf32> {trace.name = "x"}, %w: tensor<8x16xf32> {trace.name = "w"}) -> tensor<4x16xf32> {
  %m = trace.matmul %x, %w {trace.name = "mm"} : tensor<4x8xf32>, tensor<8x16xf32> -> tensor<4x16xf32>
  %a = trace.mul %m, %m {trace.name = "a"} : tensor<4x16xf32>
  %b = trace.sin %a {trace.name = "b"} : tensor<4x16xf32>
  %c = trace.cos %b {trace.name = "c"} : tensor<4x16xf32>
  return %c : tensor<4x16xf32>
}
