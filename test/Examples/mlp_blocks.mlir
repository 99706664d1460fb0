// The bundled example (scripts/demo.sh) stays valid, and trace-canonicalize
// removes exactly the traced redundancies: the bias multiplied by alpha = 1
// and the reshape to the same shape, in both blocks; the regions, their
// policies, the matmuls and the dropout masks stay.
// RUN: trace-opt %trace_src_root/examples/mlp_blocks.mlir --trace-canonicalize | FileCheck %s

// CHECK-LABEL: func.func @forward
// CHECK: %[[B0:.*]] = trace.checkpoint "blocks.0" policy = #trace.policy<save_ops = ["trace.matmul"]>
// CHECK: %[[H:.*]] = trace.matmul
// CHECK-NEXT: %[[BIAS:.*]] = trace.broadcast_in_dim
// CHECK-NEXT: %blocks.0.fc1 = trace.add %[[H]], %[[BIAS]]
// CHECK: %[[O:.*]] = trace.matmul %blocks.0.act
// CHECK-NEXT: %[[BIAS2:.*]] = trace.broadcast_in_dim
// CHECK-NEXT: %[[O1:.*]] = trace.add %[[O]], %[[BIAS2]]
// CHECK-NEXT: trace.random_uniform %{{.*}}, offset = 0
// CHECK: trace.checkpoint "blocks.1" policy = #trace.policy<save_ops = ["trace.matmul"]> ins(%{{.*}} = %[[B0]] : tensor<8x32xf32>
// CHECK: trace.random_uniform %{{.*}}, offset = 64
// CHECK-NOT: trace.reshape
// CHECK: return
