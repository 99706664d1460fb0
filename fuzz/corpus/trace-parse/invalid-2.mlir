func.func @unsupported_element_type(%x: tensor<4xi8>) {
  %0 = trace.add %x, %x : tensor<4xi8>
  return
}
