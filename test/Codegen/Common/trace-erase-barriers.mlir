// trace-erase-barriers: after the pipelines' CSE, every
// trace.optimization_barrier is replaced by its operand (it computes
// nothing), so bufferization sees upstream ops only. Before it, the CSE
// keeps the two exps apart: one reads x, the other the barrier.
// RUN: trace-opt %s --cse | FileCheck %s --check-prefix=CSE
// RUN: trace-opt %s --cse --trace-erase-barriers | FileCheck %s

// CSE-LABEL: func.func @recomputed
// CSE-COUNT-2: math.exp
// CHECK-LABEL: func.func @recomputed
// CHECK-SAME: (%[[X:.*]]: tensor<8xf32>)
// CHECK-NOT: trace.optimization_barrier
// CHECK: %[[E1:.*]] = linalg.generic {{.*}} ins(%[[X]] : tensor<8xf32>)
// CHECK: %[[E2:.*]] = linalg.generic {{.*}} ins(%[[X]] : tensor<8xf32>)
// CHECK: return %[[E1]], %[[E2]]
#id = affine_map<(d0) -> (d0)>
func.func @recomputed(%x: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %e0 = tensor.empty() : tensor<8xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<8xf32>) outs(%e0 : tensor<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %v = math.exp %in : f32
    linalg.yield %v : f32
  } -> tensor<8xf32>
  %xb = trace.optimization_barrier %x : tensor<8xf32>
  %e1 = tensor.empty() : tensor<8xf32>
  %b = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%xb : tensor<8xf32>) outs(%e1 : tensor<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %v = math.exp %in : f32
    linalg.yield %v : f32
  } -> tensor<8xf32>
  return %a, %b : tensor<8xf32>, tensor<8xf32>
}
