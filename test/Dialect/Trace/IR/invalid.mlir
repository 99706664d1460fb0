// One case per verifier (and parser) error of the trace dialect.
// RUN: trace-opt %s -split-input-file -verify-diagnostics

func.func @exp_of_int(%x: tensor<4xi32>) {
  // expected-error @+1 {{operand #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type or 64-bit float values}}
  %0 = trace.exp %x : tensor<4xi32>
  return
}

// -----

func.func @dynamic_shape(%x: tensor<?xf32>) {
  // expected-error @+1 {{must be statically shaped tensor}}
  %0 = trace.neg %x : tensor<?xf32>
  return
}

// -----

func.func @unsupported_element_type(%x: tensor<4xi8>) {
  // expected-error @+1 {{must be statically shaped tensor}}
  %0 = trace.add %x, %x : tensor<4xi8>
  return
}

// -----

func.func @binary_type_mismatch(%a: tensor<4xf32>, %b: tensor<5xf32>) {
  // expected-error @+1 {{'trace.add' op all non-scalar operands/results must have the same shape and base type}}
  %0 = "trace.add"(%a, %b) : (tensor<4xf32>, tensor<5xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @no_implicit_broadcast(%a: tensor<4x8xf32>, %b: tensor<8xf32>) {
  // expected-error @+1 {{'trace.mul' op all non-scalar operands/results must have the same shape and base type}}
  %0 = "trace.mul"(%a, %b) : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @compare_unknown_direction(%a: tensor<4xf32>) {
  // expected-error @+1 {{unknown comparison direction 'lte' (expected eq, ne, lt, le, gt or ge)}}
  %0 = trace.compare lte, %a, %a : tensor<4xf32>
  return
}

// -----

func.func @compare_result_not_bool(%a: tensor<4xf32>) {
  // expected-error @+1 {{result #0 must be statically shaped tensor of 1-bit signless integer values}}
  %0 = "trace.compare"(%a, %a) {direction = #trace<cmp lt>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @select_cond_shape(%c: tensor<3xi1>, %a: tensor<4xf32>) {
  // expected-error @+1 {{all of {cond, result} have same shape}}
  %0 = trace.select %c, %a, %a : tensor<3xi1>, tensor<4xf32>
  return
}

// -----

func.func @select_cond_not_bool(%c: tensor<4xf32>, %a: tensor<4xf32>) {
  // expected-error @+1 {{operand #0 must be statically shaped tensor of 1-bit signless integer values}}
  %0 = trace.select %c, %a, %a : tensor<4xf32>, tensor<4xf32>
  return
}

// -----

func.func @convert_shape(%a: tensor<4xf32>) {
  // expected-error @+1 {{'trace.convert' op all non-scalar operands/results must have the same shape and base type}}
  %0 = trace.convert %a : tensor<4xf32> -> tensor<5xf16>
  return
}

// -----

func.func @constant_type_mismatch() {
  // expected-error @+1 {{failed to verify that all of {value, result} have same type}}
  %0 = "trace.constant"() {value = dense<1.0> : tensor<4xf32>} : () -> tensor<5xf32>
  return
}

// -----

func.func @full_value_type() {
  // expected-error @+1 {{value type 'f64' does not match the result element type 'f32'}}
  %0 = "trace.full"() {value = 1.0 : f64} : () -> tensor<4xf32>
  return
}

// -----

func.func @full_bool_for_float() {
  // expected-error @+1 {{'true'/'false' needs an i1 tensor, got 'tensor<4xf32>'}}
  %0 = trace.full true : tensor<4xf32>
  return
}

// -----

func.func @full_int_out_of_range() {
  // expected-error @+1 {{fill value 300 does not fit in 'i1'}}
  %0 = trace.full 300 : tensor<4xi1>
  return
}

// -----

func.func @full_float_for_int() {
  // expected-error @+1 {{expected an integer fill value for 'tensor<4xi32>', got 1.5}}
  %0 = trace.full 1.5 : tensor<4xi32>
  return
}

// -----

func.func @full_hex_too_wide() {
  // expected-error @+1 {{hexadecimal value 0x7FC000000 does not fit in 'f32'}}
  %0 = trace.full 0x7FC000000 : tensor<4xf32>
  return
}

// -----

func.func @iota_rank0() {
  // expected-error @+1 {{result must have rank >= 1}}
  %0 = trace.iota dim = 0 : tensor<i64>
  return
}

// -----

func.func @iota_dim() {
  // expected-error @+1 {{dim 2 is out of range for a result of rank 2}}
  %0 = trace.iota dim = 2 : tensor<4x4xi64>
  return
}

// -----

func.func @random_negative_offset(%seed: tensor<i64>) {
  // expected-error @+1 {{attribute 'offset' failed to satisfy constraint: 64-bit signless integer attribute whose value is non-negative}}
  %0 = trace.random_uniform %seed, offset = -1 : tensor<4xf32>
  return
}

// -----

func.func @random_int_result(%seed: tensor<i64>) {
  // expected-error @+1 {{result #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type or 64-bit float values}}
  %0 = trace.random_uniform %seed, offset = 0 : tensor<4xi32>
  return
}

// -----

func.func @random_seed_rank(%seed: tensor<2xi64>) {
  // expected-error @+1 {{operand #0 must be rank-0 tensor of i64 (a random seed)}}
  %0 = "trace.random_uniform"(%seed) {offset = 0 : i64} : (tensor<2xi64>) -> tensor<4xf32>
  return
}

// -----

func.func @broadcast_dims_count(%x: tensor<8xf32>) {
  // expected-error @+1 {{needs one entry in dims per operand dim: got 2 for an operand of rank 1}}
  %0 = trace.broadcast_in_dim %x, dims = [0, 1] : tensor<8xf32> -> tensor<4x8xf32>
  return
}

// -----

func.func @broadcast_dim_range(%x: tensor<8xf32>) {
  // expected-error @+1 {{dims[0] = 2 is out of range for a result of rank 2}}
  %0 = trace.broadcast_in_dim %x, dims = [2] : tensor<8xf32> -> tensor<4x8xf32>
  return
}

// -----

func.func @broadcast_dims_order(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{dims must be strictly increasing, got [1, 0] (reorder dims with trace.transpose)}}
  %0 = trace.broadcast_in_dim %x, dims = [1, 0] : tensor<4x8xf32> -> tensor<8x4xf32>
  return
}

// -----

func.func @broadcast_size(%x: tensor<3xf32>) {
  // expected-error @+1 {{operand dim 0 (size 3) can't broadcast to result dim 1 (size 8)}}
  %0 = trace.broadcast_in_dim %x, dims = [1] : tensor<3xf32> -> tensor<4x8xf32>
  return
}

// -----

func.func @broadcast_element_type(%x: tensor<8xf32>) {
  // expected-error @+1 {{requires the same element type for all operands and results}}
  %0 = trace.broadcast_in_dim %x, dims = [1] : tensor<8xf32> -> tensor<4x8xf16>
  return
}

// -----

func.func @reshape_count(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{can't reshape 4x8 (32 elements) to 5x6 (30 elements)}}
  %0 = trace.reshape %x : tensor<4x8xf32> -> tensor<5x6xf32>
  return
}

// -----

func.func @transpose_perm_size(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'trace.transpose' op permutation has 3 entries for an operand of rank 2}}
  %0 = trace.transpose %x, perm = [0, 1, 2] : tensor<4x8xf32> -> tensor<4x8xf32>
  return
}

// -----

func.func @transpose_perm_duplicate(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'trace.transpose' op permutation entry 0 appears twice}}
  %0 = trace.transpose %x, perm = [0, 0] : tensor<4x8xf32> -> tensor<4x4xf32>
  return
}

