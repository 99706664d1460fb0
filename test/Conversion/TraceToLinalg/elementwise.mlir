// Elementwise trace ops become linalg.generic ops with identity maps and
// parallel iterators that write into tensor.empty; the body is the scalar op.
// f16/bf16 transcendental functions are computed in f32.
// RUN: trace-opt %s --split-input-file --trace-to-linalg | FileCheck %s

// CHECK: #[[ID2:.*]] = affine_map<(d0, d1) -> (d0, d1)>

// CHECK-LABEL: func.func @structure
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>, %[[Y:.*]]: tensor<4x8xf32>)
// CHECK: %[[E:.*]] = tensor.empty() : tensor<4x8xf32>
// CHECK: %[[R:.*]] = linalg.generic
// CHECK-SAME: indexing_maps = [#[[ID2]], #[[ID2]], #[[ID2]]]
// CHECK-SAME: iterator_types = ["parallel", "parallel"]
// CHECK-SAME: ins(%[[X]], %[[Y]] : tensor<4x8xf32>, tensor<4x8xf32>)
// CHECK-SAME: outs(%[[E]] : tensor<4x8xf32>)
// CHECK-NEXT: ^bb0(%[[A:.*]]: f32, %[[B:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[S:.*]] = arith.subf %[[A]], %[[B]] : f32
// CHECK-NEXT: linalg.yield %[[S]] : f32
// CHECK: return %[[R]]
// CHECK-NOT: trace.
func.func @structure(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = trace.sub %x, %y : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// CHECK-LABEL: func.func @rank0
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = []
// CHECK-SAME: ins(%{{.*}} : tensor<f64>) outs(%{{.*}} : tensor<f64>)
// CHECK: math.exp %{{.*}} : f64
func.func @rank0(%x: tensor<f64>) -> tensor<f64> {
  %0 = trace.exp %x : tensor<f64>
  return %0 : tensor<f64>
}

// -----

// CHECK-LABEL: func.func @unary_float
// CHECK: arith.negf %{{.*}} : f32
// CHECK: math.absf %{{.*}} : f32
// CHECK: math.exp %{{.*}} : f32
// CHECK: math.log %{{.*}} : f32
// CHECK: math.sin %{{.*}} : f32
// CHECK: math.cos %{{.*}} : f32
// CHECK: math.tanh %{{.*}} : f32
// CHECK: math.sqrt %{{.*}} : f32
// CHECK: math.rsqrt %{{.*}} : f32
// CHECK: math.erf %{{.*}} : f32
// CHECK: ^bb0(%[[IN:.*]]: f32, %{{.*}}: f32):
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-DAG: %[[NEG:.*]] = arith.negf %[[IN]] : f32
// CHECK: %[[EXP:.*]] = math.exp %[[NEG]] : f32
// CHECK: %[[DEN:.*]] = arith.addf %[[ONE]], %[[EXP]] : f32
// CHECK: %[[SIG:.*]] = arith.divf %[[ONE]], %[[DEN]] : f32
// CHECK: linalg.yield %[[SIG]] : f32
func.func @unary_float(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = trace.neg %x : tensor<4x8xf32>
  %1 = trace.abs %0 : tensor<4x8xf32>
  %2 = trace.exp %1 : tensor<4x8xf32>
  %3 = trace.log %2 : tensor<4x8xf32>
  %4 = trace.sin %3 : tensor<4x8xf32>
  %5 = trace.cos %4 : tensor<4x8xf32>
  %6 = trace.tanh %5 : tensor<4x8xf32>
  %7 = trace.sqrt %6 : tensor<4x8xf32>
  %8 = trace.rsqrt %7 : tensor<4x8xf32>
  %9 = trace.erf %8 : tensor<4x8xf32>
  %10 = trace.logistic %9 : tensor<4x8xf32>
  return %10 : tensor<4x8xf32>
}

// -----

// CHECK-LABEL: func.func @binary_float
// CHECK: arith.addf %{{.*}}, %{{.*}} : f64
// CHECK: arith.subf %{{.*}}, %{{.*}} : f64
// CHECK: arith.mulf %{{.*}}, %{{.*}} : f64
// CHECK: arith.divf %{{.*}}, %{{.*}} : f64
// CHECK: math.powf %{{.*}}, %{{.*}} : f64
// CHECK: arith.maximumf %{{.*}}, %{{.*}} : f64
// CHECK: arith.minimumf %{{.*}}, %{{.*}} : f64
// CHECK: math.atan2 %{{.*}}, %{{.*}} : f64
// CHECK: arith.remf %{{.*}}, %{{.*}} : f64
func.func @binary_float(%x: tensor<5xf64>, %y: tensor<5xf64>) -> tensor<5xf64> {
  %0 = trace.add %x, %y : tensor<5xf64>
  %1 = trace.sub %0, %y : tensor<5xf64>
  %2 = trace.mul %1, %y : tensor<5xf64>
  %3 = trace.div %2, %y : tensor<5xf64>
  %4 = trace.pow %3, %y : tensor<5xf64>
  %5 = trace.maximum %4, %y : tensor<5xf64>
  %6 = trace.minimum %5, %y : tensor<5xf64>
  %7 = trace.atan2 %6, %y : tensor<5xf64>
  %8 = trace.rem %7, %y : tensor<5xf64>
  return %8 : tensor<5xf64>
}

// -----

// CHECK-LABEL: func.func @integer
// CHECK: ^bb0(%[[N:.*]]: i32, %{{.*}}: i32):
// CHECK: %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK: arith.subi %[[ZERO]], %[[N]] : i32
// CHECK: math.absi %{{.*}} : i32
// CHECK: arith.addi %{{.*}}, %{{.*}} : i32
// CHECK: arith.subi %{{.*}}, %{{.*}} : i32
// CHECK: arith.muli %{{.*}}, %{{.*}} : i32
// CHECK: arith.divsi %{{.*}}, %{{.*}} : i32
// CHECK: arith.maxsi %{{.*}}, %{{.*}} : i32
// CHECK: arith.minsi %{{.*}}, %{{.*}} : i32
func.func @integer(%x: tensor<2x3xi32>, %y: tensor<2x3xi32>) -> tensor<2x3xi32> {
  %0 = trace.neg %x : tensor<2x3xi32>
  %1 = trace.abs %0 : tensor<2x3xi32>
  %2 = trace.add %1, %y : tensor<2x3xi32>
  %3 = trace.sub %2, %y : tensor<2x3xi32>
  %4 = trace.mul %3, %y : tensor<2x3xi32>
  %5 = trace.div %4, %y : tensor<2x3xi32>
  %6 = trace.maximum %5, %y : tensor<2x3xi32>
  %7 = trace.minimum %6, %y : tensor<2x3xi32>
  return %7 : tensor<2x3xi32>
}

// -----

// Transcendental functions of f16 and bf16 are computed in f32; plain
// arithmetic stays in the element type.
// CHECK-LABEL: func.func @half_precision
// CHECK: ^bb0(%[[A:.*]]: f16, %[[B:.*]]: f16, %{{.*}}: f16):
// CHECK-NEXT: %[[WA:.*]] = arith.extf %[[A]] : f16 to f32
// CHECK-NEXT: %[[WB:.*]] = arith.extf %[[B]] : f16 to f32
// CHECK-NEXT: %[[P:.*]] = math.powf %[[WA]], %[[WB]] : f32
// CHECK-NEXT: %[[NP:.*]] = arith.truncf %[[P]] : f32 to f16
// CHECK-NEXT: linalg.yield %[[NP]] : f16
// CHECK: arith.addf %{{.*}}, %{{.*}} : f16
// CHECK: ^bb0(%[[H:.*]]: bf16, %{{.*}}: bf16):
// CHECK-NEXT: %[[WH:.*]] = arith.extf %[[H]] : bf16 to f32
// CHECK-NEXT: %[[T:.*]] = math.tanh %[[WH]] : f32
// CHECK-NEXT: %[[NT:.*]] = arith.truncf %[[T]] : f32 to bf16
// CHECK-NEXT: linalg.yield %[[NT]] : bf16
// CHECK: ^bb0(%[[L:.*]]: bf16, %{{.*}}: bf16):
// CHECK-NEXT: %[[WL:.*]] = arith.extf %[[L]] : bf16 to f32
// CHECK: math.exp %{{.*}} : f32
// CHECK: %[[S:.*]] = arith.divf %{{.*}}, %{{.*}} : f32
// CHECK-NEXT: %[[NS:.*]] = arith.truncf %[[S]] : f32 to bf16
// CHECK-NEXT: linalg.yield %[[NS]] : bf16
// CHECK: ^bb0(%[[G:.*]]: bf16, %{{.*}}: bf16):
// CHECK-NEXT: %[[AG:.*]] = math.absf %[[G]] : bf16
// CHECK-NEXT: linalg.yield %[[AG]] : bf16
func.func @half_precision(%x: tensor<3xf16>, %y: tensor<3xf16>, %z: tensor<3xbf16>)
    -> (tensor<3xf16>, tensor<3xbf16>) {
  %0 = trace.pow %x, %y : tensor<3xf16>
  %1 = trace.add %0, %y : tensor<3xf16>
  %2 = trace.tanh %z : tensor<3xbf16>
  %3 = trace.logistic %2 : tensor<3xbf16>
  %4 = trace.abs %3 : tensor<3xbf16>
  return %1, %4 : tensor<3xf16>, tensor<3xbf16>
}

// -----

// Float comparisons are ordered except `ne` (true on NaN); integers compare
// signed, i1 unsigned.
// CHECK-LABEL: func.func @compare
// CHECK: linalg.generic
// CHECK-SAME: ins(%{{.*}}, %{{.*}} : tensor<4xf32>, tensor<4xf32>) outs(%{{.*}} : tensor<4xi1>)
// CHECK: arith.cmpf oeq
// CHECK: arith.cmpf une
// CHECK: arith.cmpf olt
// CHECK: arith.cmpf ole
// CHECK: arith.cmpf ogt
// CHECK: arith.cmpf oge
// CHECK: arith.cmpi eq, %{{.*}}, %{{.*}} : i64
// CHECK: arith.cmpi ne, %{{.*}}, %{{.*}} : i64
// CHECK: arith.cmpi slt, %{{.*}}, %{{.*}} : i64
// CHECK: arith.cmpi sle, %{{.*}}, %{{.*}} : i64
// CHECK: arith.cmpi sgt, %{{.*}}, %{{.*}} : i64
// CHECK: arith.cmpi sge, %{{.*}}, %{{.*}} : i64
// CHECK: arith.cmpi ult, %{{.*}}, %{{.*}} : i1
// CHECK: arith.cmpi ule, %{{.*}}, %{{.*}} : i1
// CHECK: arith.cmpi ugt, %{{.*}}, %{{.*}} : i1
// CHECK: arith.cmpi uge, %{{.*}}, %{{.*}} : i1
// CHECK: arith.cmpi eq, %{{.*}}, %{{.*}} : i1
func.func @compare(%a: tensor<4xf32>, %b: tensor<4xf32>, %i: tensor<4xi64>,
                   %j: tensor<4xi64>) -> tensor<4xi1> {
  %0 = trace.compare eq, %a, %b : tensor<4xf32>
  %1 = trace.compare ne, %a, %b : tensor<4xf32>
  %2 = trace.compare lt, %a, %b : tensor<4xf32>
  %3 = trace.compare le, %a, %b : tensor<4xf32>
  %4 = trace.compare gt, %a, %b : tensor<4xf32>
  %5 = trace.compare ge, %a, %b : tensor<4xf32>
  %6 = trace.compare eq, %i, %j : tensor<4xi64>
  %7 = trace.compare ne, %i, %j : tensor<4xi64>
  %8 = trace.compare lt, %i, %j : tensor<4xi64>
  %9 = trace.compare le, %i, %j : tensor<4xi64>
  %10 = trace.compare gt, %i, %j : tensor<4xi64>
  %11 = trace.compare ge, %i, %j : tensor<4xi64>
  %12 = trace.compare lt, %0, %1 : tensor<4xi1>
  %13 = trace.compare le, %2, %3 : tensor<4xi1>
  %14 = trace.compare gt, %4, %5 : tensor<4xi1>
  %15 = trace.compare ge, %6, %7 : tensor<4xi1>
  %16 = trace.compare eq, %12, %13 : tensor<4xi1>
  return %16 : tensor<4xi1>
}

// -----

// CHECK-LABEL: func.func @select
// CHECK-SAME: (%[[C:.*]]: tensor<2x2xi1>, %[[T:.*]]: tensor<2x2xbf16>, %[[F:.*]]: tensor<2x2xbf16>)
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[C]], %[[T]], %[[F]] : tensor<2x2xi1>, tensor<2x2xbf16>, tensor<2x2xbf16>)
// CHECK-NEXT: ^bb0(%[[CS:.*]]: i1, %[[TS:.*]]: bf16, %[[FS:.*]]: bf16, %{{.*}}: bf16):
// CHECK-NEXT: %[[R:.*]] = arith.select %[[CS]], %[[TS]], %[[FS]] : bf16
// CHECK-NEXT: linalg.yield %[[R]] : bf16
func.func @select(%c: tensor<2x2xi1>, %t: tensor<2x2xbf16>, %f: tensor<2x2xbf16>) -> tensor<2x2xbf16> {
  %0 = trace.select %c, %t, %f : tensor<2x2xi1>, tensor<2x2xbf16>
  return %0 : tensor<2x2xbf16>
}

