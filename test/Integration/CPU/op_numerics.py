#!/usr/bin/env python3
"""Numerics of one trace op on the CPU backend against PyTorch.

For each case of the op: a one-op trace function is written, inputs are drawn
with a fixed seed (in the op's domain), PyTorch (Debian's python3-torch)
computes the reference, and `trace-run --arg ... --expect ... --rtol --atol`
runs the compiled function and compares. Any mismatch fails the test with
trace-run's message naming the worst element.

    op_numerics.py --op exp --trace-run build/bin/trace-run --workdir /tmp/x

Tolerances: f32 rtol 1e-5 / atol 1e-6 (transcendentals 1e-5 / 1e-5), f64
1e-12, bf16 and f16 1e-2 (one rounding of an 8- or 11-bit mantissa), exact
for integers, booleans, shape ops and the random op.
"""

import argparse
import os
import subprocess
import sys

import numpy as np
import torch

SEED = 20261129

# ----------------------------------------------------------------------------
# Helpers
# ----------------------------------------------------------------------------

MLIR_DTYPE = {torch.float32: "f32", torch.float64: "f64", torch.float16: "f16",
              torch.bfloat16: "bf16", torch.bool: "i1", torch.int32: "i32",
              torch.int64: "i64"}


def ttype(shape, dtype):
    dims = "x".join(str(d) for d in shape)
    return f"tensor<{dims + 'x' if dims else ''}{MLIR_DTYPE[dtype]}>"


def tol(dtype, transcendental=False):
    if dtype in (torch.bfloat16, torch.float16):
        return 1e-2, 1e-2
    if dtype == torch.float64:
        return 1e-12, 1e-12
    if dtype == torch.float32:
        return (1e-5, 1e-5) if transcendental else (1e-5, 1e-6)
    return 0.0, 0.0


def to_numpy(t):
    """bf16 travels as float32 (.npy has no bfloat16); trace-run does the same."""
    if t.dtype == torch.bfloat16:
        t = t.float()
    return t.detach().contiguous().numpy()


def draw(gen, shape, dtype, low=-1.0, high=1.0):
    if dtype == torch.bool:
        return torch.rand(shape, generator=gen) < 0.5
    if dtype in (torch.int32, torch.int64):
        return torch.randint(int(low), int(high), shape, generator=gen).to(dtype)
    x = torch.rand(shape, generator=gen, dtype=torch.float64) * (high - low) + low
    return x.to(dtype)


class Case:
    """A trace function of `args` (name, tensor) with one result."""

    def __init__(self, name, body, args, result, expected, rtol, atol,
                 extra_flags=()):
        self.name, self.body, self.args = name, body, args
        self.result, self.expected = result, expected
        self.rtol, self.atol, self.extra_flags = rtol, atol, extra_flags

    def mlir(self):
        params = ", ".join(f"%{n}: {ttype(t.shape, t.dtype)}" for n, t in self.args)
        return (f"func.func @forward({params}) -> {self.result} {{\n"
                f"{self.body}\n  return %r : {self.result}\n}}\n")


def run_case(case, trace_run, workdir):
    d = os.path.join(workdir, case.name)
    os.makedirs(d, exist_ok=True)
    src = os.path.join(d, "case.mlir")
    with open(src, "w") as f:
        f.write(case.mlir())
    cmd = [trace_run, src, "--quiet", f"--rtol={case.rtol}", f"--atol={case.atol}"]
    for i, (n, t) in enumerate(case.args):
        path = os.path.join(d, f"{n}.npy")
        np.save(path, to_numpy(t))
        cmd.append(f"--arg=arg{i}={path}")
    ref = os.path.join(d, "expected.npy")
    np.save(ref, to_numpy(case.expected))
    cmd.append(f"--expect=result0={ref}")
    cmd += list(case.extra_flags)
    proc = subprocess.run(cmd, capture_output=True, text=True)
    ok = proc.returncode == 0
    print(f"{'PASS' if ok else 'FAIL'}: {case.name}")
    if not ok:
        print("  command: " + " ".join(cmd))
        print("  " + (proc.stderr.strip() or proc.stdout.strip()).replace("\n", "\n  "))
    return ok


# ----------------------------------------------------------------------------
# Cases, per op
# ----------------------------------------------------------------------------

SHAPES = [(7,), (3, 5), (2, 3, 4)]