// -----

func.func @transpose_perm_range(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'trace.transpose' op permutation entry 2 is out of range for a tensor of rank 2}}
  %0 = trace.transpose %x, perm = [2, 0] : tensor<4x8xf32> -> tensor<4x4xf32>
  return
}

// -----

func.func @transpose_result_type(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'trace.transpose' op result type 'tensor<4x8xf32>' should be 'tensor<8x4xf32>' for these operands and attributes}}
  %0 = trace.transpose %x, perm = [1, 0] : tensor<4x8xf32> -> tensor<4x8xf32>
  return
}

// -----

func.func @slice_ranges_count(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'trace.slice' op needs one range per dim: got 1 for an operand of rank 2}}
  %0 = trace.slice %x [0:2] : tensor<4x8xf32> -> tensor<2xf32>
  return
}

// -----

func.func @slice_bounds(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'trace.slice' op range 2:9 of dim 1 is outside 0:8 (needs 0 <= start <= limit <= size)}}
  %0 = trace.slice %x [0:4, 2:9] : tensor<4x8xf32> -> tensor<4x7xf32>
  return
}

// -----

func.func @slice_stride(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'trace.slice' op stride of dim 0 must be >= 1, got 0}}
  %0 = trace.slice %x [0:4:0, 0:8] : tensor<4x8xf32> -> tensor<4x8xf32>
  return
}

