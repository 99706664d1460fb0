func.func @yield_outside_region(%a: tensor<4xf32>) {
  trace.yield %a : tensor<4xf32>
}
