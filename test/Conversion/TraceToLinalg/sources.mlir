// Sources: constant -> arith.constant, full -> linalg.fill of a scalar,
// iota -> linalg.generic on linalg.index, random_uniform -> Philox4x32-10 in
// a linalg.generic (its numbers are checked in random-uniform-run.mlir; this
// file checks the structure).
// RUN: trace-opt %s --split-input-file --trace-to-linalg | FileCheck %s

// CHECK-LABEL: func.func @constant
// CHECK: %[[C:.*]] = arith.constant dense<{{\[}}[1.000000e+00, 2.000000e+00], [3.000000e+00, 4.000000e+00]]> : tensor<2x2xf32>
// CHECK: %[[I:.*]] = arith.constant dense<7> : tensor<3xi64>
// CHECK: return %[[C]], %[[I]]
func.func @constant() -> (tensor<2x2xf32>, tensor<3xi64>) {
  %0 = trace.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %1 = trace.constant dense<7> : tensor<3xi64>
  return %0, %1 : tensor<2x2xf32>, tensor<3xi64>
}

// -----

// CHECK-LABEL: func.func @full
// CHECK: %[[V:.*]] = arith.constant 2.500000e+00 : bf16
// CHECK-NEXT: %[[E:.*]] = tensor.empty() : tensor<64x128xbf16>
// CHECK-NEXT: %[[F:.*]] = linalg.fill ins(%[[V]] : bf16) outs(%[[E]] : tensor<64x128xbf16>) -> tensor<64x128xbf16>
// CHECK: %[[T:.*]] = arith.constant true
// CHECK: linalg.fill ins(%[[T]] : i1) outs(%{{.*}} : tensor<4x4xi1>)
// CHECK: %[[Z:.*]] = arith.constant 0 : i32
// CHECK: linalg.fill ins(%[[Z]] : i32) outs(%{{.*}} : tensor<i32>)
// No dense constant of the result's size.
// CHECK-NOT: dense
func.func @full() -> (tensor<64x128xbf16>, tensor<4x4xi1>, tensor<i32>) {
  %0 = trace.full 2.5 : tensor<64x128xbf16>
  %1 = trace.full true : tensor<4x4xi1>
  %2 = trace.full 0 : tensor<i32>
  return %0, %1, %2 : tensor<64x128xbf16>, tensor<4x4xi1>, tensor<i32>
}

// -----

// CHECK-LABEL: func.func @iota
// CHECK: linalg.generic
// CHECK-SAME: outs(%{{.*}} : tensor<2x3xi32>)
// CHECK-NEXT: ^bb0(%{{.*}}: i32):
// CHECK-NEXT: %[[I:.*]] = linalg.index 1 : index
// CHECK-NEXT: %[[C:.*]] = arith.index_cast %[[I]] : index to i32
// CHECK-NEXT: linalg.yield %[[C]] : i32
// CHECK: linalg.generic
// CHECK-SAME: outs(%{{.*}} : tensor<2x3xf16>)
// CHECK-NEXT: ^bb0(%{{.*}}: f16):
// CHECK-NEXT: %[[J:.*]] = linalg.index 0 : index
// CHECK-NEXT: %[[W:.*]] = arith.index_cast %[[J]] : index to i64
// CHECK-NEXT: %[[F:.*]] = arith.sitofp %[[W]] : i64 to f16
// CHECK-NEXT: linalg.yield %[[F]] : f16
func.func @iota() -> (tensor<2x3xi32>, tensor<2x3xf16>) {
  %0 = trace.iota dim = 1 : tensor<2x3xi32>
  %1 = trace.iota dim = 0 : tensor<2x3xf16>
  return %0, %1 : tensor<2x3xi32>, tensor<2x3xf16>
}

// -----

