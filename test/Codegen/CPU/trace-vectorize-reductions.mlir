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
// CHECK: scf.parallel (%[[R:.*]]) = (%[[C0]]) to (%[[C32]])
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

// A row reduction as trace-fuse-elementwise-linalg{into-reductions} leaves
// it: sum(exp(x - max)) with the max read once per row (through a dim of
// size 1). The payload runs on vectors (the max broadcast), the remainder
// on scalars; no exp is stored.
// CHECK-LABEL: func.func @fused_payload(
// CHECK-SAME: %[[X:[^:]*]]: memref<2x3x40xf32>, %[[M:[^:]*]]: memref<2x3x1xf32>, %[[S:[^:]*]]: memref<2x3xf32>)
// CHECK-DAG: %[[XR:.*]] = memref.collapse_shape %[[X]] {{\[\[}}0, 1], [2]] : memref<2x3x40xf32> into memref<6x40xf32>
// CHECK-DAG: %[[MR:.*]] = memref.collapse_shape %[[M]] {{\[\[}}0, 1, 2]] : memref<2x3x1xf32> into memref<6xf32>
// CHECK-DAG: %[[SR:.*]] = memref.collapse_shape %[[S]] {{\[\[}}0, 1]] : memref<2x3xf32> into memref<6xf32>
// CHECK: scf.parallel (%[[R:[^)]*]]) =
// CHECK:   %[[MAX:.*]] = memref.load %[[MR]][%[[R]]] : memref<6xf32>
// CHECK:   %[[V0:.*]] = vector.load %[[XR]][%[[R]], %{{.*}}] : memref<6x40xf32>, vector<16xf32>
// CHECK:   %[[MB:.*]] = vector.broadcast %[[MAX]] : f32 to vector<16xf32>
// CHECK:   %[[D0:.*]] = arith.subf %[[V0]], %[[MB]] : vector<16xf32>
// CHECK:   math.exp %[[D0]] : vector<16xf32>
// CHECK:   scf.for
// CHECK:     vector.load %[[XR]]
// CHECK:     math.exp %{{.*}} : vector<16xf32>
// CHECK:     arith.addf %{{.*}}, %{{.*}} : vector<16xf32>
// CHECK:   %[[OLD:.*]] = memref.load %[[SR]][%[[R]]]
// CHECK:   vector.reduction <add>, %{{.*}}, %[[OLD]] : vector<16xf32> into f32
// CHECK:   scf.for
// CHECK:     memref.load %[[XR]]
// CHECK:     math.exp %{{.*}} : f32
// CHECK:   memref.store %{{.*}}, %[[SR]][%[[R]]]
// CHECK-NOT: linalg.generic
// CHECK: return
func.func @fused_payload(%x: memref<2x3x40xf32>, %m: memref<2x3x1xf32>, %s: memref<2x3xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>,
                                   affine_map<(d0, d1, d2) -> (d0, d1, 0)>,
                                   affine_map<(d0, d1, d2) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %m : memref<2x3x40xf32>, memref<2x3x1xf32>) outs(%s : memref<2x3xf32>) {
  ^bb0(%in: f32, %max: f32, %acc: f32):
    %d = arith.subf %in, %max : f32
    %e = math.exp %d : f32
    %sum = arith.addf %e, %acc : f32
    linalg.yield %sum : f32
  }
  return
}

// Left alone: an input read transposed, an accumulator read twice, and an
// i1 input (a memref of i1 holds a byte per element; a vector<16xi1> load
// would read 16 bits).
// CHECK-LABEL: func.func @generic_kept(
// CHECK-COUNT-3: linalg.generic
// CHECK-NOT: vector.
func.func @generic_kept(%x: memref<32x32xf32>, %s: memref<32xf32>, %t: memref<32xf32>,
                        %mask: memref<32x32xi1>, %u: memref<32xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                   affine_map<(d0, d1) -> (d0, d1)>,
                                   affine_map<(d0, d1) -> (d0)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%x, %mask : memref<32x32xf32>, memref<32x32xi1>) outs(%u : memref<32xf32>) {
  ^bb0(%in: f32, %m: i1, %acc: f32):
    %z = arith.constant 0.0 : f32
    %v = arith.select %m, %in, %z : f32
    %sum = arith.addf %v, %acc : f32
    linalg.yield %sum : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>,
                                   affine_map<(d0, d1) -> (d0)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<32x32xf32>) outs(%s : memref<32xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %sum = arith.addf %in, %acc : f32
    linalg.yield %sum : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                   affine_map<(d0, d1) -> (d0)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<32x32xf32>) outs(%t : memref<32xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %p = arith.mulf %in, %acc : f32
    %sum = arith.addf %p, %acc : f32
    linalg.yield %sum : f32
  }
  return
}

// Left alone: i24 elements (4 bytes each in memory, packed in a vector).
// CHECK-LABEL: func.func @generic_kept_i24(
// CHECK: linalg.generic
// CHECK-NOT: vector.
// CHECK: return
func.func @generic_kept_i24(%x: memref<4x64xi24>, %s: memref<4xi32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                   affine_map<(d0, d1) -> (d0)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<4x64xi24>) outs(%s : memref<4xi32>) {
  ^bb0(%in: i24, %acc: i32):
    %e = arith.extsi %in : i24 to i32
    %sum = arith.addi %e, %acc : i32
    linalg.yield %sum : i32
  }
  return
}
