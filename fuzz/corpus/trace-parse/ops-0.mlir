// Round trip of every trace op, in the custom form and through the generic
// form: what is printed parses back to the same IR.

func.func @unary(%x: tensor<2x3xf32>, %i: tensor<4xi32>, %h: tensor<2xbf16>) {
  %0 = trace.neg %x : tensor<2x3xf32>
  %1 = trace.neg %i : tensor<4xi32>
  %2 = trace.abs %i : tensor<4xi32>
  %3 = trace.exp %x : tensor<2x3xf32>
  %4 = trace.log %x : tensor<2x3xf32>
  %5 = trace.sin %x : tensor<2x3xf32>
  %6 = trace.cos %x : tensor<2x3xf32>
  %7 = trace.tanh %h : tensor<2xbf16>
  %8 = trace.sqrt %x : tensor<2x3xf32>
  %9 = trace.rsqrt %x : tensor<2x3xf32>
  %10 = trace.erf %x : tensor<2x3xf32>
  %11 = trace.logistic %x : tensor<2x3xf32>
  %12 = trace.abs %x : tensor<2x3xf32>
  return
}

func.func @binary(%a: tensor<4xf16>, %b: tensor<4xf16>, %i: tensor<3xi64>) {
  %0 = trace.add %a, %b : tensor<4xf16>
  %1 = trace.sub %a, %b : tensor<4xf16>
  %2 = trace.mul %a, %b : tensor<4xf16>
  %3 = trace.div %a, %b : tensor<4xf16>
  %4 = trace.pow %a, %b : tensor<4xf16>
  %5 = trace.maximum %a, %b : tensor<4xf16>
  %6 = trace.minimum %a, %b : tensor<4xf16>
  %7 = trace.div %i, %i : tensor<3xi64>
  return
}

func.func @compare_select_convert(%a: tensor<2x2xf32>, %b: tensor<2x2xf32>, %i: tensor<2x2xi32>) -> tensor<2x2xf32> {
  %eq = trace.compare eq, %a, %b : tensor<2x2xf32>
  %ne = trace.compare ne, %a, %b : tensor<2x2xf32>
  %lt = trace.compare lt, %i, %i : tensor<2x2xi32>
  %le = trace.compare le, %a, %b : tensor<2x2xf32>
  %gt = trace.compare gt, %a, %b : tensor<2x2xf32>
  %ge = trace.compare ge, %eq, %ne : tensor<2x2xi1>
  %s = trace.select %eq, %a, %b : tensor<2x2xi1>, tensor<2x2xf32>
  %c = trace.convert %s : tensor<2x2xf32> -> tensor<2x2xbf16>
  %m = trace.convert %lt : tensor<2x2xi1> -> tensor<2x2xf32>
  return %m : tensor<2x2xf32>
}

func.func @sources(%seed: tensor<i64>) {
  %0 = trace.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %1 = trace.constant dense<7> : tensor<2x2xi64>
  %2 = trace.full 0.0 : tensor<4x8xf32>
  %3 = trace.full -2.5 : tensor<3xbf16>
  %4 = trace.full 0xFF800000 : tensor<3xf32>
  %5 = trace.full -9223372036854775808 : tensor<2xi64>
  %n3 = trace.full -3 : tensor<2xi32>
  // Hex integers are read as numbers.
  %h = trace.full 0x7F : tensor<2xi32>
  %6 = trace.full true : tensor<4x4xi1>
  %7 = trace.full 0x7E00 : tensor<2xf16>
  %8 = trace.iota dim = 1 : tensor<4x8xi64>
  %9 = trace.iota dim = 0 : tensor<5xf32>
  %10 = trace.random_uniform %seed, offset = 12 : tensor<4x8xf32>
  %11 = trace.random_uniform %seed, offset = 0 : tensor<16xbf16>
  return
}

func.func @shapes(%x: tensor<8xf32>, %m: tensor<2x3x4xf32>, %s: tensor<f32>) {
  %0 = trace.broadcast_in_dim %x, dims = [1] : tensor<8xf32> -> tensor<4x8xf32>
  %1 = trace.broadcast_in_dim %s, dims = [] : tensor<f32> -> tensor<2x2xf32>
  %2 = trace.reshape %m : tensor<2x3x4xf32> -> tensor<6x4xf32>
  %3 = trace.transpose %m, perm = [2, 0, 1] : tensor<2x3x4xf32> -> tensor<4x2x3xf32>
  %4 = trace.slice %m [0:2, 1:3, 0:4:2] : tensor<2x3x4xf32> -> tensor<2x2x2xf32>
  %5 = trace.concatenate %m, %m dim = 1 : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x6x4xf32>
  return
}

func.func @reductions_and_matmul(%x: tensor<2x3x4xf32>, %w: tensor<2x4x5xf32>) {
  %0 = trace.reduce_sum %x dims = [0, 2] : tensor<2x3x4xf32> -> tensor<3xf32>
  %1 = trace.reduce_sum %x dims = [2] keepdim : tensor<2x3x4xf32> -> tensor<2x3x1xf32>
  %2 = trace.reduce_max %x dims = [1, 0] : tensor<2x3x4xf32> -> tensor<4xf32>
  %3 = trace.matmul %x, %w : tensor<2x3x4xf32>, tensor<2x4x5xf32> -> tensor<2x3x5xf32>
  return
}

// Results of an op with `trace.name` print under that name.
func.func @named_values(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = trace.exp %x {trace.name = "blocks.0.fc1"} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

func.func @fusion(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = trace.fusion "fused_0" ins(%x = %a : tensor<4xf32>) -> tensor<4xf32> {
    %t = trace.tanh %x : tensor<4xf32>
    trace.yield %t : tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}
