// A linalg.reduce over trailing contiguous dims becomes, per output element,
// a loop of 512-bit vector combines, a vector.reduction that starts from the
// output's old value, then the remainder in order. Anything else stays.
// RUN: trace-opt %s -pass-pipeline='builtin.module(func.func(trace-vectorize-reductions))' | FileCheck %s

// Rows of 40: two vectors of 16, then 8 elements one at a time.
// CHECK-LABEL: func.func @rows(
// CHECK-SAME: %[[IN:[^:]*]]: memref<8x4x40xf32>, %[[OUT:[^:]*]]: memref<8x4xf32>)
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C16:.*]] = arith.constant 16 : index
// CHECK-DAG: %[[C32:.*]] = arith.constant 32 : index
// CHECK-DAG: %[[C40:.*]] = arith.constant 40 : index
// CHECK: %[[ROWS:.*]] = memref.collapse_shape %[[IN]] {{\[\[}}0, 1], [2]] : memref<8x4x40xf32> into memref<32x40xf32>
// CHECK: %[[FLAT:.*]] = memref.collapse_shape %[[OUT]] {{\[\[}}0, 1]] : memref<8x4xf32> into memref<32xf32>
// CHECK: scf.for %[[R:.*]] = %[[C0]] to %[[C32]]
// CHECK:   %[[FIRST:.*]] = vector.load %[[ROWS]][%[[R]], %[[C0]]] : memref<32x40xf32>, vector<16xf32>
// CHECK:   %[[LANES:.*]] = scf.for %[[J:.*]] = %[[C16]] to %[[C32]] step %[[C16]] iter_args(%[[ACC:.*]] = %[[FIRST]])
// CHECK:     %[[V:.*]] = vector.load %[[ROWS]][%[[R]], %[[J]]]
// CHECK:     %[[S:.*]] = arith.addf %[[ACC]], %[[V]] : vector<16xf32>
// CHECK:     scf.yield %[[S]]
// CHECK:   %[[OLD:.*]] = memref.load %[[FLAT]][%[[R]]]
// CHECK:   %[[TOTAL:.*]] = vector.reduction <add>, %[[LANES]], %[[OLD]] : vector<16xf32> into f32
// CHECK:   %[[TAIL:.*]] = scf.for %[[K:.*]] = %[[C32]] to %[[C40]] step %{{.*}} iter_args(%[[T:.*]] = %[[TOTAL]]) -> (f32)
// CHECK:     %[[E:.*]] = memref.load %[[ROWS]][%[[R]], %[[K]]]
// CHECK:     arith.addf %[[T]], %[[E]] : f32
// CHECK:   memref.store %[[TAIL]], %[[FLAT]][%[[R]]]
// CHECK-NOT: linalg.reduce
func.func @rows(%in: memref<8x4x40xf32>, %out: memref<8x4xf32>) {
  linalg.reduce ins(%in : memref<8x4x40xf32>) outs(%out : memref<8x4xf32>) dimensions = [2]
    (%x: f32, %acc: f32) {
      %s = arith.addf %x, %acc : f32
      linalg.yield %s : f32
    }
  return
}

// All dims reduced (into a 0-d output), an integer max written with the
// accumulator first, 64-bit lanes; no remainder.
// CHECK-LABEL: func.func @all(
// CHECK: %[[FLAT:.*]] = memref.collapse_shape %{{.*}} {{\[\[}}0, 1]] : memref<2x32xi64> into memref<64xi64>
// CHECK: vector.load %[[FLAT]][%{{.*}}] : memref<64xi64>, vector<8xi64>
// CHECK: arith.maxsi %{{.*}}, %{{.*}} : vector<8xi64>
// CHECK: %[[OLD:.*]] = memref.load %{{.*}}[] : memref<i64>
// CHECK: %[[M:.*]] = vector.reduction <maxsi>, %{{.*}}, %[[OLD]] : vector<8xi64> into i64
// CHECK-NEXT: memref.store %[[M]], %{{.*}}[] : memref<i64>
func.func @all(%in: memref<2x32xi64>, %out: memref<i64>) {
  linalg.reduce ins(%in : memref<2x32xi64>) outs(%out : memref<i64>) dimensions = [0, 1]
    (%x: i64, %acc: i64) {
      %s = arith.maxsi %acc, %x : i64
      linalg.yield %s : i64
    }
  return
}

// Left alone: a leading dim reduced, a row shorter than a register, a
// strided input, a body of two ops.
// CHECK-LABEL: func.func @kept(
// CHECK-COUNT-4: linalg.reduce
// CHECK-NOT: vector.
func.func @kept(%a: memref<8x32xf32>, %ao: memref<32xf32>,
                %b: memref<8x8xf32>, %bo: memref<8xf32>,
                %c: memref<8x32xf32, strided<[64, 1]>>, %co: memref<8xf32>,
                %d: memref<8x32xf32>, %do: memref<8xf32>) {
  linalg.reduce ins(%a : memref<8x32xf32>) outs(%ao : memref<32xf32>) dimensions = [0]
    (%x: f32, %acc: f32) {
      %s = arith.addf %x, %acc : f32
      linalg.yield %s : f32
    }
  linalg.reduce ins(%b : memref<8x8xf32>) outs(%bo : memref<8xf32>) dimensions = [1]
    (%x: f32, %acc: f32) {
      %s = arith.addf %x, %acc : f32
      linalg.yield %s : f32
    }
  linalg.reduce ins(%c : memref<8x32xf32, strided<[64, 1]>>) outs(%co : memref<8xf32>) dimensions = [1]
    (%x: f32, %acc: f32) {
      %s = arith.maximumf %x, %acc : f32
      linalg.yield %s : f32
    }
  linalg.reduce ins(%d : memref<8x32xf32>) outs(%do : memref<8xf32>) dimensions = [1]
    (%x: f32, %acc: f32) {
      %sq = arith.mulf %x, %x : f32
      %s = arith.addf %sq, %acc : f32
      linalg.yield %s : f32
    }
  return
}

// One kept dim (no collapse), half floats: 32 lanes fill a register.
// CHECK-LABEL: func.func @halves(
// CHECK-NOT: memref.collapse_shape
// CHECK: vector.load %{{.*}} : memref<4x64xf16>, vector<32xf16>
// CHECK: arith.addf %{{.*}}, %{{.*}} : vector<32xf16>
// CHECK: vector.reduction <add>, %{{.*}}, %{{.*}} : vector<32xf16> into f16
func.func @halves(%in: memref<4x64xf16>, %out: memref<4xf16>) {
  linalg.reduce ins(%in : memref<4x64xf16>) outs(%out : memref<4xf16>) dimensions = [1]
    (%x: f16, %acc: f16) {
      %s = arith.addf %x, %acc : f16
      linalg.yield %s : f16
    }
  return
}

// An integer sum's overflow flags hold for the source's order only; the
// reassociated sum drops them (else an overflow it creates would be poison).
// CHECK-LABEL: func.func @no_overflow_flags(
// CHECK: arith.addi %{{.*}}, %{{.*}} : vector<16xi32>
// CHECK-NOT: overflow
// CHECK: return
func.func @no_overflow_flags(%in: memref<4x48xi32>, %out: memref<4xi32>) {
  linalg.reduce ins(%in : memref<4x48xi32>) outs(%out : memref<4xi32>) dimensions = [1]
    (%x: i32, %acc: i32) {
      %s = arith.addi %x, %acc overflow<nsw, nuw> : i32
      linalg.yield %s : i32
    }
  return
}