// -----

func.func @concatenate_empty() {
  // expected-error @+1 {{'trace.concatenate' op expected 1 or more operands, but found 0}}
  %0 = "trace.concatenate"() {dimension = 0 : i64} : () -> tensor<4xf32>
  return
}

// -----

func.func @concatenate_dim(%a: tensor<4xf32>) {
  // expected-error @+1 {{'trace.concatenate' op dim 1 is out of range for inputs of rank 1}}
  %0 = trace.concatenate %a, %a dim = 1 : (tensor<4xf32>, tensor<4xf32>) -> tensor<8xf32>
  return
}

// -----

func.func @concatenate_rank(%a: tensor<4xf32>, %b: tensor<4x1xf32>) {
  // expected-error @+1 {{'trace.concatenate' op input 1 has rank 2, input 0 has 1}}
  %0 = trace.concatenate %a, %b dim = 0 : (tensor<4xf32>, tensor<4x1xf32>) -> tensor<8xf32>
  return
}

// -----

func.func @concatenate_other_dim(%a: tensor<4x2xf32>, %b: tensor<4x3xf32>) {
  // expected-error @+1 {{'trace.concatenate' op input 1 (4x3) differs from input 0 (4x2) in dim 1, which is not the concatenated dim}}
  %0 = trace.concatenate %a, %b dim = 0 : (tensor<4x2xf32>, tensor<4x3xf32>) -> tensor<8x2xf32>
  return
}

// -----

func.func @reduce_dim_range(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'trace.reduce_sum' op reduced dim 2 is out of range for a tensor of rank 2}}
  %0 = trace.reduce_sum %x dims = [2] : tensor<4x8xf32> -> tensor<4xf32>
  return
}

// -----

func.func @reduce_dim_twice(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'trace.reduce_max' op reduced dim 1 appears twice}}
  %0 = trace.reduce_max %x dims = [1, 1] : tensor<4x8xf32> -> tensor<4xf32>
  return
}

// -----

func.func @reduce_keepdim_type(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'trace.reduce_sum' op result type 'tensor<4xf32>' should be 'tensor<4x1xf32>' for these operands and attributes}}
  %0 = trace.reduce_sum %x dims = [1] keepdim : tensor<4x8xf32> -> tensor<4xf32>
  return
}

// -----

func.func @reduce_bool(%x: tensor<4xi1>) {
  // expected-error @+1 {{operand #0 must be statically shaped tensor of}}
  %0 = trace.reduce_sum %x dims = [0] : tensor<4xi1> -> tensor<i1>
  return
}

// -----