# trace.convolution cases (shared with grad_numerics.py): name, input shape,
# kernel shape, strides, padding (low, high per spatial dim), lhs_dilation,
# rhs_dilation, groups. They cover stride remainders (the last window
# leaving input unread), negative padding, groups (depthwise, with a
# channel multiplier), input dilation (a transposed convolution), 1-D and
# 3-D, and non-square kernels.
CONV_CASES = [
    ("3x3_pad1", (2, 3, 6, 6), (4, 3, 3, 3), [1, 1], [1, 1, 1, 1], [1, 1], [1, 1], 1),
    ("3x3_stride2_rem", (2, 3, 8, 8), (4, 3, 3, 3), [2, 2], [1, 1, 1, 1], [1, 1], [1, 1], 1),
    ("dilation2", (1, 2, 9, 9), (3, 2, 3, 3), [1, 1], [2, 2, 2, 2], [1, 1], [2, 2], 1),
    ("groups2", (2, 4, 5, 5), (6, 2, 3, 3), [1, 1], [1, 1, 1, 1], [1, 1], [1, 1], 2),
    ("depthwise_stride2", (2, 4, 7, 7), (4, 1, 3, 3), [2, 2], [1, 1, 1, 1], [1, 1], [1, 1], 4),
    ("depthwise_mult2", (1, 3, 6, 6), (6, 1, 3, 3), [1, 1], [0, 0, 0, 0], [1, 1], [1, 1], 3),
    ("1x1_stride2", (2, 3, 7, 7), (5, 3, 1, 1), [2, 2], [0, 0, 0, 0], [1, 1], [1, 1], 1),
    ("7x7_stride2_pad3", (1, 3, 12, 12), (4, 3, 7, 7), [2, 2], [3, 3, 3, 3], [1, 1], [1, 1], 1),
    ("negative_padding", (1, 2, 8, 8), (3, 2, 3, 3), [1, 2], [2, -1, 0, 1], [1, 1], [1, 1], 1),
    ("lhs_dilation", (1, 3, 4, 4), (2, 3, 3, 3), [1, 1], [2, 2, 1, 2], [2, 2], [1, 1], 1),
    ("non_square", (2, 3, 6, 7), (4, 3, 1, 3), [1, 2], [0, 0, 1, 1], [1, 1], [1, 1], 1),
    ("conv1d", (2, 3, 10), (4, 3, 5), [2], [2, 2], [1], [1], 1),
    ("conv1d_groups3_dilation3", (1, 6, 12), (3, 2, 2), [1], [1, 0], [1], [3], 3),
    ("conv3d", (1, 2, 4, 5, 4), (2, 2, 2, 2, 2), [1, 2, 1], [0, 0, 1, 0, 1, 1], [1, 1, 1], [1, 1, 1], 1),
]


def conv_reference(x, w, strides, padding, lhs_dilation, rhs_dilation, groups):
    """trace.convolution in PyTorch: the input dilated (zeros between its
    elements), padded (F.pad crops where a pad is negative), then
    F.conv1d/2d/3d. Differentiable, for grad_numerics.py."""
    import torch.nn.functional as F
    spatial = x.dim() - 2
    if any(d > 1 for d in lhs_dilation):
        size = [(n - 1) * d + 1 for n, d in zip(x.shape[2:], lhs_dilation)]
        dilated = x.new_zeros(tuple(x.shape[:2]) + tuple(size))
        index = (slice(None), slice(None)) + tuple(slice(None, None, d) for d in lhs_dilation)
        dilated[index] = x
        x = dilated
    pads = []
    for d in reversed(range(spatial)):
        pads += [padding[2 * d], padding[2 * d + 1]]
    x = F.pad(x, pads)
    conv = {1: F.conv1d, 2: F.conv2d, 3: F.conv3d}[spatial]
    return conv(x, w, stride=strides, dilation=rhs_dilation, groups=groups)


def conv_body(x_type, w_type, out_type, strides, padding, lhs_dilation,
              rhs_dilation, groups):
    return (f"  %r = trace.convolution %x, %w strides = {strides} padding = {padding} "
            f"lhs_dilation = {lhs_dilation} rhs_dilation = {rhs_dilation} groups = {groups} "
            f": {x_type}, {w_type} -> {out_type}")


