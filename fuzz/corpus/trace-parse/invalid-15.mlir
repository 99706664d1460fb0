func.func @full_hex_too_wide() {
  %0 = trace.full 0x7FC000000 : tensor<4xf32>
  return
}
