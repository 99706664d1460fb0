// trace-lower-fusions: each trace.fusion region, once its body is linalg
// (trace-to-linalg{keep-fusions}), becomes one linalg.generic: producers
// with other readers stay results of the fused op, siblings merge, fills
// of reduction accumulators fold into the reduction, transposes and
// reshapes are absorbed into indexing maps or moved to the region's edge.
// RUN: trace-opt %s -split-input-file -trace-to-linalg=keep-fusions -trace-lower-fusions | FileCheck %s

// An input fusion: the shifted exp feeds the sum and is also a result. One
// generic over (row, column) with the column a reduction; the exp result
// is written at every point, the sum starts from 0 at column 0 instead of
// a fill.
// CHECK-LABEL: func.func @softmax_sum(
// CHECK-NOT: linalg.fill
// CHECK: %[[R:.*]]:2 = linalg.generic {{{.*}}iterator_types = ["parallel", "reduction"]} ins(%arg0, %arg1 : tensor<4x8xf32>, tensor<4xf32>) outs(%{{.*}}, %{{.*}} : tensor<4x8xf32>, tensor<4xf32>) {
// CHECK-NEXT: ^bb0(%[[IN:.*]]: f32, %[[M:.*]]: f32, %{{.*}}: f32, %[[ACC:.*]]: f32):
// CHECK-NEXT:   %[[J:.*]] = linalg.index 1 : index
// CHECK-NEXT:   %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT:   %[[FIRST:.*]] = arith.cmpi eq, %[[J]], %[[C0]] : index
// CHECK-NEXT:   %[[START:.*]] = arith.select %[[FIRST]], %{{.*}}, %[[ACC]] : f32
// CHECK-NEXT:   %[[S:.*]] = arith.subf %[[IN]], %[[M]] : f32
// CHECK-NEXT:   %[[E:.*]] = math.exp %[[S]] : f32
// CHECK-NEXT:   %[[SUM:.*]] = arith.addf %[[E]], %[[START]] : f32
// CHECK-NEXT:   linalg.yield %[[E]], %[[SUM]] : f32, f32
// CHECK-NOT: linalg.{{generic|fill|reduce|transpose}}
// CHECK: return %[[R]]#0, %[[R]]#1
func.func @softmax_sum(%x: tensor<4x8xf32>, %m: tensor<4xf32>) -> (tensor<4x8xf32>, tensor<4xf32>) {
  %r:2 = trace.fusion "input_0" ins(%a = %m : tensor<4xf32>, %b = %x : tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4xf32>) {
    %mb = trace.broadcast_in_dim %a, dims = [0] : tensor<4xf32> -> tensor<4x8xf32>
    %s = trace.sub %b, %mb : tensor<4x8xf32>
    %e = trace.exp %s : tensor<4x8xf32>
    %sum = trace.reduce_sum %e dims = [1] : tensor<4x8xf32> -> tensor<4xf32>
    trace.yield %e, %sum : tensor<4x8xf32>, tensor<4xf32>
  }
  return %r#0, %r#1 : tensor<4x8xf32>, tensor<4xf32>
}

// -----

// Siblings: two elementwise ops of one input become one generic with two
// results, two reductions of one input one reduction generic with two
// accumulators (each starting from its own fill value).
// CHECK-LABEL: func.func @siblings(
// CHECK: %[[L:.*]]:2 = linalg.generic {{{.*}}iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<4x8xf32>)
// CHECK: math.exp
// CHECK: math.log
// CHECK: %[[R:.*]]:2 = linalg.generic {{{.*}}iterator_types = ["parallel", "reduction"]} ins(%arg0 : tensor<4x8xf32>)
// CHECK-DAG: arith.addf
// CHECK-DAG: arith.maximumf
// CHECK-NOT: linalg.{{generic|fill|reduce|transpose}}
// CHECK: return %[[L]]#0, %[[L]]#1, %[[R]]#0, %[[R]]#1
func.func @siblings(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4xf32>, tensor<4xf32>) {
  %l:2 = trace.fusion "loop_0" ins(%a = %x : tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
    %e = trace.exp %a : tensor<4x8xf32>
    %g = trace.log %a : tensor<4x8xf32>
    trace.yield %e, %g : tensor<4x8xf32>, tensor<4x8xf32>
  }
  %r:2 = trace.fusion "input_1" ins(%b = %x : tensor<4x8xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
    %s = trace.reduce_sum %b dims = [1] : tensor<4x8xf32> -> tensor<4xf32>
    %m = trace.reduce_max %b dims = [1] : tensor<4x8xf32> -> tensor<4xf32>
    trace.yield %s, %m : tensor<4xf32>, tensor<4xf32>
  }
  return %l#0, %l#1, %r#0, %r#1 : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// Views: the transpose becomes the generic's indexing map, the reshapes
// move past it to the end, where they are views of its result.
// CHECK: #[[$T:.*]] = affine_map<(d0, d1) -> (d1, d0)>
// CHECK-LABEL: func.func @views(
// CHECK: %[[G:.*]] = linalg.generic {indexing_maps = [#[[$T]], #{{.*}}, #{{.*}}], iterator_types = ["parallel", "parallel"]} ins(%arg0, %arg1 : tensor<4x8xf32>, tensor<8xf32>) outs(%{{.*}} : tensor<8x4xf32>)
// CHECK: arith.addf
// CHECK-NEXT: arith.negf
// CHECK-NOT: linalg.{{generic|fill|reduce|transpose}}
// CHECK: %[[C:.*]] = tensor.collapse_shape %[[G]]
// CHECK-NEXT: %[[E:.*]] = tensor.expand_shape %[[C]]
// CHECK-NEXT: return %[[E]]
func.func @views(%x: tensor<4x8xf32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
  %f = trace.fusion "loop_0" ins(%bi = %b : tensor<8xf32>, %xi = %x : tensor<4x8xf32>) -> tensor<4x8xf32> {
    %bb = trace.broadcast_in_dim %bi, dims = [1] : tensor<8xf32> -> tensor<4x8xf32>
    %a = trace.add %xi, %bb : tensor<4x8xf32>
    %t = trace.transpose %a, perm = [1, 0] : tensor<4x8xf32> -> tensor<8x4xf32>
    %r = trace.reshape %t : tensor<8x4xf32> -> tensor<32xf32>
    %n = trace.neg %r : tensor<32xf32>
    %o = trace.reshape %n : tensor<32xf32> -> tensor<4x8xf32>
    trace.yield %o : tensor<4x8xf32>
  }
  return %f : tensor<4x8xf32>
}