func.func @matmul_rank(%a: tensor<4xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{'trace.matmul' op operands must have one rank >= 2, got 4 and 4}}
  %0 = trace.matmul %a, %b : tensor<4xf32>, tensor<4xf32> -> tensor<f32>
  return
}

// -----

func.func @matmul_k(%a: tensor<4x3xf32>, %b: tensor<4x5xf32>) {
  // expected-error @+1 {{'trace.matmul' op contracting dims differ: lhs 4x3 has K = 3, rhs 4x5 has K = 4}}
  %0 = trace.matmul %a, %b : tensor<4x3xf32>, tensor<4x5xf32> -> tensor<4x5xf32>
  return
}

// -----

func.func @matmul_batch(%a: tensor<2x4x3xf32>, %b: tensor<3x3x5xf32>) {
  // expected-error @+1 {{'trace.matmul' op batch dims differ: 2x4x3 vs 3x3x5 (broadcast explicitly with trace.broadcast_in_dim)}}
  %0 = trace.matmul %a, %b : tensor<2x4x3xf32>, tensor<3x3x5xf32> -> tensor<2x4x5xf32>
  return
}

// -----

func.func @matmul_element_types(%a: tensor<4x4xf32>, %b: tensor<4x4xf16>) {
  // expected-error @+1 {{requires the same element type for all operands}}
  %0 = trace.matmul %a, %b : tensor<4x4xf32>, tensor<4x4xf16> -> tensor<4x4xf32>
  return
}

// -----

func.func @convolution_rank(%x: tensor<2x4xf32>, %w: tensor<6x4xf32>) {
  // expected-error @+1 {{'trace.convolution' op input and kernel must have one rank >= 3 ([N, C, spatial...] and [O, C / groups, kernel...]), got 2x4 and 6x4}}
  %0 = trace.convolution %x, %w strides = [] padding = [] lhs_dilation = [] rhs_dilation = [] groups = 1 : tensor<2x4xf32>, tensor<6x4xf32> -> tensor<2x6xf32>
  return
}

// -----

func.func @convolution_padding_count(%x: tensor<2x4x7x7xf32>, %w: tensor<6x4x3x3xf32>) {
  // expected-error @+1 {{'trace.convolution' op padding needs 4 entries for 2 spatial dims, got 2}}
  %0 = trace.convolution %x, %w strides = [1, 1] padding = [1, 1] lhs_dilation = [1, 1] rhs_dilation = [1, 1] groups = 1 : tensor<2x4x7x7xf32>, tensor<6x4x3x3xf32> -> tensor<2x6x7x7xf32>
  return
}

// -----

func.func @convolution_groups(%x: tensor<2x4x7x7xf32>, %w: tensor<6x2x3x3xf32>) {
  // expected-error @+1 {{'trace.convolution' op groups = 3 must be >= 1 and divide the input's 4 channels and the kernel's 6 output features}}
  %0 = trace.convolution %x, %w strides = [1, 1] padding = [0, 0, 0, 0] lhs_dilation = [1, 1] rhs_dilation = [1, 1] groups = 3 : tensor<2x4x7x7xf32>, tensor<6x2x3x3xf32> -> tensor<2x6x5x5xf32>
  return
}

// -----

func.func @convolution_channels(%x: tensor<2x4x7x7xf32>, %w: tensor<6x3x3x3xf32>) {
  // expected-error @+1 {{'trace.convolution' op kernel 6x3x3x3 has 3 input channels per group; the input 2x4x7x7 has 4 in 1 group(s)}}
  %0 = trace.convolution %x, %w strides = [1, 1] padding = [0, 0, 0, 0] lhs_dilation = [1, 1] rhs_dilation = [1, 1] groups = 1 : tensor<2x4x7x7xf32>, tensor<6x3x3x3xf32> -> tensor<2x6x5x5xf32>
  return
}

// -----

