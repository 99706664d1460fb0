func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = trace.add %b, %x : tensor<4xf32>
  %b = trace.neg %a : tensor<4xf32>
  return %b : tensor<4xf32>
}