// The seed is extracted once and split into the key halves above the
// generic; the body computes the row-major index, the counter block
// offset + index / 4 and the lane index % 4, ten Philox rounds (two 64-bit
// multiplies each, by 0xD2511F53 and 0xCD9E8D57; the key bumped by the Weyl
// constants between rounds), picks the lane's word and scales its top 24
// bits by 2^-24.
// CHECK-LABEL: func.func @random_f32
// CHECK-SAME: (%[[SEED:.*]]: tensor<i64>)
// CHECK: %[[S:.*]] = tensor.extract %[[SEED]][] : tensor<i64>
// CHECK: %[[K0:.*]] = arith.trunci %[[S]] : i64 to i32
// CHECK: %[[SHI:.*]] = arith.shrui %[[S]], %{{.*}} : i64
// CHECK: %[[K1:.*]] = arith.trunci %[[SHI]] : i64 to i32
// CHECK: %[[E:.*]] = tensor.empty() : tensor<4x6xf32>
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "parallel"]
// CHECK-SAME: outs(%[[E]] : tensor<4x6xf32>)
// CHECK: %[[I0:.*]] = linalg.index 0 : index
// CHECK: %[[R0:.*]] = arith.index_castui %[[I0]] : index to i64
// CHECK: %[[I1:.*]] = linalg.index 1 : index
// CHECK: %[[R1:.*]] = arith.index_castui %[[I1]] : index to i64
// CHECK: %[[SIX:.*]] = arith.constant 6 : i64
// CHECK: %[[ROW:.*]] = arith.muli %[[R0]], %[[SIX]] : i64
// CHECK: %[[LIN:.*]] = arith.addi %[[ROW]], %[[R1]] : i64
// CHECK: %[[TWO:.*]] = arith.constant 2 : i64
// CHECK: %[[Q:.*]] = arith.shrui %[[LIN]], %[[TWO]] : i64
// CHECK: %[[OFF:.*]] = arith.constant 5 : i64
// CHECK: %[[BLOCK:.*]] = arith.addi %[[OFF]], %[[Q]] : i64
// CHECK: %[[LANE:.*]] = arith.andi %[[LIN]], %{{.*}} : i64
// Counter (lo(n), hi(n), 0, 0).
// CHECK: %[[C0:.*]] = arith.trunci %[[BLOCK]] : i64 to i32
// CHECK: %[[C32:.*]] = arith.constant 32 : i64
// CHECK: %[[NHI:.*]] = arith.shrui %[[BLOCK]], %[[C32]] : i64
// CHECK: %[[C1:.*]] = arith.trunci %[[NHI]] : i64 to i32
// CHECK: %[[ZERO:.*]] = arith.constant 0 : i32
// First round: mulhi/mullo through 64-bit products.
// CHECK: %[[X0:.*]] = arith.extui %[[C0]] : i32 to i64
// CHECK: %[[M0:.*]] = arith.constant 3528531795 : i64
// CHECK: %[[P0:.*]] = arith.muli %[[M0]], %[[X0]] : i64
// CHECK: %[[LO0:.*]] = arith.trunci %[[P0]] : i64 to i32
// CHECK: %[[P0HI:.*]] = arith.shrui %[[P0]], %[[C32]] : i64
// CHECK: %[[HI0:.*]] = arith.trunci %[[P0HI]] : i64 to i32
// CHECK: %[[X2:.*]] = arith.extui %[[ZERO]] : i32 to i64
// CHECK: %[[M1:.*]] = arith.constant 3449720151 : i64
// CHECK: %[[P1:.*]] = arith.muli %[[M1]], %[[X2]] : i64
// CHECK: %[[LO1:.*]] = arith.trunci %[[P1]] : i64 to i32
// CHECK: %[[P1HI:.*]] = arith.shrui %[[P1]], %[[C32]] : i64
// CHECK: %[[HI1:.*]] = arith.trunci %[[P1HI]] : i64 to i32
// ctr = {hi1 ^ c1 ^ k0, lo1, hi0 ^ c3 ^ k1, lo0}
// CHECK: %[[A:.*]] = arith.xori %[[HI1]], %[[C1]] : i32
// CHECK: %[[N0:.*]] = arith.xori %[[A]], %[[K0]] : i32
// CHECK: %[[B:.*]] = arith.xori %[[HI0]], %[[ZERO]] : i32
// CHECK: %[[N2:.*]] = arith.xori %[[B]], %[[K1]] : i32
// Key bumped by the Weyl constants 0x9E3779B9 and 0xBB67AE85.
// CHECK: %[[W0:.*]] = arith.constant -1640531527 : i32
// CHECK: %[[K0B:.*]] = arith.addi %[[K0]], %[[W0]] : i32
// CHECK: %[[W1:.*]] = arith.constant -1150833019 : i32
// CHECK: %[[K1B:.*]] = arith.addi %[[K1]], %[[W1]] : i32
// Second round starts from the new counter.
// CHECK: %[[Y0:.*]] = arith.extui %[[N0]] : i32 to i64
// CHECK: arith.muli %[[M0]], %[[Y0]] : i64
// CHECK: %[[Y2:.*]] = arith.extui %[[N2]] : i32 to i64
// CHECK: arith.muli %[[M1]], %[[Y2]] : i64
// CHECK: arith.xori %{{.*}}, %[[K0B]] : i32
// CHECK: arith.xori %{{.*}}, %[[K1B]] : i32
// Eight more rounds.
// CHECK-COUNT-8: arith.muli %[[M0]]
// CHECK-NOT: arith.muli %[[M0]]
// The lane's word: lane 2, 1, 0 by selects, else word 3.
// CHECK: arith.cmpi eq, %[[LANE]], %[[TWO]] : i64
// CHECK: arith.select
// CHECK: arith.cmpi eq, %[[LANE]], %{{.*}} : i64
// CHECK: arith.select
// CHECK: arith.cmpi eq, %[[LANE]], %{{.*}} : i64
// CHECK: arith.select
// CHECK: %[[EIGHT:.*]] = arith.constant 8 : i32
// CHECK: %[[TOP:.*]] = arith.shrui %{{.*}}, %[[EIGHT]] : i32
// CHECK: %[[FP:.*]] = arith.uitofp %[[TOP]] : i32 to f32
// CHECK: %[[SCALE:.*]] = arith.constant 5.96046448E-8 : f32
// CHECK: %[[U:.*]] = arith.mulf %[[FP]], %[[SCALE]] : f32
// CHECK: linalg.yield %[[U]] : f32
func.func @random_f32(%seed: tensor<i64>) -> tensor<4x6xf32> {
  %0 = trace.random_uniform %seed, offset = 5 : tensor<4x6xf32>
  return %0 : tensor<4x6xf32>
}

