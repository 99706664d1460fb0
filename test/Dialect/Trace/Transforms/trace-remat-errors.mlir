// trace-remat's diagnostics: a budget the constraints rule out, bad policy
// attributes, contradictory constraints, and a budget it cannot parse.
// RUN: trace-opt %s -split-input-file -trace-autodiff -trace-remat="budget=0 save-names=named" -verify-diagnostics
// RUN: not trace-opt %s -split-input-file -trace-autodiff -trace-remat="budget=lots" 2>&1 | FileCheck %s --check-prefix=PARSE
// PARSE: error: trace-remat: cannot parse budget 'lots': expected a fraction from 0 to 1 or a byte count such as 200000, 200KB or 1.5MiB

// A must-save value makes a zero budget impossible; the note names it.
// expected-error @+1 {{trace-remat: cannot meet the budget of 0 bytes for @unmeetable: the constraints leave at least 256 bytes saved}}
func.func @unmeetable(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>) -> tensor<4x16xf32> {
  %m = trace.matmul %x, %w : tensor<4x8xf32>, tensor<8x16xf32> -> tensor<4x16xf32>
  // expected-note @+1 {{must be saved (256 bytes)}}
  %e = trace.exp %m {trace.remat = "must_save"} : tensor<4x16xf32>
  return %e : tensor<4x16xf32>
}

// -----

func.func @bad_policy(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'trace.exp' op has trace.remat = "always"; expected "must_save", "prefer_save", "must_recompute" or "prefer_recompute"}}
  %e = trace.exp %x {trace.remat = "always"} : tensor<4xf32>
  return %e : tensor<4xf32>
}

// -----

func.func @contradiction(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'trace.exp' op is named in save-names and has trace.remat = "must_recompute"}}
  %e = trace.exp %x {trace.name = "named", trace.remat = "must_recompute"} : tensor<4xf32>
  return %e : tensor<4xf32>
}
