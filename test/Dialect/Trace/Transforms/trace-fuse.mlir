// trace-fuse's fusion decisions: how many regions, their kind, what is
// inside, what stays outside. Limits: trace-fuse-limits.mlir.
// RUN: trace-opt %s -split-input-file -trace-fuse | FileCheck %s

// A loop fusion: a bias broadcast, elementwise ops and a splat constant
// (cloned in, not an input) become one region with one result.
// CHECK-LABEL: func.func @chain(
// CHECK-SAME: %[[X:.*]]: tensor<4x8xf32>, %[[B:.*]]: tensor<8xf32>)
// CHECK-NEXT: %[[F:.*]] = trace.fusion "loop_0" ins(%[[IB:.*]] = %[[B]] : tensor<8xf32>, %[[IX:.*]] = %[[X]] : tensor<4x8xf32>) -> tensor<4x8xf32> {
// CHECK-NEXT:   %[[TWO:.*]] = trace.full 2.000000e+00 : tensor<4x8xf32>
// CHECK-NEXT:   %[[BB:.*]] = trace.broadcast_in_dim %[[IB]], dims = [1]
// CHECK-NEXT:   %[[A:.*]] = trace.add %[[IX]], %[[BB]]
// CHECK-NEXT:   %[[T:.*]] = trace.tanh %[[A]]
// CHECK-NEXT:   %[[M:.*]] = trace.mul %[[T]], %[[TWO]]
// CHECK-NEXT:   trace.yield %[[M]] : tensor<4x8xf32>
// CHECK-NEXT: } attributes {trace.fusion_kind = "loop"}
// CHECK-NEXT: return %[[F]]
func.func @chain(%x: tensor<4x8xf32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
  %bb = trace.broadcast_in_dim %b, dims = [1] : tensor<8xf32> -> tensor<4x8xf32>
  %a = trace.add %x, %bb : tensor<4x8xf32>
  %t = trace.tanh %a : tensor<4x8xf32>
  %two = trace.full 2.0 : tensor<4x8xf32>
  %m = trace.mul %t, %two : tensor<4x8xf32>
  return %m : tensor<4x8xf32>
}

// -----

// Softmax: a reduction's consumers start a new fusion. The max is a lone
// reduction, a fusion of its own (its lowering folds the accumulator's
// fill); the shifted exp feeds the sum in an input fusion, which also
// yields the exp for the divide (multi-output); the divide by the
// broadcast sum is a loop fusion. Fusing the exp into the divide's fusion
// instead would need the sum first: a cycle.
// CHECK-LABEL: func.func @softmax(
// CHECK-SAME: %[[X:.*]]: tensor<4x8xf32>)
// CHECK-NEXT: %[[MAX:.*]] = trace.fusion "input_0" ins(%[[X1:.*]] = %[[X]] : tensor<4x8xf32>) -> tensor<4xf32> {
// CHECK-NEXT:   %[[R:.*]] = trace.reduce_max %[[X1]] dims = [1]
// CHECK-NEXT:   trace.yield %[[R]]
// CHECK-NEXT: } attributes {trace.fusion_kind = "input"}
// CHECK-NEXT: %[[IN:.*]]:2 = trace.fusion "input_1" ins(%[[M:.*]] = %[[MAX]] : tensor<4xf32>, %[[X2:.*]] = %[[X]] : tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4xf32>) {
// CHECK-NEXT:   %[[MB:.*]] = trace.broadcast_in_dim %[[M]], dims = [0]
// CHECK-NEXT:   %[[S:.*]] = trace.sub %[[X2]], %[[MB]]
// CHECK-NEXT:   %[[E:.*]] = trace.exp %[[S]]
// CHECK-NEXT:   %[[SUM:.*]] = trace.reduce_sum %[[E]] dims = [1]
// CHECK-NEXT:   trace.yield %[[E]], %[[SUM]] : tensor<4x8xf32>, tensor<4xf32>
// CHECK-NEXT: } attributes {trace.fusion_kind = "input"}
// CHECK-NEXT: %[[OUT:.*]] = trace.fusion "loop_2" ins(%[[S2:.*]] = %[[IN]]#1 : tensor<4xf32>, %[[E2:.*]] = %[[IN]]#0 : tensor<4x8xf32>) -> tensor<4x8xf32> {
// CHECK-NEXT:   %[[SB:.*]] = trace.broadcast_in_dim %[[S2]], dims = [0]
// CHECK-NEXT:   %[[D:.*]] = trace.div %[[E2]], %[[SB]]
// CHECK-NEXT:   trace.yield %[[D]]
// CHECK-NEXT: } attributes {trace.fusion_kind = "loop"}
// CHECK-NEXT: return %[[OUT]]
func.func @softmax(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %m = trace.reduce_max %x dims = [1] : tensor<4x8xf32> -> tensor<4xf32>
  %mb = trace.broadcast_in_dim %m, dims = [0] : tensor<4xf32> -> tensor<4x8xf32>
  %s = trace.sub %x, %mb : tensor<4x8xf32>
  %e = trace.exp %s : tensor<4x8xf32>
  %sum = trace.reduce_sum %e dims = [1] : tensor<4x8xf32> -> tensor<4xf32>
  %sb = trace.broadcast_in_dim %sum, dims = [0] : tensor<4xf32> -> tensor<4x8xf32>
  %d = trace.div %e, %sb : tensor<4x8xf32>
  return %d : tensor<4x8xf32>
}