func.func @convolution_stride(%x: tensor<2x4x7x7xf32>, %w: tensor<6x4x3x3xf32>) {
  // expected-error @+1 {{'trace.convolution' op strides and dilations must be >= 1, got stride 0, lhs_dilation 1, rhs_dilation 1 in spatial dim 1}}
  %0 = trace.convolution %x, %w strides = [1, 0] padding = [0, 0, 0, 0] lhs_dilation = [1, 1] rhs_dilation = [1, 1] groups = 1 : tensor<2x4x7x7xf32>, tensor<6x4x3x3xf32> -> tensor<2x6x5x5xf32>
  return
}

// -----

func.func @convolution_window(%x: tensor<2x4x7x7xf32>, %w: tensor<6x4x3x3xf32>) {
  // expected-error @+1 {{'trace.convolution' op spatial dim 0: the window of 5 (kernel 3, dilation 2) does not fit the padded input of 4 (size 7, lhs_dilation 1, padding -2, -1)}}
  %0 = trace.convolution %x, %w strides = [1, 1] padding = [-2, -1, 0, 0] lhs_dilation = [1, 1] rhs_dilation = [2, 1] groups = 1 : tensor<2x4x7x7xf32>, tensor<6x4x3x3xf32> -> tensor<2x6x1x5xf32>
  return
}

// -----

func.func @convolution_result(%x: tensor<2x4x7x7xf32>, %w: tensor<6x4x3x3xf32>) {
  // expected-error @+1 {{'trace.convolution' op result type 'tensor<2x6x7x7xf32>' should be 'tensor<2x6x5x5xf32>' for these operands and attributes}}
  %0 = trace.convolution %x, %w strides = [1, 1] padding = [0, 0, 0, 0] lhs_dilation = [1, 1] rhs_dilation = [1, 1] groups = 1 : tensor<2x4x7x7xf32>, tensor<6x4x3x3xf32> -> tensor<2x6x7x7xf32>
  return
}

// -----

func.func @convolution_no_features(%x: tensor<2x4x7x7xf32>, %w: tensor<0x4x3x3xf32>) {
  // expected-error @+1 {{'trace.convolution' op the kernel 0x4x3x3 has no output features}}
  %0 = trace.convolution %x, %w strides = [1, 1] padding = [0, 0, 0, 0] lhs_dilation = [1, 1] rhs_dilation = [1, 1] groups = 1 : tensor<2x4x7x7xf32>, tensor<0x4x3x3xf32> -> tensor<2x0x5x5xf32>
  return
}

// -----

func.func @convolution_empty_input(%x: tensor<2x4x0x7xf32>, %w: tensor<6x4x1x3xf32>) {
  // expected-error @+1 {{'trace.convolution' op spatial dim 0 of the input 2x4x0x7 is empty}}
  %0 = trace.convolution %x, %w strides = [1, 1] padding = [1, 1, 0, 0] lhs_dilation = [2, 1] rhs_dilation = [1, 1] groups = 1 : tensor<2x4x0x7xf32>, tensor<6x4x1x3xf32> -> tensor<2x6x2x5xf32>
  return
}

// -----

func.func @reverse_dim(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'trace.reverse' op reversed dim 2 is out of range for a tensor of rank 2}}
  %0 = trace.reverse %x dims = [2] : tensor<2x3xf32>
  return
}

// -----

func.func @reverse_twice(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'trace.reverse' op reversed dim 1 appears twice}}
  %0 = trace.reverse %x dims = [1, 1] : tensor<2x3xf32>
  return
}

// -----

