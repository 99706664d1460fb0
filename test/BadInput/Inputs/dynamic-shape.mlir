func.func @f(%x: tensor<?xf32>) -> tensor<?xf32> {
  %e = trace.exp %x : tensor<?xf32>
  return %e : tensor<?xf32>
}
