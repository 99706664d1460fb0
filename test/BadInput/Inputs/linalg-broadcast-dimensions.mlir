// A valid chunk, then linalg.broadcast with malformed dimensions: the same
// crash of MLIR 22's parser as linalg.transpose's, in the second chunk of a
// --split-input-file run.
func.func @ok(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}

// -----

func.func @broadcast(%x: tensor<16xf32>, %init: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %b = linalg.broadcast ins(%x : tensor<16xf32>) outs(%init : tensor<8x16xf32>) dimensions = [x]
  return %b : tensor<8x16xf32>
}
