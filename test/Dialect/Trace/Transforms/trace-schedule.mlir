// trace-schedule: live-range splitting by recomputation and reordering, on
// small functions whose live bytes are worked out by hand (f32; a
// tensor<256xf32> is 1,024 bytes; broadcast_in_dim is a view and allocates
// nothing).
// RUN: trace-opt %s --split-input-file --trace-schedule="reorder=0" | FileCheck %s --check-prefix=SPLIT
// RUN: trace-opt %s --split-input-file --trace-schedule="reorder=0 report" -o /dev/null 2>&1 | FileCheck %s --check-prefix=SREMARK
// RUN: trace-opt %s --split-input-file --trace-schedule="split=0" | FileCheck %s --check-prefix=REORDER
// RUN: trace-opt %s --split-input-file --trace-schedule="split=0 report" -o /dev/null 2>&1 | FileCheck %s --check-prefix=RREMARK
// RUN: trace-opt %s --split-input-file --trace-schedule="max-extra-flops=0 reorder=0 report" -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOFLOPS
// RUN: trace-opt %s --split-input-file --trace-schedule="reorder=0 max-matmul-flops-per-element=16 report" -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOSHORT
// RUN: trace-opt %s --split-input-file --trace-schedule="reorder=0 max-extra-flops=10 report" -o /dev/null 2>&1 | FileCheck %s --check-prefix=LONGMM
// RUN: trace-opt %s --split-input-file --trace-schedule="reorder=0 max-extra-flops=10 max-matmul-flops-per-element=256 report" -o /dev/null 2>&1 | FileCheck %s --check-prefix=LONGMM256
// RUN: trace-opt %s --split-input-file --trace-schedule="reorder=0" --trace-to-linalg="keep-barriers" --cse --trace-erase-barriers | FileCheck %s --check-prefix=BARRIER
// RUN: trace-opt %s --split-input-file --trace-schedule="reorder=0" --trace-to-linalg --cse | FileCheck %s --check-prefix=MERGED

// @recompute: exp(broadcast a) (4,096 bytes) is read before the peak (the
// 16,384-byte product) and after it. Before: at the product, b, c, cs and
// the product are live: 16,384 + 4,096 + 1,024 + 16,384 = 37,888. The split
// drops c after its first reader and recomputes it before the last one;
// that keeps a (1,024) live instead: 34,816, for exp's 1,024 FLOPs.
// SREMARK: remark: trace-schedule @recompute: peak live bytes 37888 -> 34816; 2 ops recomputed again, 1024 FLOPs (11264 before)
// SPLIT-LABEL: func.func @recompute
// SPLIT: %[[AB:.*]] = trace.broadcast_in_dim %arg0
// SPLIT-NEXT: %[[C:.*]] = trace.exp %[[AB]] : tensor<4x256xf32>
// SPLIT-NEXT: trace.reduce_sum %[[C]]
// SPLIT: %[[BIG:.*]] = trace.mul %arg1
// SPLIT-NEXT: %[[S:.*]] = trace.reduce_sum %[[BIG]]
// SPLIT-NEXT: %[[SB:.*]] = trace.broadcast_in_dim %[[S]]
// The recomputation reads a through a barrier, so the CSE after lowering
// (BARRIER below) does not merge it with the first exp again.
// SPLIT-NEXT: %[[A:.*]] = trace.optimization_barrier %arg0
// SPLIT-NEXT: %[[AB2:.*]] = trace.broadcast_in_dim %[[A]], dims = [1] {trace.recomputed}
// SPLIT-NEXT: %[[C2:.*]] = trace.exp %[[AB2]] {trace.recomputed}
// SPLIT-NEXT: trace.mul %[[SB]], %[[C2]]
// BARRIER-LABEL: func.func @recompute
// BARRIER-COUNT-2: math.exp
// BARRIER-NOT: math.exp
// BARRIER-NOT: optimization_barrier
// BARRIER: return
// Without the barrier (trace-to-linalg's default replaces it by its
// operand), CSE merges the two and the split is undone.
// MERGED-LABEL: func.func @recompute
// MERGED-COUNT-1: math.exp
// MERGED-NOT: math.exp
// MERGED: return
// No FLOPs to spend: nothing is recomputed.
// NOFLOPS: remark: trace-schedule @recompute: peak live bytes 37888 -> 37888; 0 ops recomputed again, 0 FLOPs
func.func @recompute(%a: tensor<256xf32>, %b: tensor<16x256xf32>) -> tensor<4x256xf32> {
  %ab = trace.broadcast_in_dim %a, dims = [1] : tensor<256xf32> -> tensor<4x256xf32>
  %c = trace.exp %ab : tensor<4x256xf32>
  %cs = trace.reduce_sum %c dims = [0] : tensor<4x256xf32> -> tensor<256xf32>
  %csb = trace.broadcast_in_dim %cs, dims = [1] : tensor<256xf32> -> tensor<16x256xf32>
  %big = trace.mul %b, %csb : tensor<16x256xf32>
  %s = trace.reduce_sum %big dims = [0] : tensor<16x256xf32> -> tensor<256xf32>
  %sb = trace.broadcast_in_dim %s, dims = [1] : tensor<256xf32> -> tensor<4x256xf32>
  %r = trace.mul %sb, %c : tensor<4x256xf32>
  return %r : tensor<4x256xf32>
}