func.func @checkpoint_uses_outside_value(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  // expected-note @+1 {{required by region isolation constraints}}
  %0 = trace.checkpoint ins(%x = %a : tensor<4xf32>) -> tensor<4xf32> {
    // expected-error @+1 {{using value defined outside the region}}
    %s = trace.add %x, %b : tensor<4xf32>
    trace.yield %s : tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}

// -----

func.func @checkpoint_arg_count(%a: tensor<4xf32>) {
  // expected-error @+1 {{'trace.checkpoint' op has 1 inputs but its body has 2 block arguments}}
  %0 = "trace.checkpoint"(%a) ({
  ^bb0(%x: tensor<4xf32>, %y: tensor<4xf32>):
    "trace.yield"(%x) : (tensor<4xf32>) -> ()
  }) : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @checkpoint_arg_type(%a: tensor<4xf32>) {
  // expected-error @+1 {{'trace.checkpoint' op block argument 0 has type 'tensor<4xf16>' but input 0 has type 'tensor<4xf32>'}}
  %0 = "trace.checkpoint"(%a) ({
  ^bb0(%x: tensor<4xf16>):
    "trace.yield"(%x) : (tensor<4xf16>) -> ()
  }) : (tensor<4xf32>) -> tensor<4xf16>
  return
}

// -----

func.func @checkpoint_yield_count(%a: tensor<4xf32>) {
  %0 = trace.checkpoint ins(%x = %a : tensor<4xf32>) -> tensor<4xf32> {
    // expected-error @+1 {{'trace.yield' op yields 2 values but the enclosing 'trace.checkpoint' has 1 results}}
    trace.yield %x, %x : tensor<4xf32>, tensor<4xf32>
  }
  return
}

// -----

func.func @checkpoint_yield_type(%a: tensor<4xf32>) {
  %0 = trace.checkpoint ins(%x = %a : tensor<4xf32>) -> tensor<8xf32> {
    // expected-error @+1 {{'trace.yield' op value 0 has type 'tensor<4xf32>' but result 0 of the enclosing 'trace.checkpoint' has type 'tensor<8xf32>'}}
    trace.yield %x : tensor<4xf32>
  }
  return
}

// -----

func.func @checkpoint_wrong_terminator(%a: tensor<4xf32>) {
  %0 = trace.checkpoint ins(%x = %a : tensor<4xf32>) -> tensor<4xf32> {
    // expected-error @+1 {{'func.return' op expects parent op 'func.func'}}
    func.return %x : tensor<4xf32>
  }
  return
}

// -----

func.func @checkpoint_no_terminator(%a: tensor<4xf32>) {
  %0 = "trace.checkpoint"(%a) ({
  ^bb0(%x: tensor<4xf32>):
    // expected-error @+1 {{block with no terminator}}
    %t = "trace.exp"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  }) : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @checkpoint_policy_unknown_op(%a: tensor<4xf32>) {
  // expected-error @+1 {{'trace.checkpoint' op policy save_ops names 'trace.matmull', which is not a trace op}}
  %0 = trace.checkpoint policy = #trace.policy<save_ops = ["trace.matmull"]> ins(%x = %a : tensor<4xf32>) -> tensor<4xf32> {
    trace.yield %x : tensor<4xf32>
  }
  return
}

// -----

func.func @checkpoint_policy_not_strings(%a: tensor<4xf32>) {
  // expected-error @+1 {{policy save_names must be a list of non-empty strings, got 3 : i64}}
  %0 = trace.checkpoint policy = #trace.policy<save_names = [3]> ins(%x = %a : tensor<4xf32>) -> tensor<4xf32> {
    trace.yield %x : tensor<4xf32>
  }
  return
}

// -----

func.func @fusion_yield_type(%a: tensor<4xf32>) {
  %0 = trace.fusion ins(%x = %a : tensor<4xf32>) -> tensor<4xi32> {
    // expected-error @+1 {{'trace.yield' op value 0 has type 'tensor<4xf32>' but result 0 of the enclosing 'trace.fusion' has type 'tensor<4xi32>'}}
    trace.yield %x : tensor<4xf32>
  }
  return
}

// -----

func.func @fusion_no_policy(%a: tensor<4xf32>) {
  // expected-error @+1 {{expected 'ins'}}
  %0 = trace.fusion policy = #trace.policy<> ins(%x = %a : tensor<4xf32>) -> tensor<4xf32> {
    trace.yield %x : tensor<4xf32>
  }
  return
}