// -----

// CHECK-LABEL: func.func @convert_float
// CHECK: arith.extf %{{.*}} : f32 to f64
// CHECK: arith.truncf %{{.*}} : f64 to bf16
// f16 <-> bf16 goes through f32 (exact on the way up, one rounding).
// CHECK: ^bb0(%[[B:.*]]: bf16, %{{.*}}: f16):
// CHECK-NEXT: %[[W:.*]] = arith.extf %[[B]] : bf16 to f32
// CHECK-NEXT: %[[H:.*]] = arith.truncf %[[W]] : f32 to f16
// CHECK-NEXT: linalg.yield %[[H]] : f16
// CHECK: arith.fptosi %{{.*}} : f16 to i32
// CHECK: ^bb0(%[[X:.*]]: f32, %{{.*}}: i1):
// CHECK-NEXT: %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: %[[NZ:.*]] = arith.cmpf une, %[[X]], %[[Z]] : f32
// CHECK-NEXT: linalg.yield %[[NZ]] : i1
func.func @convert_float(%x: tensor<3xf32>) -> (tensor<3xi32>, tensor<3xi1>) {
  %0 = trace.convert %x : tensor<3xf32> -> tensor<3xf64>
  %1 = trace.convert %0 : tensor<3xf64> -> tensor<3xbf16>
  %2 = trace.convert %1 : tensor<3xbf16> -> tensor<3xf16>
  %3 = trace.convert %2 : tensor<3xf16> -> tensor<3xi32>
  %4 = trace.convert %x : tensor<3xf32> -> tensor<3xi1>
  return %3, %4 : tensor<3xi32>, tensor<3xi1>
}

