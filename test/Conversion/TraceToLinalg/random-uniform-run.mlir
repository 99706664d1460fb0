// Runs the lowered trace.random_uniform (stock mlir-opt to LLVM, then
// mlir-runner) and compares its bits with trace/Support/Philox.h, for every
// float type. Each uniform u = k * 2^-p is printed as the integer k
// (u * 2^p, exact); the expected k are philox::randomWord(seed, offset, i)
// >> (32 - p) as computed by Philox.h (itself checked against Random123's
// known-answer vectors in unittests/Support/PhiloxTest.cpp). The seed has
// both halves non-zero and the offset makes the twelve elements' counters
// cross 2^32 (blocks 0xFFFFFFFE, 0xFFFFFFFF, 0x100000000), so the key
// halves, hi(n), the index / 4 and index % 4 split, and the row-major index
// of a rank-2 result are all exercised. Bit-exact: no tolerance.
//
// REQUIRES: mlir-runner
// RUN: trace-opt %s --trace-to-linalg \
// RUN: | mlir-opt-stock --one-shot-bufferize="bufferize-function-boundaries" \
// RUN:     --convert-linalg-to-loops --convert-vector-to-scf --convert-scf-to-cf \
// RUN:     --expand-strided-metadata --lower-affine --convert-math-to-llvm \
// RUN:     --convert-vector-to-llvm --convert-arith-to-llvm \
// RUN:     --convert-index-to-llvm --finalize-memref-to-llvm \
// RUN:     --convert-func-to-llvm --convert-cf-to-llvm --reconcile-unrealized-casts \
// RUN: | mlir-runner -e main -entry-point-result=void \
// RUN:     -shared-libs=%mlir_c_runner_utils \
// RUN: | FileCheck %s

// f32, p = 24
// CHECK: ( 16036655, 11097834, 11655549, 5917886, 472066, 9925939, 6605202, 3297349, 14237997, 5889343, 10307232, 6105053 )
// f64, p = 32
// CHECK-NEXT: ( 4105383707, 2841045556, 2983820733, 1514978990, 120849060, 2541040414, 1690931885, 844121516, 3644927338, 1507671912, 2638651410, 1562893785 )
// f16, p = 11
// CHECK-NEXT: ( 1957, 1354, 1422, 722, 57, 1211, 806, 402, 1738, 718, 1258, 745 )
// bf16, p = 8
// CHECK-NEXT: ( 244, 169, 177, 90, 7, 151, 100, 50, 217, 89, 157, 93 )
// seed 0, offset 0, rank 1, f32: the first five words of the zero stream
// CHECK-NEXT: ( 6694888, 14772677, 12343212, 10158299, 16311500 )

func.func @main() {
  // 0x0123456789ABCDEF
  %seed = trace.constant dense<81985529216486895> : tensor<i64>
  %f32 = trace.random_uniform %seed, offset = 4294967294 : tensor<3x4xf32>
  %f32w = trace.convert %f32 : tensor<3x4xf32> -> tensor<3x4xf64>
  %two24 = trace.full 16777216.0 : tensor<3x4xf64>
  func.call @print_scaled(%f32w, %two24) : (tensor<3x4xf64>, tensor<3x4xf64>) -> ()
  %f64 = trace.random_uniform %seed, offset = 4294967294 : tensor<3x4xf64>
  %two32 = trace.full 4294967296.0 : tensor<3x4xf64>
  func.call @print_scaled(%f64, %two32) : (tensor<3x4xf64>, tensor<3x4xf64>) -> ()
  %f16 = trace.random_uniform %seed, offset = 4294967294 : tensor<3x4xf16>
  %f16w = trace.convert %f16 : tensor<3x4xf16> -> tensor<3x4xf64>
  %two11 = trace.full 2048.0 : tensor<3x4xf64>
  func.call @print_scaled(%f16w, %two11) : (tensor<3x4xf64>, tensor<3x4xf64>) -> ()
  %bf16 = trace.random_uniform %seed, offset = 4294967294 : tensor<3x4xbf16>
  %bf16w = trace.convert %bf16 : tensor<3x4xbf16> -> tensor<3x4xf64>
  %two8 = trace.full 256.0 : tensor<3x4xf64>
  func.call @print_scaled(%bf16w, %two8) : (tensor<3x4xf64>, tensor<3x4xf64>) -> ()

  %zero = trace.constant dense<0> : tensor<i64>
  %z = trace.random_uniform %zero, offset = 0 : tensor<5xf32>
  %zw = trace.convert %z : tensor<5xf32> -> tensor<5xf64>
  %scale = trace.full 16777216.0 : tensor<5xf64>
  %zk = trace.mul %zw, %scale : tensor<5xf64>
  %zi = trace.convert %zk : tensor<5xf64> -> tensor<5xi64>
  %c0 = arith.constant 0 : index
  %pad = arith.constant 0 : i64
  %zv = vector.transfer_read %zi[%c0], %pad {in_bounds = [true]} : tensor<5xi64>, vector<5xi64>
  vector.print %zv : vector<5xi64>
  return
}

// Prints u * scale as integers, row-major.
func.func @print_scaled(%u: tensor<3x4xf64>, %scale: tensor<3x4xf64>) {
  %k = trace.mul %u, %scale : tensor<3x4xf64>
  %ki = trace.convert %k : tensor<3x4xf64> -> tensor<3x4xi64>
  %flat = trace.reshape %ki : tensor<3x4xi64> -> tensor<12xi64>
  %c0 = arith.constant 0 : index
  %pad = arith.constant 0 : i64
  %v = vector.transfer_read %flat[%c0], %pad {in_bounds = [true]} : tensor<12xi64>, vector<12xi64>
  vector.print %v : vector<12xi64>
  return
}