def unary_cases(op, fn, gen, dtypes=(torch.float32, torch.bfloat16),
                low=-1.0, high=1.0, transcendental=True):
    cases = []
    for dtype in dtypes:
        for shape in SHAPES:
            x = draw(gen, shape, dtype, low, high)
            t = ttype(shape, dtype)
            expected = fn(x.float()).to(dtype) if dtype in (torch.bfloat16, torch.float16) else fn(x)
            r, a = tol(dtype, transcendental)
            cases.append(Case(f"{op}_{MLIR_DTYPE[dtype]}_{'x'.join(map(str, shape))}",
                              f"  %r = trace.{op} %x : {t}", [("x", x)], t,
                              expected, r, a))
    return cases


def binary_cases(op, fn, gen, dtypes=(torch.float32, torch.bfloat16),
                 lhs_range=(-1.0, 1.0), rhs_range=(-1.0, 1.0),
                 transcendental=False):
    cases = []
    for dtype in dtypes:
        for shape in SHAPES:
            a = draw(gen, shape, dtype, *lhs_range)
            b = draw(gen, shape, dtype, *rhs_range)
            t = ttype(shape, dtype)
            if dtype in (torch.bfloat16, torch.float16):
                expected = fn(a.float(), b.float()).to(dtype)
            else:
                expected = fn(a, b)
            r, atl = tol(dtype, transcendental)
            cases.append(Case(f"{op}_{MLIR_DTYPE[dtype]}_{'x'.join(map(str, shape))}",
                              f"  %r = trace.{op} %a, %b : {t}",
                              [("a", a), ("b", b)], t, expected, r, atl))
    return cases


def philox4x32_10(ctr, key):
    """Random123's Philox4x32-10, written independently of Philox.h."""
    m0, m1, w0, w1 = 0xD2511F53, 0xCD9E8D57, 0x9E3779B9, 0xBB67AE85
    c0, c1, c2, c3 = ctr
    k0, k1 = key
    mask = 0xFFFFFFFF
    for _ in range(10):
        p0, p1 = m0 * c0, m1 * c2
        c0, c1, c2, c3 = ((p1 >> 32) ^ c1 ^ k0) & mask, p1 & mask, \
            ((p0 >> 32) ^ c3 ^ k1) & mask, p0 & mask
        k0, k1 = (k0 + w0) & mask, (k1 + w1) & mask
    return c0, c1, c2, c3


def random_reference(seed, offset, shape, dtype):
    precision = {torch.float32: 24, torch.float16: 11, torch.bfloat16: 8,
                 torch.float64: 32}[dtype]
    n = int(np.prod(shape)) if shape else 1
    out = np.empty(n, dtype=np.float64)
    for i in range(n):
        block = offset + i // 4
        word = philox4x32_10((block & 0xFFFFFFFF, block >> 32, 0, 0),
                             (seed & 0xFFFFFFFF, (seed >> 32) & 0xFFFFFFFF))[i % 4]
        out[i] = (word >> (32 - precision)) * 2.0 ** -precision
    return torch.from_numpy(out.reshape(shape)).to(dtype)