// -----

// The cycle check. %a feeds both the matmul (through %n) and %c, which
// reads the matmul: one region of exp, neg, add and tanh would be both the
// matmul's producer and its consumer. The matmul stays outside; exp and
// neg form one fusion (yielding exp for the add), add and tanh another.
// CHECK-LABEL: func.func @cycle(
// CHECK-SAME: %[[X:.*]]: tensor<4x4xf32>, %[[W:.*]]: tensor<4x4xf32>)
// CHECK-NEXT: %[[F:.*]]:2 = trace.fusion "loop_0" ins(%[[IX:.*]] = %[[X]] : tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>) {
// CHECK-NEXT:   %[[A:.*]] = trace.exp %[[IX]]
// CHECK-NEXT:   %[[N:.*]] = trace.neg %[[A]]
// CHECK-NEXT:   trace.yield %[[A]], %[[N]]
// CHECK-NEXT: } attributes {trace.fusion_kind = "loop"}
// CHECK-NEXT: %[[MM:.*]] = trace.matmul %[[F]]#1, %[[W]]
// CHECK-NEXT: %[[G:.*]] = trace.fusion "loop_1" ins(%[[IA:.*]] = %[[F]]#0 : tensor<4x4xf32>, %[[IM:.*]] = %[[MM]] : tensor<4x4xf32>) -> tensor<4x4xf32> {
// CHECK-NEXT:   %[[C:.*]] = trace.add %[[IA]], %[[IM]]
// CHECK-NEXT:   %[[D:.*]] = trace.tanh %[[C]]
// CHECK-NEXT:   trace.yield %[[D]]
// CHECK-NEXT: } attributes {trace.fusion_kind = "loop"}
// CHECK-NEXT: return %[[G]]
func.func @cycle(%x: tensor<4x4xf32>, %w: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %a = trace.exp %x : tensor<4x4xf32>
  %n = trace.neg %a : tensor<4x4xf32>
  %m = trace.matmul %n, %w : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  %c = trace.add %a, %m : tensor<4x4xf32>
  %d = trace.tanh %c : tensor<4x4xf32>
  return %d : tensor<4x4xf32>
}

// -----

// The cycle check sees a whole fusion as one node. @f and @g below are
// unconnected ops (ops of @f feed the reduction group, which feeds @g), but
// once the group is one op, @f -> group -> @g is a path: the two divides by
// 128 that read one splat constant must not become siblings.
// CHECK-LABEL: func.func @group_cycle(
// CHECK-SAME: %[[X:.*]]: tensor<4xf32>, %[[C:.*]]: tensor<f32>)
// CHECK-NEXT: %[[K:.*]] = trace.full 1.280000e+02 : tensor<f32>
// CHECK-NEXT: %[[F:.*]] = trace.div %[[C]], %[[K]] : tensor<f32>
// CHECK-NEXT: %[[R:.*]]:2 = trace.fusion "input_0" ins(%{{.*}} = %[[X]] : tensor<4xf32>, %{{.*}} = %[[F]] : tensor<f32>) -> (tensor<f32>, tensor<4xf32>) {
// CHECK:      trace.reduce_sum
// CHECK:      trace.mul
// CHECK:      } attributes {trace.fusion_kind = "input"}
// CHECK-NEXT: %[[G:.*]] = trace.div %[[R]]#0, %[[K]] : tensor<f32>
// CHECK-NEXT: return %[[G]], %[[R]]#1
func.func @group_cycle(%x: tensor<4xf32>, %cot: tensor<f32>) -> (tensor<f32>, tensor<4xf32>) {
  %k = trace.full 128.0 : tensor<f32>
  %e = trace.exp %x : tensor<4xf32>
  %s = trace.reduce_sum %e dims = [0] : tensor<4xf32> -> tensor<f32>
  %f = trace.div %cot, %k : tensor<f32>
  %fb = trace.broadcast_in_dim %f, dims = [] : tensor<f32> -> tensor<4xf32>
  %ge = trace.mul %fb, %e : tensor<4xf32>
  %g = trace.div %s, %k : tensor<f32>
  return %g, %ge : tensor<f32>, tensor<4xf32>
}

