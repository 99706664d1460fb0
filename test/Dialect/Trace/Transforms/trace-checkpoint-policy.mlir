// trace-checkpoint-policy: selective policies on checkpoint regions, chosen
// by a regex over region names; a region takes the last entry that applies
// to it, and nothing_saveable takes a policy away.
// RUN: trace-opt %s -trace-checkpoint-policy='policy=dots_saveable,nothing_saveable@blocks\.1,save_ops=exp|trace.tanh+save_names=h@head' | FileCheck %s
// RUN: trace-opt %s -trace-checkpoint-policy='policy=dots_saveable@blocks\.[0-9]{1,2}' -trace-autodiff=print-saved -o /dev/null 2>&1 | FileCheck %s --check-prefix=SAVED
// RUN: trace-opt %s -trace-autodiff=print-saved -o /dev/null 2>&1 | FileCheck %s --check-prefix=NONE

// Errors: each names the entry, and the regions when the regex matches none.
// RUN: not trace-opt %s -trace-checkpoint-policy='policy=dots_saveable@block' 2>&1 | FileCheck %s --check-prefix=NOMATCH
// RUN: not trace-opt %s -trace-checkpoint-policy='policy=save_ops=conv' 2>&1 | FileCheck %s --check-prefix=NOOP
// RUN: not trace-opt %s -trace-checkpoint-policy='policy=everything' 2>&1 | FileCheck %s --check-prefix=TERM
// RUN: not trace-opt %s -trace-checkpoint-policy='policy=dots_saveable@(' 2>&1 | FileCheck %s --check-prefix=REGEX
// NOMATCH: error: --checkpoint-policy 'dots_saveable@block' applies to no checkpoint region (regions: blocks.0, blocks.1, head)
// NOOP: error: --checkpoint-policy 'save_ops=conv': save_ops names 'conv', which is not an op of the trace dialect
// TERM: error: --checkpoint-policy 'everything': unknown policy term 'everything' (expected nothing_saveable, dots_saveable, save_ops=OP|OP... or save_names=NAME|NAME...)
// REGEX: error: --checkpoint-policy 'dots_saveable@(': invalid regex '('

// CHECK-LABEL: func.func @blocks
// CHECK: trace.checkpoint "blocks.0" policy = #trace.policy<save_ops = ["trace.matmul", "trace.convolution"]> ins(
// CHECK: trace.checkpoint "blocks.1" ins(
// CHECK: trace.checkpoint "head" policy = #trace.policy<save_ops = ["trace.exp", "trace.tanh"], save_names = ["h"]> ins(

// With dots_saveable on the blocks, each block's matmul is saved (sin's
// derivative reads it), where by default the two are recomputed.
// SAVED: remark: saved for backward by @blocks_fwd: 7 values, {{.*}}, 0 ops recomputed
// SAVED-COUNT-2: from trace.matmul
// NONE: remark: saved for backward by @blocks_fwd: 5 values, {{.*}}, 2 ops recomputed
// NONE-NOT: from trace.matmul
func.func @blocks(%x: tensor<4x8xf32>, %w0: tensor<8x8xf32>, %w1: tensor<8x8xf32>) -> tensor<4x8xf32> {
  %b0 = trace.checkpoint "blocks.0" ins(%a = %x : tensor<4x8xf32>, %w = %w0 : tensor<8x8xf32>) -> tensor<4x8xf32> {
    %m = trace.matmul %a, %w : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
    %t = trace.sin %m : tensor<4x8xf32>
    trace.yield %t : tensor<4x8xf32>
  }
  %b1 = trace.checkpoint "blocks.1" policy = #trace.policy<save_names = ["old"]> ins(%a = %b0 : tensor<4x8xf32>, %w = %w1 : tensor<8x8xf32>) -> tensor<4x8xf32> {
    %m = trace.matmul %a, %w : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
    %t = trace.sin %m : tensor<4x8xf32>
    trace.yield %t : tensor<4x8xf32>
  }
  %y = trace.checkpoint "head" ins(%a = %b1 : tensor<4x8xf32>) -> tensor<4x8xf32> {
    %e = trace.exp %a {trace.name = "h"} : tensor<4x8xf32>
    trace.yield %e : tensor<4x8xf32>
  }
  return %y : tensor<4x8xf32>
}
