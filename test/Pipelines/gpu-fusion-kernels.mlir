// Each trace.fusion becomes exactly one GPU kernel: per function, the
// gpu.launch_func count is the number of fusions plus the kernels of the
// ops left outside (stated per case). Without trace-fuse the same
// functions take more (UNFUSED).
// RUN: trace-opt %s -split-input-file -trace-fuse | FileCheck %s --check-prefix=FUSE
// RUN: trace-opt %s -split-input-file -trace-fuse -trace-gpu-pipeline | FileCheck %s
// RUN: trace-opt %s -split-input-file -trace-gpu-pipeline | FileCheck %s --check-prefix=UNFUSED
// RUN: trace-opt %s -split-input-file -trace-fuse -trace-gpu-pipeline=cublas=0 | FileCheck %s --check-prefix=NOBLAS

// Softmax: 3 fusions (max; shifted exp and sum; divide), nothing outside:
// 3 kernels. Unfused: fill, max, exp, fill, sum, divide.
// FUSE-LABEL: func.func @softmax(
// FUSE-COUNT-3: trace.fusion "
// FUSE-NOT: trace.fusion "
// CHECK-LABEL: llvm.func @softmax(
// CHECK-COUNT-3: gpu.launch_func
// CHECK-NOT: gpu.launch_func
// UNFUSED-LABEL: llvm.func @softmax(
// UNFUSED-COUNT-6: gpu.launch_func
// UNFUSED-NOT: gpu.launch_func
func.func @softmax(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %m = trace.reduce_max %x dims = [1] : tensor<4x8xf32> -> tensor<4xf32>
  %mb = trace.broadcast_in_dim %m, dims = [0] : tensor<4xf32> -> tensor<4x8xf32>
  %s = trace.sub %x, %mb : tensor<4x8xf32>
  %e = trace.exp %s : tensor<4x8xf32>
  %sum = trace.reduce_sum %e dims = [1] : tensor<4x8xf32> -> tensor<4xf32>
  %sb = trace.broadcast_in_dim %sum, dims = [0] : tensor<4xf32> -> tensor<4x8xf32>
  %d = trace.div %e, %sb : tensor<4x8xf32>
  return %d : tensor<4x8xf32>
}

// -----

// A layer norm: 4 fusions (sum; centre, square and sum; variance, eps and
// rsqrt; scale and shift) and one op outside (the mean's divide, a lone
// elementwise op on the reduction's result, starting no fusion): 5 kernels.
// Unfused: 2 fills, 2 reductions, and 4 loop nests (elementwise fusion
// cannot join a producer read through a broadcast; the centred x, which
// the square and the scale both read, is computed in each).
// FUSE-LABEL: func.func @layer_norm(
// FUSE-COUNT-4: trace.fusion "
// FUSE-NOT: trace.fusion "
// CHECK-LABEL: llvm.func @layer_norm(
// CHECK-COUNT-5: gpu.launch_func
// CHECK-NOT: gpu.launch_func
// UNFUSED-LABEL: llvm.func @layer_norm(
// UNFUSED-COUNT-8: gpu.launch_func
// UNFUSED-NOT: gpu.launch_func
func.func @layer_norm(%x: tensor<8x32xf32>, %g: tensor<32xf32>, %b: tensor<32xf32>) -> tensor<8x32xf32> {
  %n = trace.full 32.0 : tensor<8xf32>
  %eps = trace.full 1.0e-5 : tensor<8xf32>
  %s = trace.reduce_sum %x dims = [1] : tensor<8x32xf32> -> tensor<8xf32>
  %mean = trace.div %s, %n : tensor<8xf32>
  %mb = trace.broadcast_in_dim %mean, dims = [0] : tensor<8xf32> -> tensor<8x32xf32>
  %c = trace.sub %x, %mb : tensor<8x32xf32>
  %c2 = trace.mul %c, %c : tensor<8x32xf32>
  %v = trace.reduce_sum %c2 dims = [1] : tensor<8x32xf32> -> tensor<8xf32>
  %var = trace.div %v, %n : tensor<8xf32>
  %ve = trace.add %var, %eps : tensor<8xf32>
  %r = trace.rsqrt %ve : tensor<8xf32>
  %rb = trace.broadcast_in_dim %r, dims = [0] : tensor<8xf32> -> tensor<8x32xf32>
  %y = trace.mul %c, %rb : tensor<8x32xf32>
  %gb = trace.broadcast_in_dim %g, dims = [1] : tensor<32xf32> -> tensor<8x32xf32>
  %yg = trace.mul %y, %gb : tensor<8x32xf32>
  %bb = trace.broadcast_in_dim %b, dims = [1] : tensor<32xf32> -> tensor<8x32xf32>
  %o = trace.add %yg, %bb : tensor<8x32xf32>
  return %o : tensor<8x32xf32>
}

// -----

// A linear layer with gelu(tanh): the matmul stays outside, a cuBLAS call
// that overwrites its zero-filled output (beta 0: no fill kernel; the
// transposed weight is read in place); bias and gelu are 1 fusion: 1
// kernel and the call. Unfused, the same: upstream's elementwise fusion
// already joins this chain. Without cuBLAS, the fill and the matmul's loop
// nest are 2 kernels more (NOBLAS).
// FUSE-LABEL: func.func @linear_gelu(
// FUSE-COUNT-1: trace.fusion "
// FUSE-NOT: trace.fusion "
// CHECK-LABEL: llvm.func @linear_gelu(
// CHECK-NOT: gpu.launch_func
// CHECK: llvm.call @trace_cuda_matmul_f32(
// CHECK: gpu.launch_func
// CHECK-NOT: gpu.launch_func
// UNFUSED-LABEL: llvm.func @linear_gelu(
// UNFUSED-COUNT-1: gpu.launch_func
// UNFUSED-NOT: gpu.launch_func
// NOBLAS-LABEL: llvm.func @linear_gelu(
// NOBLAS-COUNT-3: gpu.launch_func
// NOBLAS-NOT: gpu.launch_func
// NOBLAS-NOT: llvm.call @trace_cuda
func.func @linear_gelu(%x: tensor<8x16xf32>, %w: tensor<32x16xf32>, %b: tensor<32xf32>) -> tensor<8x32xf32> {
  %wt = trace.transpose %w, perm = [1, 0] : tensor<32x16xf32> -> tensor<16x32xf32>
  %m = trace.matmul %x, %wt : tensor<8x16xf32>, tensor<16x32xf32> -> tensor<8x32xf32>
  %bb = trace.broadcast_in_dim %b, dims = [1] : tensor<32xf32> -> tensor<8x32xf32>
  %h = trace.add %m, %bb : tensor<8x32xf32>
  %half = trace.full 0.5 : tensor<8x32xf32>
  %one = trace.full 1.0 : tensor<8x32xf32>
  %k = trace.full 0.7978845608 : tensor<8x32xf32>
  %hk = trace.mul %h, %k : tensor<8x32xf32>
  %t = trace.tanh %hk : tensor<8x32xf32>
  %t1 = trace.add %t, %one : tensor<8x32xf32>
  %hh = trace.mul %h, %half : tensor<8x32xf32>
  %o = trace.mul %hh, %t1 : tensor<8x32xf32>
  return %o : tensor<8x32xf32>
}
