// RUN: trace-opt %s --split-input-file --verify-diagnostics --trace-gpu-map-linalg
// RUN: not trace-opt %s --split-input-file --trace-gpu-map-linalg="block-size=2048" 2>&1 | FileCheck %s --check-prefix=BLOCK

// RUN: not trace-opt %s --split-input-file --trace-gpu-map-linalg="max-blocks=0" 2>&1 | FileCheck %s --check-prefix=MAXBLOCKS

// BLOCK: block-size must be in [1, 1024], got 2048
// MAXBLOCKS: max-blocks must be in [1, 2^31 - 1], got 0

func.func @tensors(%x: tensor<4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  // expected-error @below {{must be on buffers before the GPU mapping}}
  %r = linalg.copy ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}