// -----

// @pinned: the same function with exp marked must_save: nothing to split.
// SREMARK: remark: trace-schedule @pinned: peak live bytes 37888 -> 37888; 0 ops recomputed again, 0 FLOPs
func.func @pinned(%a: tensor<256xf32>, %b: tensor<16x256xf32>) -> tensor<4x256xf32> {
  %ab = trace.broadcast_in_dim %a, dims = [1] : tensor<256xf32> -> tensor<4x256xf32>
  %c = trace.exp %ab {trace.remat = "must_save"} : tensor<4x256xf32>
  %cs = trace.reduce_sum %c dims = [0] : tensor<4x256xf32> -> tensor<256xf32>
  %csb = trace.broadcast_in_dim %cs, dims = [1] : tensor<256xf32> -> tensor<16x256xf32>
  %big = trace.mul %b, %csb : tensor<16x256xf32>
  %s = trace.reduce_sum %big dims = [0] : tensor<16x256xf32> -> tensor<256xf32>
  %sb = trace.broadcast_in_dim %s, dims = [1] : tensor<256xf32> -> tensor<4x256xf32>
  %r = trace.mul %sb, %c : tensor<4x256xf32>
  return %r : tensor<4x256xf32>
}

// -----

// @moved: exp(broadcast a) (4,096 bytes) is read only after the peak, so
// the split moves it there (its original has no reader left and is
// erased, and with it the barrier): no FLOPs added. Before, at the product: b, e and the product,
// 16,384 + 4,096 + 16,384 = 36,864. After: a (1,024) stays live instead of
// e: 33,792.
// SREMARK: remark: trace-schedule @moved: peak live bytes 36864 -> 33792; 0 ops recomputed again, 0 FLOPs
// SPLIT-LABEL: func.func @moved
// SPLIT-NEXT: trace.mul %arg1, %arg1
// SPLIT-NEXT: %[[S:.*]] = trace.reduce_sum
// SPLIT-NEXT: %[[SB:.*]] = trace.broadcast_in_dim %[[S]]
// SPLIT-NEXT: %[[AB:.*]] = trace.broadcast_in_dim %arg0, dims = [1] : tensor<256xf32>
// SPLIT-NEXT: %[[E:.*]] = trace.exp %[[AB]] : tensor<4x256xf32>
// SPLIT-NEXT: trace.add %[[SB]], %[[E]]
func.func @moved(%a: tensor<256xf32>, %b: tensor<16x256xf32>) -> tensor<4x256xf32> {
  %ab = trace.broadcast_in_dim %a, dims = [1] : tensor<256xf32> -> tensor<4x256xf32>
  %e = trace.exp %ab : tensor<4x256xf32>
  %big = trace.mul %b, %b : tensor<16x256xf32>
  %s = trace.reduce_sum %big dims = [0] : tensor<16x256xf32> -> tensor<256xf32>
  %sb = trace.broadcast_in_dim %s, dims = [1] : tensor<256xf32> -> tensor<4x256xf32>
  %r = trace.add %sb, %e : tensor<4x256xf32>
  return %r : tensor<4x256xf32>
}

