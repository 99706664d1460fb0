func.func @dynamic_shape(%x: tensor<?xf32>) {
  %0 = trace.neg %x : tensor<?xf32>
  return
}
