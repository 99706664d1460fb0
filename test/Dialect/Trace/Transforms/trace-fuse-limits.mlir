// trace-fuse's size limits: max-ops and max-inputs split a chain that
// would otherwise be one fusion (trace-fuse.mlir: the rules).
// RUN: trace-opt %s -trace-fuse | FileCheck %s --check-prefix=ALL
// RUN: trace-opt %s -trace-fuse="max-ops=2" | FileCheck %s --check-prefix=OPS
// RUN: trace-opt %s -trace-fuse="max-inputs=2" | FileCheck %s --check-prefix=INS
// RUN: not trace-opt %s -trace-fuse="max-ops=1" 2>&1 | FileCheck %s --check-prefix=BAD

// ALL-LABEL: func.func @chain(
// ALL-NEXT: trace.fusion "loop_0" ins(%{{.*}} = %arg0 : tensor<4xf32>, %{{.*}} = %arg1 : tensor<4xf32>, %{{.*}} = %arg2 : tensor<4xf32>)
// ALL-NEXT:   trace.exp
// ALL-NEXT:   trace.add
// ALL-NEXT:   trace.mul
// ALL-NEXT:   trace.tanh
// ALL-NEXT:   trace.neg
// ALL-NEXT:   trace.yield
// ALL-NEXT: } attributes {trace.fusion_kind = "loop"}
// ALL-NEXT: return

// Consumers absorb producers first: {tanh, neg}, then {add, mul}; exp is
// left alone.
// OPS-LABEL: func.func @chain(
// OPS-NEXT: %[[A:.*]] = trace.exp %arg0
// OPS-NEXT: %[[F:.*]] = trace.fusion "loop_0" ins(%[[X:.*]] = %[[A]] : tensor<4xf32>, %[[Y:.*]] = %arg1 : tensor<4xf32>, %[[Z:.*]] = %arg2 : tensor<4xf32>)
// OPS-NEXT:   trace.add %[[X]], %[[Y]]
// OPS-NEXT:   trace.mul
// OPS-NEXT:   trace.yield
// OPS-NEXT: } attributes {trace.fusion_kind = "loop"}
// OPS-NEXT: %[[G:.*]] = trace.fusion "loop_1" ins(%{{.*}} = %[[F]] : tensor<4xf32>)
// OPS-NEXT:   trace.tanh
// OPS-NEXT:   trace.neg
// OPS-NEXT:   trace.yield
// OPS-NEXT: } attributes {trace.fusion_kind = "loop"}
// OPS-NEXT: return %[[G]]

// Three distinct inputs do not fit in two: the mul (reading %z) and its
// consumers, and exp + add (reading %x and %y).
// INS-LABEL: func.func @chain(
// INS-NEXT: %[[F:.*]] = trace.fusion "loop_0" ins(%{{.*}} = %arg0 : tensor<4xf32>, %{{.*}} = %arg1 : tensor<4xf32>)
// INS-NEXT:   trace.exp
// INS-NEXT:   trace.add
// INS-NEXT:   trace.yield
// INS-NEXT: } attributes {trace.fusion_kind = "loop"}
// INS-NEXT: %[[G:.*]] = trace.fusion "loop_1" ins(%{{.*}} = %[[F]] : tensor<4xf32>, %{{.*}} = %arg2 : tensor<4xf32>)
// INS-NEXT:   trace.mul
// INS-NEXT:   trace.tanh
// INS-NEXT:   trace.neg
// INS-NEXT:   trace.yield
// INS-NEXT: } attributes {trace.fusion_kind = "loop"}
// INS-NEXT: return %[[G]]

// BAD: error: trace-fuse needs max-ops >= 2 and max-inputs >= 1, got 1 and 16
func.func @chain(%x: tensor<4xf32>, %y: tensor<4xf32>, %z: tensor<4xf32>) -> tensor<4xf32> {
  %a = trace.exp %x : tensor<4xf32>
  %b = trace.add %a, %y : tensor<4xf32>
  %c = trace.mul %b, %z : tensor<4xf32>
  %d = trace.tanh %c : tensor<4xf32>
  %e = trace.neg %d : tensor<4xf32>
  return %e : tensor<4xf32>
}