// -----

func.func @yield_outside_region(%a: tensor<4xf32>) {
  // expected-error @+1 {{'trace.yield' op expects parent op to be one of 'trace.checkpoint, trace.fusion'}}
  trace.yield %a : tensor<4xf32>
}

// -----

func.func @full_not_scalar() {
  // expected-error @+1 {{'trace.full' op value must be a float or integer scalar, got dense<1.000000e+00> : tensor<4xf32>}}
  %0 = "trace.full"() {value = dense<1.0> : tensor<4xf32>} : () -> tensor<4xf32>
  return
}

// -----

func.func @full_not_a_number() {
  // expected-error @+1 {{expected a scalar fill value}}
  %0 = trace.full pi : tensor<4xf32>
  return
}

// -----

func.func @compare_operand_types(%a: tensor<4xf32>, %b: tensor<4xf16>) {
  // expected-error @+1 {{'trace.compare' op requires all operands to have the same type}}
  %0 = "trace.compare"(%a, %b) {direction = #trace<cmp lt>} : (tensor<4xf32>, tensor<4xf16>) -> tensor<4xi1>
  return
}

// -----

func.func @select_branch_types(%c: tensor<4xi1>, %a: tensor<4xf32>, %b: tensor<4xf16>) {
  // expected-error @+1 {{'trace.select' op failed to verify that all of {on_true, on_false, result} have same type}}
  %0 = "trace.select"(%c, %a, %b) : (tensor<4xi1>, tensor<4xf32>, tensor<4xf16>) -> tensor<4xf32>
  return
}

// -----

func.func @checkpoint_foreign_terminator(%a: tensor<4xf32>) {
  // expected-error @+1 {{'trace.checkpoint' op body must end with trace.yield, not llvm.unreachable}}
  %0 = trace.checkpoint ins(%x = %a : tensor<4xf32>) -> tensor<4xf32> {
    llvm.unreachable
  }
  return
}

// -----

func.func @checkpoint_policy_empty_name(%a: tensor<4xf32>) {
  // expected-error @+1 {{policy save_ops must be a list of non-empty strings, got ""}}
  %0 = trace.checkpoint policy = #trace.policy<save_ops = [""]> ins(%x = %a : tensor<4xf32>) -> tensor<4xf32> {
    trace.yield %x : tensor<4xf32>
  }
  return
}

// -----

func.func @forward_end_twice() {
  // expected-error @+1 {{'trace.forward_end' op must be the only trace.forward_end of its block}}
  trace.forward_end
  trace.forward_end
  return
}

// -----

