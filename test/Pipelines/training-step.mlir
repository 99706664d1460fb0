// trace-training-step, the training step trace-compile and trace-run
// --training-step run: trace-autodiff, trace-remat, trace-schedule,
// trace-fuse, each stage's pass given its own options. Its output is the
// passes' output run one by one.
// RUN: trace-opt %trace_src_root/examples/mlp_blocks.mlir --trace-training-step > %t.step.mlir
// RUN: trace-opt %trace_src_root/examples/mlp_blocks.mlir --pass-pipeline="builtin.module(trace-autodiff,trace-remat,func.func(trace-schedule,trace-fuse))" > %t.passes.mlir
// RUN: diff %t.step.mlir %t.passes.mlir
// RUN: FileCheck %s < %t.step.mlir
// CHECK: func.func @forward({{.*}}trace.derivatives = #trace.derivatives<grad = @forward_grad, fwd = @forward_fwd, bwd = @forward_bwd>
// CHECK: trace.fusion

// Stages off, and a stage's options.
// RUN: trace-opt %trace_src_root/examples/mlp_blocks.mlir --trace-training-step="remat=false schedule=false fuse=false" > %t.autodiff.mlir
// RUN: trace-opt %trace_src_root/examples/mlp_blocks.mlir --trace-autodiff | diff %t.autodiff.mlir -
// RUN: trace-opt %trace_src_root/examples/mlp_blocks.mlir --trace-training-step="remat-options={budget=0} schedule=false fuse=false" > %t.budget.mlir
// RUN: trace-opt %trace_src_root/examples/mlp_blocks.mlir --trace-autodiff --trace-remat="budget=0" | diff %t.budget.mlir -

// A stage's bad option is an error naming the pass and the option.
// RUN: not trace-opt %trace_src_root/examples/mlp_blocks.mlir --trace-training-step="fuse-options={max-opz=3}" 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: bad options 'max-opz=3' for trace-fuse: {{.*}}no such option max-opz