def cases_for(op):
    gen = torch.Generator().manual_seed(SEED + sum(map(ord, op)))
    f32, bf16, f16, f64 = torch.float32, torch.bfloat16, torch.float16, torch.float64
    i32, i64, b1 = torch.int32, torch.int64, torch.bool

    if op == "neg":
        return unary_cases(op, torch.neg, gen, (f32, bf16, i32), transcendental=False) \
            + unary_cases(op, torch.neg, gen, (i64,), -100, 100, transcendental=False)
    if op == "abs":
        return unary_cases(op, torch.abs, gen, (f32, f16, i32), -50, 50, transcendental=False)
    if op in ("exp", "sin", "cos", "tanh", "erf"):
        return unary_cases(op, getattr(torch, op), gen, (f32, bf16, f64), -3.0, 3.0)
    if op == "log":
        return unary_cases(op, torch.log, gen, (f32, bf16, f64), 1e-3, 10.0)
    if op == "sqrt":
        return unary_cases(op, torch.sqrt, gen, (f32, bf16, f64), 0.0, 10.0)
    if op == "rsqrt":
        return unary_cases(op, torch.rsqrt, gen, (f32, bf16, f64), 1e-2, 10.0)
    if op in ("log1p", "expm1"):
        fn = getattr(torch, op)
        cases = unary_cases(op, fn, gen, (f32, bf16, f64),
                            *((-0.9, 10.0) if op == "log1p" else (-3.0, 3.0)))
        # Tiny |x|, where log(1 + x) and exp(x) - 1 lose every digit, and
        # the ends: -1 (log1p), overflow (expm1), infinities.
        for dtype in (f32, f64):
            values = [1e-18, -1e-12, 3e-8, -2e-5, 0.0, -0.0, 0.25, 1e30, float("inf")]
            values += [-1.0] if op == "log1p" else [-40.0, 100.0, 1000.0, float("-inf")]
            x = torch.tensor(values, dtype=dtype)
            r = 1e-13 if dtype == f64 else 2e-7
            cases.append(Case(f"{op}_tiny_and_ends_{MLIR_DTYPE[dtype]}",
                              f"  %r = trace.{op} %x : {ttype(tuple(x.shape), dtype)}",
                              [("x", x)], ttype(tuple(x.shape), dtype), fn(x), r, 0.0))
        return cases
    if op in ("floor", "ceil", "round"):
        # Integral values and exact halves (ties to even for round) among
        # the draws: x * 4 / 2 puts every other value on .0 or .5.
        fn = getattr(torch, op)
        return unary_cases(op, lambda t: fn(t), gen, (f32, f64), -6.0, 6.0,
                           transcendental=False) + [
            Case(f"{op}_halves", f"  %r = trace.{op} %x : {ttype((9,), f32)}",
                 [("x", torch.tensor([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, -0.0, 3.0, -7.25]))],
                 ttype((9,), f32),
                 fn(torch.tensor([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, -0.0, 3.0, -7.25])),
                 0.0, 0.0)]
    if op == "logistic":
        return unary_cases(op, torch.sigmoid, gen, (f32, bf16, f64), -8.0, 8.0)

    if op in ("add", "sub", "mul", "maximum", "minimum"):
        fn = {"add": torch.add, "sub": torch.sub, "mul": torch.mul,
              "maximum": torch.maximum, "minimum": torch.minimum}[op]
        cases = binary_cases(op, fn, gen, (f32, bf16, f64)) \
            + binary_cases(op, fn, gen, (i32, i64), (-50, 50), (-50, 50))
        if op in ("maximum", "minimum"):
            # NaN propagates, as in torch.maximum.
            a = torch.tensor([1.0, float("nan"), -2.0, 0.5])
            b = torch.tensor([float("nan"), 3.0, -1.0, 0.25])
            t = ttype((4,), f32)
            cases.append(Case(f"{op}_nan", f"  %r = trace.{op} %a, %b : {t}",
                              [("a", a), ("b", b)], t, fn(a, b), 0.0, 0.0))
        return cases
    if op == "div":
        return binary_cases(op, torch.div, gen, (f32, bf16, f64), (-1, 1), (0.5, 2.0)) \
            + binary_cases(op, lambda a, b: torch.div(a, b, rounding_mode="trunc"),
                           gen, (i32, i64), (-50, 50), (1, 9)) \
            + binary_cases(op, lambda a, b: torch.div(a, b, rounding_mode="trunc"),
                           gen, (i32,), (-50, 50), (-9, -1))
    if op == "pow":
        return binary_cases(op, torch.pow, gen, (f32, bf16, f64), (0.1, 3.0), (-2.0, 2.0),
                            transcendental=True)

    if op == "compare":
        cases = []
        fns = {"eq": torch.eq, "ne": torch.ne, "lt": torch.lt, "le": torch.le,
               "gt": torch.gt, "ge": torch.ge}
        for dtype in (f32, i32, bf16):
            for direction, fn in fns.items():
                shape = (4, 6)
                a = draw(gen, shape, dtype, -3, 3)
                b = draw(gen, shape, dtype, -3, 3)
                b[0] = a[0]  # some equal elements
                if dtype == f32:
                    a[1, 0] = float("nan")  # ordered compares are false, ne true
                t = ttype(shape, dtype)
                cases.append(Case(f"compare_{direction}_{MLIR_DTYPE[dtype]}",
                                  f"  %r = trace.compare {direction}, %a, %b : {t}",
                                  [("a", a), ("b", b)], ttype(shape, b1), fn(a, b),
                                  0.0, 0.0))
        return cases
    if op == "select":
        cases = []
        for dtype in (f32, i64, bf16):
            shape = (3, 5)
            c = draw(gen, shape, b1)
            a, b = draw(gen, shape, dtype, -9, 9), draw(gen, shape, dtype, -9, 9)
            cases.append(Case(f"select_{MLIR_DTYPE[dtype]}",
                              f"  %r = trace.select %c, %a, %b : {ttype(shape, b1)}, {ttype(shape, dtype)}",
                              [("c", c), ("a", a), ("b", b)], ttype(shape, dtype),
                              torch.where(c, a, b), 0.0, 0.0))
        return cases
    if op == "convert":
        cases = []
        pairs = [(f32, bf16), (f32, f16), (bf16, f32), (f32, f64), (f64, f32),
                 (f32, i32), (i32, f32), (i64, i32), (i32, i64), (f32, b1),
                 (b1, f32), (i32, b1), (b1, i64)]
        for src, dst in pairs:
            shape = (4, 5)
            x = draw(gen, shape, src, -40, 40)
            if src == f32 and dst == b1:
                x[0, :2] = 0.0
            expected = x.to(dst)  # PyTorch: truncation toward zero, x != 0 for bool
            cases.append(Case(f"convert_{MLIR_DTYPE[src]}_to_{MLIR_DTYPE[dst]}",
                              f"  %r = trace.convert %x : {ttype(shape, src)} -> {ttype(shape, dst)}",
                              [("x", x)], ttype(shape, dst), expected, 0.0, 0.0))
        return cases

    if op == "constant":
        x = draw(gen, (2, 3), f32)
        vals = ", ".join(f"[{', '.join(repr(float(v)) for v in row)}]" for row in x)
        t = ttype((2, 3), f32)
        d = torch.zeros((2, 3))
        return [Case("constant_dense", f"  %c = trace.constant dense<[{vals}]> : {t}\n"
                     f"  %r = trace.add %c, %d : {t}", [("d", d)], t, x, 0.0, 0.0)]
    if op == "full":
        cases = []
        for value, dtype in (("2.5", f32), ("-3", i32), ("true", b1), ("0.1", bf16)):
            shape = (3, 4)
            expected = torch.full(shape, True if value == "true" else float(value),
                                  dtype=dtype)
            d = torch.zeros(shape, dtype=dtype)
            t = ttype(shape, dtype)
            body = f"  %c = trace.full {value} : {t}\n"
            body += (f"  %r = trace.select %c, %c, %d : {t}, {t}" if dtype == b1
                     else f"  %r = trace.add %c, %d : {t}")
            cases.append(Case(f"full_{MLIR_DTYPE[dtype]}", body, [("d", d)], t, expected, 0, 0))
        return cases
    if op == "iota":
        cases = []
        for dim, dtype in ((0, i64), (1, f32), (2, i32)):
            shape = (2, 3, 4)
            ref = torch.arange(shape[dim]).reshape([-1 if i == dim else 1 for i in range(3)])
            expected = ref.expand(shape).to(dtype)
            d = torch.zeros(shape, dtype=dtype)
            t = ttype(shape, dtype)
            cases.append(Case(f"iota_dim{dim}_{MLIR_DTYPE[dtype]}",
                              f"  %c = trace.iota dim = {dim} : {t}\n  %r = trace.add %c, %d : {t}",
                              [("d", d)], t, expected, 0.0, 0.0))
        return cases
    if op == "random_uniform":
        cases = []
        for seed, offset, shape, dtype in ((0, 0, (4, 8), f32), (42, 7, (3, 5), f32),
                                           (2**40 + 3, 123, (9,), bf16),
                                           (7, 2**33, (2, 3), f64), (5, 0, (10,), f16)):
            s = torch.tensor(seed, dtype=i64)
            t = ttype(shape, dtype)
            cases.append(Case(f"random_uniform_s{seed}_o{offset}_{MLIR_DTYPE[dtype]}",
                              f"  %r = trace.random_uniform %seed, offset = {offset} : {t}",
                              [("seed", s)], t, random_reference(seed, offset, shape, dtype),
                              0.0, 0.0))
        return cases

    if op == "broadcast_in_dim":
        cases = []
        for src, dims, dst in (((5,), [1], (3, 5)), ((3, 1), [0, 1], (3, 4)),
                               ((), [], (2, 2)), ((4, 1, 2), [0, 2, 3], (4, 3, 5, 2)),
                               ((1, 5), [1, 2], (2, 3, 5))):
            for dtype in (f32, i32):
                x = draw(gen, src, dtype, -9, 9)
                # numpy-style broadcasting reference: put x's dims where dims say.
                view = [1] * len(dst)
                for k, dd in enumerate(dims):
                    view[dd] = src[k]
                expected = x.reshape(view).expand(dst)
                name = "x".join(map(str, src)) or "scalar"
                cases.append(Case(f"broadcast_{name}_to_{'x'.join(map(str, dst))}_{MLIR_DTYPE[dtype]}",
                                  f"  %r = trace.broadcast_in_dim %x, dims = {dims} : {ttype(src, dtype)} -> {ttype(dst, dtype)}",
                                  [("x", x)], ttype(dst, dtype), expected, 0.0, 0.0))
        return cases
    if op == "reshape":
        cases = []
        for src, dst in (((2, 3, 4), (6, 4)), ((6, 4), (2, 12)), ((24,), (2, 3, 4)),
                         ((1,), ()), ((), (1, 1)), ((4, 6), (3, 8))):
            x = draw(gen, src, f32)
            cases.append(Case(f"reshape_{'x'.join(map(str, src)) or 'scalar'}_to_{'x'.join(map(str, dst)) or 'scalar'}",
                              f"  %r = trace.reshape %x : {ttype(src, f32)} -> {ttype(dst, f32)}",
                              [("x", x)], ttype(dst, f32), x.reshape(dst), 0.0, 0.0))
        return cases
    if op == "transpose":
        cases = []
        for shape, perm in (((3, 5), [1, 0]), ((2, 3, 4), [2, 0, 1]),
                            ((2, 3, 4, 5), [0, 2, 1, 3])):
            x = draw(gen, shape, f32)
            out = tuple(shape[p] for p in perm)
            cases.append(Case(f"transpose_{'_'.join(map(str, perm))}",
                              f"  %r = trace.transpose %x, perm = {perm} : {ttype(shape, f32)} -> {ttype(out, f32)}",
                              [("x", x)], ttype(out, f32), x.permute(perm), 0.0, 0.0))
        return cases
    if op == "slice":
        cases = []
        for shape, ranges in (((8, 6), [(0, 4, 1), (1, 6, 2)]),
                              ((5, 4, 3), [(1, 5, 3), (0, 4, 1), (2, 3, 1)]),
                              ((9,), [(2, 9, 4)])):
            x = draw(gen, shape, f32)
            idx = tuple(slice(s, l, st) for s, l, st in ranges)
            expected = x[idx]
            spec = ", ".join(f"{s}:{l}" + (f":{st}" if st != 1 else "") for s, l, st in ranges)
            cases.append(Case(f"slice_{'x'.join(map(str, shape))}",
                              f"  %r = trace.slice %x [{spec}] : {ttype(shape, f32)} -> {ttype(tuple(expected.shape), f32)}",
                              [("x", x)], ttype(tuple(expected.shape), f32), expected, 0.0, 0.0))
        return cases
    if op == "concatenate":
        cases = []
        for dim in (0, 1):
            shapes = [(2, 3), (2, 3), (2, 3)]
            shapes = [tuple(s[i] + (k if i == dim else 0) for i in range(2)) for k, s in enumerate(shapes)]
            xs = [draw(gen, s, f32) for s in shapes]
            expected = torch.cat(xs, dim)
            ins = ", ".join(f"%x{k}" for k in range(3))
            tys = ", ".join(ttype(s, f32) for s in shapes)
            cases.append(Case(f"concatenate_dim{dim}",
                              f"  %r = trace.concatenate {ins} dim = {dim} : ({tys}) -> {ttype(tuple(expected.shape), f32)}",
                              [(f"x{k}", x) for k, x in enumerate(xs)],
                              ttype(tuple(expected.shape), f32), expected, 0.0, 0.0))
        return cases

    if op in ("reduce_sum", "reduce_max"):
        cases = []
        for shape, dims, keepdim in (((4, 6), [1], False), ((4, 6), [0], True),
                                     ((2, 3, 4), [0, 2], False), ((2, 3, 4), [1], True),
                                     ((3, 5), [0, 1], False), ((2, 3, 4, 5), [3, 1], True),
                                     # Rows of a vector register or more
                                     # (trace-vectorize-reductions): with a
                                     # remainder, whole, and 0-d out.
                                     ((3, 5, 40), [2], False), ((4, 2, 16), [1, 2], True),
                                     ((2, 100), [0, 1], False)):
            for dtype in ((f32, i32, bf16) if op == "reduce_max" else (f32, i64, f64, bf16)):
                x = draw(gen, shape, dtype, -9, 9)
                if op == "reduce_max" and dtype == f32 and shape == (3, 5, 40):
                    x[1, 2, 37] = float("nan")  # max propagates NaN, as amax
                    x[2, 0, 5] = float("nan")
                if op == "reduce_sum":
                    expected = (x.float() if dtype == bf16 else x).sum(dim=dims, keepdim=keepdim).to(dtype)
                else:
                    expected = torch.amax(x, dim=dims, keepdim=keepdim)
                kd = " keepdim" if keepdim else ""
                r, a = tol(dtype)
                cases.append(Case(f"{op}_{'x'.join(map(str, shape))}_dims{'_'.join(map(str, dims))}{'_keep' if keepdim else ''}_{MLIR_DTYPE[dtype]}",
                                  f"  %r = trace.{op} %x dims = {dims}{kd} : {ttype(shape, dtype)} -> {ttype(tuple(expected.shape), dtype)}",
                                  [("x", x)], ttype(tuple(expected.shape), dtype), expected,
                                  r, max(a, 1e-5)))
        return cases

    if op == "matmul":
        cases = []
        for lhs, rhs in (((5, 7), (7, 3)), ((2, 4, 6), (2, 6, 5)),
                         ((2, 3, 4, 6), (2, 3, 6, 2)), ((1, 1), (1, 1)), ((64, 96), (96, 80))):
            for dtype in (f32, f64, bf16):
                a, b = draw(gen, lhs, dtype), draw(gen, rhs, dtype)
                expected = (a.float() @ b.float()).to(dtype) if dtype == bf16 else a @ b
                r, atl = tol(dtype)
                if dtype == f32:
                    r, atl = 1e-5, 1e-5  # summation order differs from PyTorch's
                if dtype == bf16:
                    r, atl = 1e-2, 2e-2  # f32 accumulation, one rounding to bf16
                out = tuple(expected.shape)
                for flags in ((), ("--no-blas",)) if dtype == f32 else ((),):
                    tag = "_loops" if flags else ""
                    cases.append(Case(f"matmul_{'x'.join(map(str, lhs))}_{'x'.join(map(str, rhs))}_{MLIR_DTYPE[dtype]}{tag}",
                                      f"  %r = trace.matmul %a, %b : {ttype(lhs, dtype)}, {ttype(rhs, dtype)} -> {ttype(out, dtype)}",
                                      [("a", a), ("b", b)], ttype(out, dtype), expected, r, atl,
                                      extra_flags=flags))
        return cases

    if op == "convolution":
        cases = []
        for name, xs, ws, *attrs in CONV_CASES:
            for dtype in ((f32, f64, bf16) if name == "3x3_stride2_rem" else (f32,)):
                x, w = draw(gen, xs, dtype), draw(gen, ws, dtype)
                if dtype == bf16:
                    expected = conv_reference(x.float(), w.float(), *attrs).to(bf16)
                    r, atl = 1e-2, 2e-2  # f32 accumulation, one rounding to bf16
                else:
                    expected = conv_reference(x, w, *attrs)
                    r, atl = (1e-5, 1e-5) if dtype == f32 else tol(dtype)
                out = ttype(tuple(expected.shape), dtype)
                # Both lowerings (trace-to-linalg's convolutions option).
                for mode in ("direct", "im2col"):
                    cases.append(Case(f"convolution_{name}_{MLIR_DTYPE[dtype]}_{mode}",
                                      conv_body(ttype(xs, dtype), ttype(ws, dtype), out, *attrs),
                                      [("x", x), ("w", w)], out, expected, r, atl,
                                      extra_flags=(f"--convolutions={mode}",)))
        return cases
    if op == "reverse":
        cases = []
        for shape, dims in (((7,), [0]), ((3, 5), [1]), ((2, 3, 4, 5), [2, 3]),
                            ((2, 1, 4), [0, 1, 2])):
            x = draw(gen, shape, f32)
            cases.append(Case(f"reverse_{'x'.join(map(str, shape))}_dims{'_'.join(map(str, dims))}",
                              f"  %r = trace.reverse %x dims = {dims} : {ttype(shape, f32)}",
                              [("x", x)], ttype(shape, f32), torch.flip(x, dims), 0.0, 0.0))
        return cases

    if op == "gather":
        # (operand shape, dim, indices shape, low, high, dtypes): indices
        # smaller than the operand off `dim`, repeated, and out of range
        # (clamped into it, as XLA's gather; torch would raise).
        cases = []
        for shape, dim, ishape, low, high, itype in (
                ((10, 4), 0, (3, 4), 0, 10, i64), ((5, 7), 1, (5, 3), 0, 7, i32),
                ((4, 6, 5), 1, (2, 9, 3), 0, 6, i64), ((6,), 0, (8,), -3, 9, i64)):
            for dtype in (f32, f64, i64) if dim == 0 and len(shape) == 2 else (f32,):
                x = draw(gen, shape, dtype, -100, 100)
                idx = draw(gen, ishape, itype, low, high)
                clamped = idx.clamp(0, shape[dim] - 1).long()
                expected = torch.gather(x, dim, clamped)
                name = f"gather_{'x'.join(map(str, shape))}_dim{dim}_{MLIR_DTYPE[itype]}_{MLIR_DTYPE[dtype]}"
                if low < 0:
                    name += "_clamped"
                out = ttype(ishape, dtype)
                for flags in ((), ("--gpu-kernels",)):
                    cases.append(Case(name + ("_gpu_kernels" if flags else ""),
                                      f"  %r = trace.gather %x[%i] dim = {dim} : {ttype(shape, dtype)}, {ttype(ishape, itype)} -> {out}",
                                      [("x", x), ("i", idx)], out, expected, 0.0, 0.0,
                                      extra_flags=flags))
        return cases
    if op == "scatter_add":
        # Repeated indices sum; the indices may be smaller than the base off
        # `dim`; an update whose index is out of range is dropped. Both
        # lowerings: loops (the CPU's) and dense (the GPU kernels').
        cases = []
        for shape, dim, ishape, low, high, itype in (
                ((10, 4), 0, (6, 4), 0, 4, i64), ((4, 6), 1, (3, 8), 0, 6, i32),
                ((3, 5, 4), 2, (3, 2, 7), 0, 4, i64), ((7,), 0, (9,), -2, 10, i64)):
            for dtype in (f32, f64, i64) if dim == 0 and len(shape) == 2 else (f32,):
                base = draw(gen, shape, dtype, -100, 100)
                upd = draw(gen, ishape, dtype, -100, 100)
                idx = draw(gen, ishape, itype, low, high)
                valid = (idx >= 0) & (idx < shape[dim])
                kept = torch.where(valid, upd, torch.zeros_like(upd))
                expected = base.scatter_add(dim, torch.where(valid, idx, 0).long(), kept)
                r, atl = (0.0, 0.0) if dtype == i64 else tol(dtype)
                name = f"scatter_add_{'x'.join(map(str, shape))}_dim{dim}_{MLIR_DTYPE[itype]}_{MLIR_DTYPE[dtype]}"
                if low < 0:
                    name += "_dropped"
                for flags in ((), ("--gpu-kernels",)):
                    cases.append(Case(name + ("_gpu_kernels" if flags else ""),
                                      f"  %r = trace.scatter_add %u into %b[%i] dim = {dim} : {ttype(ishape, dtype)}, {ttype(ishape, itype)} -> {ttype(shape, dtype)}",
                                      [("b", base), ("i", idx), ("u", upd)], ttype(shape, dtype),
                                      expected, r, atl, extra_flags=flags))
        return cases

    raise SystemExit(f"unknown op {op}")


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--op", required=True)
    parser.add_argument("--trace-run", required=True)
    parser.add_argument("--workdir", required=True)
    args = parser.parse_args()
    torch.manual_seed(SEED)
    cases = cases_for(args.op)
    results = [run_case(c, args.trace_run, args.workdir) for c in cases]
    passed = sum(results)
    print(f"{args.op}: {passed} of {len(results)} cases match PyTorch")
    sys.exit(0 if passed == len(results) else 1)


if __name__ == "__main__":
    main()