// -----

// Horizontal fusion: siblings that read the same value and share an
// iteration space. Two elementwise ops become one loop fusion with two
// results; two reductions of the same operand one input fusion.
// CHECK-LABEL: func.func @siblings(
// CHECK-SAME: %[[X:.*]]: tensor<4x8xf32>)
// CHECK-NEXT: %[[L:.*]]:2 = trace.fusion "loop_0" ins(%[[A:.*]] = %[[X]] : tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
// CHECK-NEXT:   %[[E:.*]] = trace.exp %[[A]]
// CHECK-NEXT:   %[[G:.*]] = trace.log %[[A]]
// CHECK-NEXT:   trace.yield %[[E]], %[[G]]
// CHECK-NEXT: } attributes {trace.fusion_kind = "loop"}
// CHECK-NEXT: %[[R:.*]]:2 = trace.fusion "input_1" ins(%[[B:.*]] = %[[X]] : tensor<4x8xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
// CHECK-NEXT:   %[[S:.*]] = trace.reduce_sum %[[B]] dims = [1]
// CHECK-NEXT:   %[[M:.*]] = trace.reduce_max %[[B]] dims = [1]
// CHECK-NEXT:   trace.yield %[[S]], %[[M]]
// CHECK-NEXT: } attributes {trace.fusion_kind = "input"}
// CHECK-NEXT: return %[[L]]#0, %[[L]]#1, %[[R]]#0, %[[R]]#1
func.func @siblings(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4xf32>, tensor<4xf32>) {
  %e = trace.exp %x : tensor<4x8xf32>
  %l = trace.log %x : tensor<4x8xf32>
  %s = trace.reduce_sum %x dims = [1] : tensor<4x8xf32> -> tensor<4xf32>
  %m = trace.reduce_max %x dims = [1] : tensor<4x8xf32> -> tensor<4xf32>
  return %e, %l, %s, %m : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// Reductions of operands with different shapes are no siblings; neither are
// a reduction and a loop op that read one value: two one-reduction
// fusions, the transpose alone.
// CHECK-LABEL: func.func @not_siblings(
// CHECK-NEXT: trace.transpose
// CHECK-NEXT: trace.fusion "input_0"
// CHECK-NEXT:   trace.reduce_sum
// CHECK-NEXT:   trace.yield
// CHECK-NEXT: } attributes {trace.fusion_kind = "input"}
// CHECK-NEXT: trace.fusion "input_1"
// CHECK-NEXT:   trace.reduce_sum
// CHECK-NEXT:   trace.yield
// CHECK-NEXT: } attributes {trace.fusion_kind = "input"}
// CHECK-NEXT: return
func.func @not_siblings(%x: tensor<4x8xf32>, %y: tensor<8x4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4x8xf32>) {
  %yt = trace.transpose %y, perm = [1, 0] : tensor<8x4xf32> -> tensor<4x8xf32>
  %s = trace.reduce_sum %x dims = [1] : tensor<4x8xf32> -> tensor<4xf32>
  %t = trace.reduce_sum %y dims = [0] : tensor<8x4xf32> -> tensor<4xf32>
  return %s, %t, %yt : tensor<4xf32>, tensor<4xf32>, tensor<4x8xf32>
}

// -----

// One iteration space per loop fusion: the exp of the 8-element bias would
// be computed 4 times inside the 32-element fusion, so it stays out. A
// transpose and reshapes keep the element count and are fused.
// CHECK-LABEL: func.func @spaces(
// CHECK-SAME: %[[X:.*]]: tensor<4x8xf32>, %[[B:.*]]: tensor<8xf32>)
// CHECK-NEXT: %[[E:.*]] = trace.exp %[[B]] : tensor<8xf32>
// CHECK-NEXT: %[[F:.*]] = trace.fusion "loop_0" ins(%{{.*}} = %[[E]] : tensor<8xf32>, %{{.*}} = %[[X]] : tensor<4x8xf32>) -> tensor<4x8xf32> {
// CHECK-NEXT:   trace.broadcast_in_dim
// CHECK-NEXT:   trace.add
// CHECK-NEXT:   trace.transpose
// CHECK-NEXT:   trace.reshape
// CHECK-NEXT:   trace.neg
// CHECK-NEXT:   trace.reshape
// CHECK-NEXT:   trace.yield
// CHECK-NEXT: } attributes {trace.fusion_kind = "loop"}
// CHECK-NEXT: return %[[F]]
func.func @spaces(%x: tensor<4x8xf32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
  %e = trace.exp %b : tensor<8xf32>
  %bb = trace.broadcast_in_dim %e, dims = [1] : tensor<8xf32> -> tensor<4x8xf32>
  %a = trace.add %x, %bb : tensor<4x8xf32>
  %t = trace.transpose %a, perm = [1, 0] : tensor<4x8xf32> -> tensor<8x4xf32>
  %r = trace.reshape %t : tensor<8x4xf32> -> tensor<32xf32>
  %n = trace.neg %r : tensor<32xf32>
  %o = trace.reshape %n : tensor<32xf32> -> tensor<4x8xf32>
  return %o : tensor<4x8xf32>
}

// -----

// What stays outside: matmuls (library calls), a transpose only matmuls
// read (read in place), concatenate, iota and random numbers; their
// elementwise neighbours still fuse.
// CHECK-LABEL: func.func @outside(
// CHECK: %[[R:.*]] = trace.random_uniform
// CHECK-NEXT: %[[I:.*]] = trace.iota
// CHECK-NEXT: %[[C:.*]] = trace.concatenate
// CHECK-NEXT: %[[WT:.*]] = trace.transpose
// CHECK-NEXT: %[[MM:.*]] = trace.matmul %[[C]], %[[WT]]
// CHECK-NEXT: trace.fusion "loop_0" ins(%{{.*}} = %[[MM]] : tensor<4x4xf32>, %{{.*}} = %[[R]] : tensor<4x4xf32>, %{{.*}} = %[[I]] : tensor<4x4xf32>) -> tensor<4x4xf32> {
// CHECK-NEXT:   trace.tanh
// CHECK-NEXT:   trace.mul
// CHECK-NEXT:   trace.add
// CHECK-NEXT:   trace.yield
// CHECK-NEXT: } attributes {trace.fusion_kind = "loop"}
// CHECK-NOT: trace.fusion
// CHECK: return
func.func @outside(%x: tensor<4x2xf32>, %w: tensor<4x4xf32>, %seed: tensor<i64>) -> tensor<4x4xf32> {
  %r = trace.random_uniform %seed, offset = 0 : tensor<4x4xf32>
  %i = trace.iota dim = 1 : tensor<4x4xf32>
  %c = trace.concatenate %x, %x dim = 1 : (tensor<4x2xf32>, tensor<4x2xf32>) -> tensor<4x4xf32>
  %wt = trace.transpose %w, perm = [1, 0] : tensor<4x4xf32> -> tensor<4x4xf32>
  %m = trace.matmul %c, %wt : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  %t = trace.tanh %m : tensor<4x4xf32>
  %u = trace.mul %t, %r : tensor<4x4xf32>
  %v = trace.add %u, %i : tensor<4x4xf32>
  return %v : tensor<4x4xf32>
}

// -----

// Checkpoint regions stay; fusions form inside them and outside them,
// never across the boundary.
// CHECK-LABEL: func.func @checkpoint(
// CHECK-NEXT: %[[Y:.*]] = trace.checkpoint "blk" ins(%[[A:.*]] = %{{.*}} : tensor<4xf32>) -> tensor<4xf32> {
// CHECK-NEXT:   %[[IN:.*]] = trace.fusion "loop_1" ins(%[[B:.*]] = %[[A]] : tensor<4xf32>) -> tensor<4xf32> {
// CHECK-NEXT:     trace.exp %[[B]]
// CHECK-NEXT:     trace.tanh
// CHECK-NEXT:     trace.yield
// CHECK-NEXT:   } attributes {trace.fusion_kind = "loop"}
// CHECK-NEXT:   trace.yield %[[IN]]
// CHECK-NEXT: }
// CHECK-NEXT: %[[OUT:.*]] = trace.fusion "loop_0" ins(%[[C:.*]] = %[[Y]] : tensor<4xf32>) -> tensor<4xf32> {
// CHECK-NEXT:   trace.neg %[[C]]
// CHECK-NEXT:   trace.sin
// CHECK-NEXT:   trace.yield
// CHECK-NEXT: } attributes {trace.fusion_kind = "loop"}
// CHECK-NEXT: return %[[OUT]]
func.func @checkpoint(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = trace.checkpoint "blk" ins(%a = %x : tensor<4xf32>) -> tensor<4xf32> {
    %e = trace.exp %a : tensor<4xf32>
    %t = trace.tanh %e : tensor<4xf32>
    trace.yield %t : tensor<4xf32>
  }
  %z = trace.neg %y : tensor<4xf32>
  %w = trace.sin %z : tensor<4xf32>
  return %w : tensor<4xf32>
}

// -----

// A lone elementwise op gets no region: it is one kernel either way. A
// lone reduction does (one kernel instead of fill + reduction). An
// existing fusion is left as it is.
// CHECK-LABEL: func.func @single(
// CHECK-NEXT: trace.exp
// CHECK-NEXT: trace.fusion "input_0"
// CHECK-NEXT:   trace.reduce_sum
// CHECK-NEXT:   trace.yield
// CHECK-NEXT: } attributes {trace.fusion_kind = "input"}
// CHECK-NEXT: trace.fusion "mine"
// CHECK-NEXT:   trace.neg
// CHECK-NEXT:   trace.yield
// CHECK-NEXT: }
// CHECK-NEXT: return
func.func @single(%x: tensor<4xf32>, %y: tensor<4xf32>) -> (tensor<4xf32>, tensor<f32>, tensor<4xf32>) {
  %e = trace.exp %x : tensor<4xf32>
  %s = trace.reduce_sum %y dims = [0] : tensor<4xf32> -> tensor<f32>
  %n = trace.fusion "mine" ins(%a = %e : tensor<4xf32>) -> tensor<4xf32> {
    %b = trace.neg %a : tensor<4xf32>
    trace.yield %b : tensor<4xf32>
  }
  return %e, %s, %n : tensor<4xf32>, tensor<f32>, tensor<4xf32>
}

// -----

// The order is kept where it can be: the fusion of exp and mul sits where
// the mul was, so the matmul reading the exp moves to just after it, and
// the later matmul of arguments only stays after both (a sweep-wise
// topological sort floated it above the first matmul: every op reading
// only arguments rose to the top of the function).
// CHECK-LABEL: func.func @order(
// CHECK-NEXT: %[[F:.*]]:2 = trace.fusion
// CHECK: } attributes {trace.fusion_kind = "loop"}
// CHECK-NEXT: %[[R:.*]] = trace.matmul %[[F]]#{{[01]}}, %arg1
// CHECK-NEXT: %[[T:.*]] = trace.matmul %arg1, %arg1
// CHECK-NEXT: return %[[R]], %[[F]]#{{[01]}}, %[[T]]
func.func @order(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<8x8xf32>) {
  %a = trace.exp %x : tensor<4x8xf32>
  %r = trace.matmul %a, %w : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
  %c = trace.mul %a, %a : tensor<4x8xf32>
  %t = trace.matmul %w, %w : tensor<8x8xf32>, tensor<8x8xf32> -> tensor<8x8xf32>
  return %r, %c, %t : tensor<4x8xf32>, tensor<4x8xf32>, tensor<8x8xf32>
}

// -----

// A broadcast two fusions read is copied into each: both read the 4x1
// operand, and neither yields the 4x8 broadcast (a softmax's row sum in an
// attention backward, read by two fusions, was written out at full size).
// CHECK-LABEL: func.func @broadcast_split
// CHECK-SAME: %[[A:[^:]*]]: tensor<4x8xf32>, %[[S:[^:]*]]: tensor<4x1xf32>
// CHECK: trace.fusion "input_{{.*}}" ins(%[[S1:.*]] = %[[S]] : tensor<4x1xf32>, %{{.*}} = %[[A]] : tensor<4x8xf32>) -> tensor<4xf32>
// CHECK-NEXT: trace.broadcast_in_dim %[[S1]]
// CHECK: trace.matmul
// CHECK: trace.fusion "loop_{{.*}}" ins(%[[S2:.*]] = %[[S]] : tensor<4x1xf32>, %{{.*}}) -> tensor<4x8xf32>
// CHECK-NEXT: trace.broadcast_in_dim %[[S2]]
func.func @broadcast_split(%a: tensor<4x8xf32>, %s: tensor<4x1xf32>, %w: tensor<8x8xf32>) -> (tensor<4xf32>, tensor<4x8xf32>) {
  %b = trace.broadcast_in_dim %s, dims = [0, 1] : tensor<4x1xf32> -> tensor<4x8xf32>
  %x = trace.div %a, %b : tensor<4x8xf32>
  %r = trace.reduce_sum %x dims = [1] : tensor<4x8xf32> -> tensor<4xf32>
  %m = trace.matmul %a, %w : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
  %y = trace.mul %m, %b : tensor<4x8xf32>
  %z = trace.exp %y : tensor<4x8xf32>
  return %r, %z : tensor<4xf32>, tensor<4x8xf32>
}

// -----

// Producer duplication across fusions: GELU's backward reads three products
// of the pre-activation h (h/2, h/sqrt(2), 1 + erf(h/sqrt(2))), each as large
// as h. The later fusion recomputes them from the matmul's output %x and the
// bias instead, so the first fusion yields only what the matmul reads.
// CHECK-LABEL: func.func @duplicated_into_reader
// CHECK-SAME: %[[X:[^:]*]]: tensor<4x8xf32>, %[[BIAS:[^:]*]]: tensor<8xf32>
// CHECK: %[[F:.*]] = trace.fusion "loop_{{.*}}" ins({{.*}}) -> tensor<4x8xf32> {
// CHECK: trace.erf
// CHECK: } attributes
// CHECK: %[[M:.*]] = trace.matmul %[[F]]
// CHECK: trace.fusion "loop_{{.*}}" ins(%{{.*}} = %[[BIAS]] : tensor<8xf32>, %{{.*}} = %[[X]] : tensor<4x8xf32>, %{{.*}} = %[[M]] : tensor<4x8xf32>) -> tensor<4x8xf32> {
// CHECK: trace.erf
// CHECK: } attributes
func.func @duplicated_into_reader(%x: tensor<4x8xf32>, %bias: tensor<8xf32>, %w: tensor<8x8xf32>) -> tensor<4x8xf32> {
  %half = trace.full 0.5 : tensor<4x8xf32>
  %r2 = trace.full 0.707106769 : tensor<4x8xf32>
  %one = trace.full 1.0 : tensor<4x8xf32>
  %bb = trace.broadcast_in_dim %bias, dims = [1] : tensor<8xf32> -> tensor<4x8xf32>
  %h = trace.add %x, %bb : tensor<4x8xf32>
  %a = trace.mul %h, %half : tensor<4x8xf32>
  %b = trace.mul %h, %r2 : tensor<4x8xf32>
  %e = trace.erf %b : tensor<4x8xf32>
  %c = trace.add %e, %one : tensor<4x8xf32>
  %y = trace.mul %a, %c : tensor<4x8xf32>
  %m = trace.matmul %y, %w : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
  %g1 = trace.mul %m, %a : tensor<4x8xf32>
  %g2 = trace.mul %g1, %b : tensor<4x8xf32>
  %g3 = trace.mul %g2, %c : tensor<4x8xf32>
  return %g3 : tensor<4x8xf32>
}

// -----

// Not duplicated: the later fusion would recompute exp from %x, which is as
// large as exp's result (nothing saved, work added).
// CHECK-LABEL: func.func @not_duplicated
// CHECK: %[[F:.*]]:2 = trace.fusion "loop_{{.*}}" ins({{.*}}) -> (tensor<4x8xf32>, tensor<4x8xf32>)
// CHECK: trace.matmul
// CHECK: trace.fusion "loop_{{.*}}" ins(%{{.*}} = %{{.*}} : tensor<4x8xf32>, %{{.*}} = %[[F]]#0 : tensor<4x8xf32>)
// CHECK-NOT: trace.exp
// CHECK: } attributes
func.func @not_duplicated(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>) -> tensor<4x8xf32> {
  %e = trace.exp %x : tensor<4x8xf32>
  %t = trace.tanh %e : tensor<4x8xf32>
  %m = trace.matmul %t, %w : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
  %g = trace.mul %m, %e : tensor<4x8xf32>
  %n = trace.neg %g : tensor<4x8xf32>
  return %n : tensor<4x8xf32>
}