// -----

// Ten rounds, 2 multiplies each; the key after the last round is not
// computed (9 bumps of each half).
// CHECK-LABEL: func.func @random_rounds
// CHECK: linalg.generic
// CHECK-COUNT-20: arith.muli
// CHECK-NOT: arith.muli
// CHECK: linalg.yield
func.func @random_rounds(%seed: tensor<i64>) -> tensor<4xf32> {
  %0 = trace.random_uniform %seed, offset = 0 : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// f16 keeps 11 bits, bf16 8 (computed in f32, then truncated exactly);
// f64 keeps all 32 bits and computes in f64. A rank-0 result has index 0.
// CHECK-LABEL: func.func @random_types
// CHECK: iterator_types = []
// CHECK: %[[Z:.*]] = arith.constant 0 : i64
// CHECK: arith.shrui %[[Z]], %{{.*}} : i64
// CHECK: %[[C21:.*]] = arith.constant 21 : i32
// CHECK: %[[H:.*]] = arith.shrui %{{.*}}, %[[C21]] : i32
// CHECK: %[[HF:.*]] = arith.uitofp %[[H]] : i32 to f32
// CHECK: %[[HS:.*]] = arith.constant 4.8828125E-4 : f32
// CHECK: %[[HM:.*]] = arith.mulf %[[HF]], %[[HS]] : f32
// CHECK: %[[HT:.*]] = arith.truncf %[[HM]] : f32 to f16
// CHECK: linalg.yield %[[HT]] : f16
// CHECK: %[[C24:.*]] = arith.constant 24 : i32
// CHECK: %[[B:.*]] = arith.shrui %{{.*}}, %[[C24]] : i32
// CHECK: %[[BF:.*]] = arith.uitofp %[[B]] : i32 to f32
// CHECK: %[[BS:.*]] = arith.constant 3.906250e-03 : f32
// CHECK: %[[BM:.*]] = arith.mulf %[[BF]], %[[BS]] : f32
// CHECK: %[[BT:.*]] = arith.truncf %[[BM]] : f32 to bf16
// CHECK: linalg.yield %[[BT]] : bf16
// CHECK-COUNT-2: arith.select
// CHECK: %[[W:.*]] = arith.select
// CHECK-NEXT: %[[DF:.*]] = arith.uitofp %[[W]] : i32 to f64
// CHECK-NEXT: %[[DS:.*]] = arith.constant 2.3283064365386963E-10 : f64
// CHECK-NEXT: %[[DM:.*]] = arith.mulf %[[DF]], %[[DS]] : f64
// CHECK-NEXT: linalg.yield %[[DM]] : f64
func.func @random_types(%seed: tensor<i64>) -> (tensor<f16>, tensor<2x3x4xbf16>, tensor<5xf64>) {
  %0 = trace.random_uniform %seed, offset = 7 : tensor<f16>
  %1 = trace.random_uniform %seed, offset = 0 : tensor<2x3x4xbf16>
  %2 = trace.random_uniform %seed, offset = 0 : tensor<5xf64>
  return %0, %1, %2 : tensor<f16>, tensor<2x3x4xbf16>, tensor<5xf64>
}