// -----

// @reorder: exp and neg of a, each summed. In the given order both
// 1,024-byte results and a are live at once (3,072). Running each sum right
// after its operand frees it first: a, exp and the first sum's 4 bytes,
// 2,052 at most.
// RREMARK: remark: trace-schedule @reorder: peak live bytes 3072 -> 2052; 0 ops recomputed again, 0 FLOPs
// REORDER-LABEL: func.func @reorder
// REORDER-NEXT: %[[X:.*]] = trace.exp %arg0
// REORDER-NEXT: trace.reduce_sum %[[X]]
// REORDER-NEXT: %[[Y:.*]] = trace.neg %arg0
// REORDER-NEXT: trace.reduce_sum %[[Y]]
func.func @reorder(%a: tensor<256xf32>) -> (tensor<f32>, tensor<f32>) {
  %x = trace.exp %a : tensor<256xf32>
  %y = trace.neg %a : tensor<256xf32>
  %sx = trace.reduce_sum %x dims = [0] : tensor<256xf32> -> tensor<f32>
  %sy = trace.reduce_sum %y dims = [0] : tensor<256xf32> -> tensor<f32>
  return %sx, %sy : tensor<f32>, tensor<f32>
}

// -----

// @matmul: a matmul with a long contraction (a 16x128 by 128x16 product:
// 256 FLOPs per element, above max-matmul-flops-per-element's 128) is
// never computed twice, however long it lives: the same function as
// @short_matmul below, where the split pays. With FLOPs to spend
// (max-extra-flops=10), it is the matmul limit that says no, and raising
// it to 256 lets the split happen.
// LONGMM: remark: trace-schedule @matmul: peak live bytes 148484 -> 148484; 0 ops recomputed again
// LONGMM256: remark: trace-schedule @matmul: peak live bytes 148484 -> 147460; 1 ops recomputed again, 65536 FLOPs
// SREMARK: remark: trace-schedule @matmul: peak live bytes {{[0-9]+}} -> {{[0-9]+}}; 0 ops recomputed again, 0 FLOPs
// SPLIT-LABEL: func.func @matmul
// SPLIT-COUNT-1: trace.matmul
// SPLIT-NOT: trace.matmul
func.func @matmul(%a: tensor<16x128xf32>, %at: tensor<128x16xf32>, %b: tensor<64x256xf32>) -> (tensor<16x16xf32>, tensor<16x128xf32>, tensor<128x16xf32>) {
  %m = trace.matmul %a, %at : tensor<16x128xf32>, tensor<128x16xf32> -> tensor<16x16xf32>
  %ms = trace.reduce_sum %m dims = [0, 1] : tensor<16x16xf32> -> tensor<f32>
  %msb = trace.broadcast_in_dim %ms, dims = [] : tensor<f32> -> tensor<64x256xf32>
  %big = trace.mul %b, %msb : tensor<64x256xf32>
  %s = trace.reduce_sum %big dims = [0, 1] : tensor<64x256xf32> -> tensor<f32>
  %sb = trace.broadcast_in_dim %s, dims = [] : tensor<f32> -> tensor<16x16xf32>
  %r = trace.mul %sb, %m : tensor<16x16xf32>
  return %r, %a, %at : tensor<16x16xf32>, tensor<16x128xf32>, tensor<128x16xf32>
}

// -----

