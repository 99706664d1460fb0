func.func @f() -> tensor<4xf32> {
  %c = trace.constant dense<[1.0, 2.0, 3.0]> : tensor<4xf32>
  return %c : tensor<4xf32>
}