func.func @forward_end_in_region(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = trace.checkpoint "blk" ins(%a = %x : tensor<4xf32>) -> tensor<4xf32> {
    // expected-error @+1 {{'trace.forward_end' op must be directly in a function's body}}
    trace.forward_end
    trace.yield %a : tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}

// -----

// expected-error @+1 {{'trace.derivatives' names @missing_grad as grad, which is not a function of this symbol table}}
func.func @derivatives_missing(%x: tensor<4xf32>) -> tensor<4xf32> attributes {
    trace.derivatives = #trace.derivatives<grad = @missing_grad, fwd = @missing_fwd, bwd = @missing_bwd>} {
  return %x : tensor<4xf32>
}

// -----

func.func @g(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
// expected-error @+1 {{'trace.derivatives' names @self, the function itself, as fwd}}
func.func @self(%x: tensor<4xf32>) -> tensor<4xf32> attributes {
    trace.derivatives = #trace.derivatives<grad = @g, fwd = @self, bwd = @g>} {
  return %x : tensor<4xf32>
}

// -----

// expected-error @+1 {{'trace.derivatives' must be a #trace.derivatives attribute, got "f_grad"}}
func.func @derivatives_string(%x: tensor<4xf32>) -> tensor<4xf32> attributes {
    trace.derivatives = "f_grad"} {
  return %x : tensor<4xf32>
}

// -----

// expected-error @+1 {{'trace.derivatives' belongs on a function}}
module attributes {trace.derivatives = #trace.derivatives<grad = @a, fwd = @b, bwd = @c>} {
}

// -----

func.func @h(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
func.func @h2(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
// expected-error @+1 {{'trace.derivatives' must name three different functions}}
func.func @same_twice(%x: tensor<4xf32>) -> tensor<4xf32> attributes {
    trace.derivatives = #trace.derivatives<grad = @h, fwd = @h2, bwd = @h2>} {
  return %x : tensor<4xf32>
}

// -----

func.func @gather_dim(%x: tensor<4x3xf32>, %i: tensor<2x3xi64>) {
  // expected-error @+1 {{'trace.gather' op dim 2 is out of range for an operand of rank 2}}
  %r = trace.gather %x[%i] dim = 2 : tensor<4x3xf32>, tensor<2x3xi64> -> tensor<2x3xf32>
  return
}

// -----

func.func @gather_rank(%x: tensor<4x3xf32>, %i: tensor<6xi64>) {
  // expected-error @+1 {{'trace.gather' op indices of shape 6 do not have the operand's rank 2}}
  %r = trace.gather %x[%i] dim = 0 : tensor<4x3xf32>, tensor<6xi64> -> tensor<6xf32>
  return
}

// -----

func.func @gather_wide(%x: tensor<4x3xf32>, %i: tensor<2x5xi64>) {
  // expected-error @+1 {{'trace.gather' op indices of shape 2x5 exceed the operand's shape 4x3 in dim 1}}
  %r = trace.gather %x[%i] dim = 0 : tensor<4x3xf32>, tensor<2x5xi64> -> tensor<2x5xf32>
  return
}

// -----

func.func @gather_empty(%x: tensor<0x3xf32>, %i: tensor<2x3xi64>) {
  // expected-error @+1 {{'trace.gather' op indexes dim 0, which is empty}}
  %r = trace.gather %x[%i] dim = 0 : tensor<0x3xf32>, tensor<2x3xi64> -> tensor<2x3xf32>
  return
}

// -----

func.func @gather_float_indices(%x: tensor<4x3xf32>, %i: tensor<2x3xf32>) {
  // expected-error @+1 {{operand #1 must be statically shaped tensor of 32-bit signless integer or 64-bit signless integer values}}
  %r = trace.gather %x[%i] dim = 0 : tensor<4x3xf32>, tensor<2x3xf32> -> tensor<2x3xf32>
  return
}

// -----

func.func @scatter_shapes(%b: tensor<4x3xf32>, %i: tensor<2x3xi64>, %u: tensor<2x2xf32>) {
  // expected-error @+1 {{all of {indices, updates} have same shape}}
  %r = "trace.scatter_add"(%b, %i, %u) {dimension = 0 : i64} : (tensor<4x3xf32>, tensor<2x3xi64>, tensor<2x2xf32>) -> tensor<4x3xf32>
  return
}

// -----

func.func @scatter_types(%b: tensor<4x3xf32>, %i: tensor<2x3xi64>, %u: tensor<2x3xf64>) {
  // expected-error @+1 {{'trace.scatter_add' op updates of 'f64' into an operand of 'f32'}}
  %r = trace.scatter_add %u into %b[%i] dim = 0 : tensor<2x3xf64>, tensor<2x3xi64> -> tensor<4x3xf32>
  return
}

// -----

func.func @scatter_wide(%b: tensor<4x3xf32>, %i: tensor<5x3xi64>, %u: tensor<5x3xf32>) {
  // expected-error @+1 {{'trace.scatter_add' op indices of shape 5x3 exceed the operand's shape 4x3 in dim 0}}
  %r = trace.scatter_add %u into %b[%i] dim = 1 : tensor<5x3xf32>, tensor<5x3xi64> -> tensor<4x3xf32>
  return
}