// -----

// CHECK-LABEL: func.func @convert_int
// CHECK-SAME: (%[[X:.*]]: tensor<3xi32>, %[[B:.*]]: tensor<3xi1>)
// CHECK: arith.sitofp %{{.*}} : i32 to f32
// CHECK: arith.extsi %{{.*}} : i32 to i64
// CHECK: arith.trunci %{{.*}} : i64 to i32
// CHECK: ^bb0(%[[I:.*]]: i64, %{{.*}}: i1):
// CHECK-NEXT: %[[Z:.*]] = arith.constant 0 : i64
// CHECK-NEXT: %[[NZ:.*]] = arith.cmpi ne, %[[I]], %[[Z]] : i64
// CHECK-NEXT: linalg.yield %[[NZ]] : i1
// i1 is unsigned: true becomes 1 (or 1.0), not -1.
// CHECK: arith.uitofp %{{.*}} : i1 to f64
// CHECK: arith.extui %{{.*}} : i1 to i32
// Converting to the same type is the operand itself.
// CHECK-NOT: linalg.generic
// CHECK: return %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[X]]
func.func @convert_int(%x: tensor<3xi32>, %b: tensor<3xi1>)
    -> (tensor<3xf32>, tensor<3xi1>, tensor<3xf64>, tensor<3xi32>, tensor<3xi32>) {
  %0 = trace.convert %x : tensor<3xi32> -> tensor<3xf32>
  %1 = trace.convert %x : tensor<3xi32> -> tensor<3xi64>
  %2 = trace.convert %1 : tensor<3xi64> -> tensor<3xi32>
  %3 = trace.convert %1 : tensor<3xi64> -> tensor<3xi1>
  %4 = trace.convert %b : tensor<3xi1> -> tensor<3xf64>
  %5 = trace.convert %b : tensor<3xi1> -> tensor<3xi32>
  %6 = trace.convert %x : tensor<3xi32> -> tensor<3xi32>
  return %0, %3, %4, %5, %6 : tensor<3xf32>, tensor<3xi1>, tensor<3xf64>, tensor<3xi32>, tensor<3xi32>
}