// @short_matmul: a 16x16 by 16x16 product (32 FLOPs per element;
// attention's scores take 2 x the head dim) that the peak's operand is
// computed from and the last mul reads again: m is dropped after its sum
// and computed again from a (returned, so live anyway), read through a
// barrier, for the last mul.
// SREMARK: remark: trace-schedule @short_matmul: peak live bytes {{[0-9]+}} -> {{[0-9]+}}; 1 ops recomputed again, 8192 FLOPs
// SPLIT-LABEL: func.func @short_matmul
// SPLIT: trace.matmul %arg0, %arg0 :
// SPLIT: %[[A:.*]] = trace.optimization_barrier %arg0
// SPLIT-NEXT: %[[M:.*]] = trace.matmul %[[A]], %[[A]] {trace.recomputed}
// SPLIT-NEXT: trace.mul %{{.*}}, %[[M]]
// Limited to 16 FLOPs per element, it is not recomputed.
// NOSHORT: remark: trace-schedule @short_matmul: peak live bytes {{[0-9]+}} -> {{[0-9]+}}; 0 ops recomputed again
func.func @short_matmul(%a: tensor<16x16xf32>, %b: tensor<64x256xf32>) -> (tensor<16x16xf32>, tensor<16x16xf32>) {
  %m = trace.matmul %a, %a : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
  %ms = trace.reduce_sum %m dims = [0, 1] : tensor<16x16xf32> -> tensor<f32>
  %msb = trace.broadcast_in_dim %ms, dims = [] : tensor<f32> -> tensor<64x256xf32>
  %big = trace.mul %b, %msb : tensor<64x256xf32>
  %s = trace.reduce_sum %big dims = [0, 1] : tensor<64x256xf32> -> tensor<f32>
  %sb = trace.broadcast_in_dim %s, dims = [] : tensor<f32> -> tensor<16x16xf32>
  %r = trace.mul %sb, %m : tensor<16x16xf32>
  return %r, %a : tensor<16x16xf32>, tensor<16x16xf32>
}

// -----

// @in_place: the memory model's in-place writes (tensor<16x16xf32> is
// 1,024 bytes; a is read again at the end). exp reads the argument a,
// which is never overwritten: a + t = 2,048. neg reads t last and writes
// over it, and so does the loop fusion computing exp of u elementwise:
// 2,048 still (3,072 if each allocated before its operand's free), and
// so does f * a.
// INPLACE: remark: trace-schedule @in_place: peak live bytes 2048 -> 2048;
// @transposed: the same, but the fusion reads u through a transpose, so it
// cannot write over u (an element of u is read where another is written):
// a + u + f = 3,072.
// INPLACE: remark: trace-schedule @transposed: peak live bytes 3072 -> 3072;
// RUN: trace-opt %s --split-input-file --trace-schedule="split=0 reorder=0 report" -o /dev/null 2>&1 | FileCheck %s --check-prefix=INPLACE
func.func @in_place(%a: tensor<16x16xf32>) -> tensor<f32> {
  %t = trace.exp %a : tensor<16x16xf32>
  %u = trace.neg %t : tensor<16x16xf32>
  %f = trace.fusion "loop_0" ins(%x = %u : tensor<16x16xf32>) -> tensor<16x16xf32> {
    %y = trace.exp %x : tensor<16x16xf32>
    trace.yield %y : tensor<16x16xf32>
  }
  %m = trace.mul %f, %a : tensor<16x16xf32>
  %r = trace.reduce_sum %m dims = [0, 1] : tensor<16x16xf32> -> tensor<f32>
  return %r : tensor<f32>
}

// -----

func.func @transposed(%a: tensor<16x16xf32>) -> tensor<f32> {
  %t = trace.exp %a : tensor<16x16xf32>
  %u = trace.neg %t : tensor<16x16xf32>
  %f = trace.fusion "loop_0" ins(%x = %u : tensor<16x16xf32>) -> tensor<16x16xf32> {
    %y = trace.transpose %x, perm = [1, 0] : tensor<16x16xf32> -> tensor<16x16xf32>
    %z = trace.exp %y : tensor<16x16xf32>
    trace.yield %z : tensor<16x16xf32>
  }
  %m = trace.mul %f, %a : tensor<16x16xf32>
  %r = trace.reduce_sum %m dims = [0, 1] : tensor<16x16xf32> -> tensor<f32>
  return %r : tensor<f32>
}
