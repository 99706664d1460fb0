#!/usr/bin/env python3
"""Gradients of one trace op (its VJP rule) on the CPU backend against PyTorch.

For each case of the op: a small trace function @forward is written, inputs
are drawn with a fixed seed (in the op's domain, away from kinks and ties
except in the cases that test them), `trace-opt --trace-autodiff` adds
@forward_grad, and `trace-run --entry=forward_grad` runs it on the inputs and
a random cotangent. Its results are @forward's result (`result0`) and the
gradient of each float argument (`grad.arg<i>`, the names the pass gives);
each is compared with torch.autograd.grad(out, inputs, cotangent).

    grad_numerics.py --op exp --trace-opt build/bin/trace-opt \
        --trace-run build/bin/trace-run --workdir /tmp/x

Tolerances: f32 rtol 1e-5 / atol 1e-6 (1e-4 / 1e-5 for transcendental ops,
whose f32 lowering is a polynomial approximation, and for matmul, whose
summation order differs from PyTorch's); f64 1e-10.
"""

import argparse
import os
import subprocess
import sys

import numpy as np
import torch

SEED = 20261203

# The IR and input helpers are op_numerics.py's, shared (same directory).
from op_numerics import (CONV_CASES, MLIR_DTYPE, conv_body,  # noqa: E402
                         conv_reference, draw, ttype)

F32, F64 = torch.float32, torch.float64
TRANSCENDENTAL = {"exp", "log", "sin", "cos", "tanh", "sqrt", "rsqrt", "erf",
                  "logistic", "pow", "matmul", "convolution", "log1p", "expm1"}


def shape_name(shape):
    return "x".join(map(str, shape)) or "scalar"


def tol(dtype, transcendental):
    if dtype == F64:
        return 1e-10, 1e-10
    return (1e-4, 1e-5) if transcendental else (1e-5, 1e-6)


def draw_away_from_zero(gen, shape, dtype, low, high):
    """|x| in [low, high] with a random sign (abs away from its kink)."""
    sign = torch.where(torch.rand(shape, generator=gen) < 0.5, -1.0, 1.0)
    return (draw(gen, shape, F64, low, high) * sign).to(dtype)


class Case:
    """@forward(args) -> %r; `fn` is the same function in PyTorch."""

    def __init__(self, name, body, args, fn, rtol, atol, flags=()):
        self.name, self.body, self.args, self.fn = name, body, args, fn
        self.rtol, self.atol, self.flags = rtol, atol, flags

    def reference(self, gen):
        inputs = [t.clone().requires_grad_(t.is_floating_point()) for _, t in self.args]
        out = self.fn(*inputs)
        cot = draw(gen, tuple(out.shape), out.dtype)
        diff = [t for t in inputs if t.requires_grad]
        grads = torch.autograd.grad(out, diff, cot, allow_unused=True)
        grads = [torch.zeros_like(t) if g is None else g for t, g in zip(diff, grads)]
        names = [f"grad.arg{i}" for i, (_, t) in enumerate(self.args)
                 if t.is_floating_point()]
        return out.detach(), cot, list(zip(names, grads))

    def mlir(self, result_type):
        params = ", ".join(f"%{n}: {ttype(tuple(t.shape), t.dtype)}" for n, t in self.args)
        return (f"func.func @forward({params}) -> {result_type} {{\n"
                f"{self.body}\n  return %r : {result_type}\n}}\n")


def run_case(case, gen, trace_opt, trace_run, workdir):
    d = os.path.join(workdir, case.name)
    os.makedirs(d, exist_ok=True)
    out, cot, grads = case.reference(gen)
    src, grad_src = os.path.join(d, "case.mlir"), os.path.join(d, "grad.mlir")
    with open(src, "w") as f:
        f.write(case.mlir(ttype(tuple(out.shape), out.dtype)))

    def report(ok, cmd, proc):
        print(f"{'PASS' if ok else 'FAIL'}: {case.name}")
        if not ok:
            print("  command: " + " ".join(cmd))
            print("  " + (proc.stderr.strip() or proc.stdout.strip()).replace("\n", "\n  "))
        return ok

    cmd = [trace_opt, "--trace-autodiff", src, "-o", grad_src]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        return report(False, cmd, proc)

    def save(name, t):
        path = os.path.join(d, f"{name}.npy")
        np.save(path, t.detach().contiguous().numpy())
        return path

    cmd = [trace_run, grad_src, "--entry=forward_grad", "--quiet",
           f"--rtol={case.rtol}", f"--atol={case.atol}"]
    for i, (n, t) in enumerate(case.args):
        cmd.append(f"--arg=arg{i}={save(n, t)}")
    cmd.append(f"--arg=cot.result0={save('cot', cot)}")
    cmd += list(case.flags)
    cmd.append(f"--expect=result0={save('expected_result0', out)}")
    for name, g in grads:
        cmd.append(f"--expect={name}={save('expected_' + name, g)}")
    proc = subprocess.run(cmd, capture_output=True, text=True)
    return report(proc.returncode == 0, cmd, proc)


# ----------------------------------------------------------------------------
# Cases, per op
# ----------------------------------------------------------------------------

SHAPES = [(7,), (3, 5), (2, 3, 4)]
DTYPES = (F32, F64)

UNARY = {
    # op: (torch fn, input range, transcendental)
    "neg": (torch.neg, (-3.0, 3.0), False),
    "exp": (torch.exp, (-3.0, 3.0), True),
    "log": (torch.log, (1e-2, 10.0), True),
    "sin": (torch.sin, (-3.0, 3.0), True),
    "cos": (torch.cos, (-3.0, 3.0), True),
    "tanh": (torch.tanh, (-3.0, 3.0), True),
    "sqrt": (torch.sqrt, (1e-2, 10.0), True),
    "rsqrt": (torch.rsqrt, (1e-1, 10.0), True),
    "erf": (torch.erf, (-3.0, 3.0), True),
    "logistic": (torch.sigmoid, (-8.0, 8.0), True),
    "log1p": (torch.log1p, (-0.9, 10.0), True),
    "expm1": (torch.expm1, (-3.0, 3.0), True),
    # Piecewise constant: the gradient is zero, as torch's.
    "floor": (torch.floor, (-4.0, 4.0), False),
    "ceil": (torch.ceil, (-4.0, 4.0), False),
    "round": (torch.round, (-4.0, 4.0), False),
}

BINARY = {
    # op: (torch fn, lhs range, rhs range)
    "add": (torch.add, (-1, 1), (-1, 1)),
    "sub": (torch.sub, (-1, 1), (-1, 1)),
    "mul": (torch.mul, (-1, 1), (-1, 1)),
    "div": (torch.div, (-1, 1), (0.5, 2.0)),
    "pow": (torch.pow, (0.1, 3.0), (-2.0, 2.0)),
    "maximum": (torch.maximum, (-1, 1), (-1, 1)),
    "minimum": (torch.minimum, (-1, 1), (-1, 1)),
}


def unary_case(op, x, rtol_atol, suffix=""):
    t = ttype(tuple(x.shape), x.dtype)
    fn = torch.abs if op == "abs" else UNARY[op][0]
    return Case(f"{op}_{MLIR_DTYPE[x.dtype]}_{shape_name(x.shape)}{suffix}",
                f"  %r = trace.{op} %x : {t}", [("x", x)], fn, *rtol_atol)


def binary_case(op, a, b, rtol_atol, suffix=""):
    t = ttype(tuple(a.shape), a.dtype)
    return Case(f"{op}_{MLIR_DTYPE[a.dtype]}_{shape_name(a.shape)}{suffix}",
                f"  %r = trace.{op} %a, %b : {t}", [("a", a), ("b", b)],
                BINARY[op][0], *rtol_atol)


def cases_for(op, gen):
    transcendental = op in TRANSCENDENTAL
    if op in UNARY:
        fn, (low, high), _ = UNARY[op]
        return [unary_case(op, draw(gen, s, dt, low, high), tol(dt, transcendental))
                for dt in DTYPES for s in SHAPES]
    if op == "abs":
        cases = [unary_case(op, draw_away_from_zero(gen, s, dt, 0.1, 50.0), tol(dt, False))
                 for dt in DTYPES for s in SHAPES]
        # The kink: torch's sgn(0) = 0, so zeros get no gradient.
        x = torch.tensor([0.0, -0.0, 1.5, -2.0, 0.0])
        return cases + [unary_case(op, x, tol(F32, False), "_zeros")]

    if op in BINARY:
        fn, lhs, rhs = BINARY[op]
        cases = []
        for dt in DTYPES:
            for s in SHAPES:
                cases.append(binary_case(op, draw(gen, s, dt, *lhs), draw(gen, s, dt, *rhs),
                                         tol(dt, transcendental)))
            # An operand broadcast along a new dim: its gradient is summed.
            a, b = draw(gen, (3, 5), dt, *lhs), draw(gen, (5,), dt, *rhs)
            cases.append(Case(f"{op}_{MLIR_DTYPE[dt]}_rhs_broadcast",
                              f"  %bb = trace.broadcast_in_dim %b, dims = [1] : {ttype((5,), dt)} -> {ttype((3, 5), dt)}\n"
                              f"  %r = trace.{op} %a, %bb : {ttype((3, 5), dt)}",
                              [("a", a), ("b", b)], fn, *tol(dt, transcendental)))
            # One value as both operands: the two cotangents are added.
            a = draw(gen, (4, 3), dt, *lhs)
            cases.append(Case(f"{op}_{MLIR_DTYPE[dt]}_same_operand",
                              f"  %r = trace.{op} %a, %a : {ttype((4, 3), dt)}",
                              [("a", a)], lambda x: fn(x, x), *tol(dt, transcendental)))
        if op == "pow":
            # torch's conventions at zero: d/da is 0 where b == 0; d/db is 0
            # where a == 0 and b >= 0.
            a = torch.tensor([0.0, 0.0, 2.0, 1.5, 0.0], dtype=F64)
            b = torch.tensor([2.0, 0.0, 0.0, 1.0, 1.0], dtype=F64)
            cases.append(binary_case(op, a, b, tol(F64, True), "_zeros"))
        if op in ("maximum", "minimum"):
            # Ties split the gradient in halves; a NaN gives both operands g.
            a = torch.tensor([1.0, 2.0, -3.0, 0.5, float("nan"), 4.0])
            b = torch.tensor([1.0, 1.0, -3.0, 0.75, 2.0, float("nan")])
            cases.append(binary_case(op, a, b, (0.0, 0.0), "_ties_nan"))
            a = draw(gen, (3, 4), F64, -2, 2)
            b = a.clone()
            b[0] = draw(gen, (4,), F64, -2, 2)
            cases.append(binary_case(op, a, b, tol(F64, False), "_ties"))
        return cases

    if op == "select":
        cases = []
        for dt in DTYPES:
            for s in ((7,), (3, 5)):
                c = draw(gen, s, torch.bool)
                a, b = draw(gen, s, dt), draw(gen, s, dt)
                cases.append(Case(f"select_{MLIR_DTYPE[dt]}_{shape_name(s)}",
                                  f"  %r = trace.select %c, %a, %b : {ttype(s, torch.bool)}, {ttype(s, dt)}",
                                  [("c", c), ("a", a), ("b", b)], torch.where, *tol(dt, False)))
        return cases
    if op == "convert":
        cases = []
        for src, dst in ((F32, F64), (F64, F32)):
            x = draw(gen, (4, 5), src, -4, 4)
            cases.append(Case(f"convert_{MLIR_DTYPE[src]}_to_{MLIR_DTYPE[dst]}",
                              f"  %r = trace.convert %x : {ttype((4, 5), src)} -> {ttype((4, 5), dst)}",
                              [("x", x)], lambda t, dst=dst: t.to(dst), *tol(F32, False)))
        # From an integer: no gradient flows into the i32 argument.
        i, x = draw(gen, (4, 5), torch.int32, -9, 9), draw(gen, (4, 5), F32)
        cases.append(Case("convert_i32_to_f32",
                          f"  %c = trace.convert %i : {ttype((4, 5), torch.int32)} -> {ttype((4, 5), F32)}\n"
                          f"  %r = trace.mul %c, %x : {ttype((4, 5), F32)}",
                          [("i", i), ("x", x)], lambda i, x: i.to(F32) * x, *tol(F32, False)))
        # To an integer and back: the round trip passes no gradient (x gets zeros).
        x, y = draw(gen, (6,), F32, -9, 9), draw(gen, (6,), F32)
        cases.append(Case("convert_f32_to_i32",
                          f"  %i = trace.convert %x : {ttype((6,), F32)} -> {ttype((6,), torch.int32)}\n"
                          f"  %c = trace.convert %i : {ttype((6,), torch.int32)} -> {ttype((6,), F32)}\n"
                          f"  %r = trace.mul %c, %y : {ttype((6,), F32)}",
                          [("x", x), ("y", y)],
                          lambda x, y: x.detach().to(torch.int32).to(F32) * y, *tol(F32, False)))
        return cases

    if op == "broadcast_in_dim":
        cases = []
        for src, dims, dst in (((5,), [1], (3, 5)), ((3, 1), [0, 1], (3, 4)),
                               ((), [], (2, 2)), ((4, 1, 2), [0, 2, 3], (4, 3, 5, 2)),
                               ((1, 5), [1, 2], (2, 3, 5)), ((1,), [1], (3, 1)),
                               ((2, 3), [0, 1], (2, 3))):
            for dt in DTYPES:
                x = draw(gen, src, dt)
                view = [1] * len(dst)
                for k, dd in enumerate(dims):
                    view[dd] = src[k]
                cases.append(Case(f"broadcast_{shape_name(src)}_to_{shape_name(dst)}_{MLIR_DTYPE[dt]}",
                                  f"  %r = trace.broadcast_in_dim %x, dims = {dims} : {ttype(src, dt)} -> {ttype(dst, dt)}",
                                  [("x", x)], lambda t, view=view, dst=dst: t.reshape(view).expand(dst),
                                  *tol(dt, False)))
        return cases
    if op == "reshape":
        cases = []
        for src, dst in (((2, 3, 4), (6, 4)), ((24,), (2, 3, 4)), ((1,), ()), ((4, 6), (3, 8))):
            x = draw(gen, src, F32)
            cases.append(Case(f"reshape_{shape_name(src)}_to_{shape_name(dst)}",
                              f"  %r = trace.reshape %x : {ttype(src, F32)} -> {ttype(dst, F32)}",
                              [("x", x)], lambda t, dst=dst: t.reshape(dst), *tol(F32, False)))
        return cases
    if op == "transpose":
        cases = []
        for shape, perm in (((3, 5), [1, 0]), ((2, 3, 4), [2, 0, 1]),
                            ((2, 3, 4, 5), [0, 3, 1, 2])):
            for dt in DTYPES:
                x = draw(gen, shape, dt)
                out = tuple(shape[p] for p in perm)
                cases.append(Case(f"transpose_{'_'.join(map(str, perm))}_{MLIR_DTYPE[dt]}",
                                  f"  %r = trace.transpose %x, perm = {perm} : {ttype(shape, dt)} -> {ttype(out, dt)}",
                                  [("x", x)], lambda t, perm=perm: t.permute(perm), *tol(dt, False)))
        return cases
    if op == "slice":
        cases = []
        for k, (shape, ranges) in enumerate((
                ((8, 6), [(0, 4, 1), (1, 6, 2)]),
                ((5, 4, 3), [(1, 5, 3), (0, 4, 1), (2, 3, 1)]),
                ((9,), [(2, 9, 4)]), ((7,), [(1, 2, 3)]), ((10,), [(0, 10, 3)]),
                ((6, 7), [(1, 6, 2), (0, 7, 3)]), ((4, 5), [(0, 4, 1), (0, 5, 1)]))):
            for dt in DTYPES:
                x = draw(gen, shape, dt)
                idx = tuple(slice(s, l, st) for s, l, st in ranges)
                out = tuple(x[idx].shape)
                spec = ", ".join(f"{s}:{l}" + (f":{st}" if st != 1 else "") for s, l, st in ranges)
                cases.append(Case(f"slice{k}_{shape_name(shape)}_{MLIR_DTYPE[dt]}",
                                  f"  %r = trace.slice %x [{spec}] : {ttype(shape, dt)} -> {ttype(out, dt)}",
                                  [("x", x)], lambda t, idx=idx: t[idx], *tol(dt, False)))
        return cases
    if op == "concatenate":
        cases = []
        for dim, shapes in ((0, [(2, 3), (3, 3), (1, 3)]), (1, [(2, 3), (2, 1), (2, 4)]),
                            (2, [(2, 2, 3), (2, 2, 5)])):
            for dt in DTYPES:
                xs = [draw(gen, s, dt) for s in shapes]
                out = tuple(torch.cat(xs, dim).shape)
                ins = ", ".join(f"%x{k}" for k in range(len(xs)))
                tys = ", ".join(ttype(s, dt) for s in shapes)
                cases.append(Case(f"concatenate_dim{dim}_{MLIR_DTYPE[dt]}",
                                  f"  %r = trace.concatenate {ins} dim = {dim} : ({tys}) -> {ttype(out, dt)}",
                                  [(f"x{k}", x) for k, x in enumerate(xs)],
                                  lambda *t, dim=dim: torch.cat(t, dim), *tol(dt, False)))
        return cases

    if op in ("reduce_sum", "reduce_max"):
        cases = []
        fn = torch.sum if op == "reduce_sum" else torch.amax
        specs = [((4, 6), [1], False), ((4, 6), [0], True), ((2, 3, 4), [0, 2], False),
                 ((2, 3, 4), [1], True), ((3, 5), [0, 1], False), ((2, 3, 4, 5), [3, 1], True),
                 ((2, 3, 4), [0, 1], False)]
        for shape, dims, keepdim in specs:
            for dt in DTYPES:
                x = draw(gen, shape, dt, -9, 9)
                out = tuple(fn(x, dim=dims, keepdim=keepdim).shape)
                kd = " keepdim" if keepdim else ""
                cases.append(Case(f"{op}_{shape_name(shape)}_dims{'_'.join(map(str, dims))}{'_keep' if keepdim else ''}_{MLIR_DTYPE[dt]}",
                                  f"  %r = trace.{op} %x dims = {dims}{kd} : {ttype(shape, dt)} -> {ttype(out, dt)}",
                                  [("x", x)], lambda t, dims=dims, keepdim=keepdim: fn(t, dim=dims, keepdim=keepdim),
                                  *tol(dt, False)))
        if op == "reduce_max":
            # Ties: the gradient is shared evenly among the maximal elements.
            for shape, dims, keepdim in (((4, 6), [1], False), ((2, 3, 4), [0, 2], True)):
                x = draw(gen, shape, torch.int32, 0, 3).to(F32)
                out = tuple(torch.amax(x, dim=dims, keepdim=keepdim).shape)
                kd = " keepdim" if keepdim else ""
                cases.append(Case(f"reduce_max_ties_{shape_name(shape)}",
                                  f"  %r = trace.reduce_max %x dims = {dims}{kd} : {ttype(shape, F32)} -> {ttype(out, F32)}",
                                  [("x", x)], lambda t, dims=dims, keepdim=keepdim: torch.amax(t, dim=dims, keepdim=keepdim),
                                  *tol(F32, False)))
        return cases

    if op == "matmul":
        cases = []
        for lhs, rhs in (((5, 7), (7, 3)), ((2, 4, 6), (2, 6, 5)),
                         ((2, 3, 4, 6), (2, 3, 6, 2)), ((1, 1), (1, 1)), ((32, 48), (48, 40))):
            for dt in DTYPES:
                a, b = draw(gen, lhs, dt), draw(gen, rhs, dt)
                out = tuple((a @ b).shape)
                cases.append(Case(f"matmul_{shape_name(lhs)}_{shape_name(rhs)}_{MLIR_DTYPE[dt]}",
                                  f"  %r = trace.matmul %a, %b : {ttype(lhs, dt)}, {ttype(rhs, dt)} -> {ttype(out, dt)}",
                                  [("a", a), ("b", b)], torch.matmul, *tol(dt, True)))
        return cases

    if op == "convolution":
        cases = []
        for name, xs, ws, *attrs in CONV_CASES:
            for dt in ((F32, F64) if name in ("3x3_stride2_rem", "groups2") else (F32,)):
                x, w = draw(gen, xs, dt), draw(gen, ws, dt)
                out = tuple(conv_reference(x, w, *attrs).shape)
                # Both lowerings of the forward's and the VJP's convolutions.
                for mode in ("direct", "im2col"):
                    cases.append(Case(f"convolution_{name}_{MLIR_DTYPE[dt]}_{mode}",
                                      conv_body(ttype(xs, dt), ttype(ws, dt), ttype(out, dt), *attrs),
                                      [("x", x), ("w", w)],
                                      lambda a, b, attrs=attrs: conv_reference(a, b, *attrs),
                                      *tol(dt, True), flags=(f"--convolutions={mode}",)))
        return cases
    if op == "reverse":
        cases = []
        for shape, dims in (((3, 5), [1]), ((2, 3, 4), [0, 2])):
            for dt in DTYPES:
                x = draw(gen, shape, dt)
                cases.append(Case(f"reverse_{shape_name(shape)}_{MLIR_DTYPE[dt]}",
                                  f"  %r = trace.reverse %x dims = {dims} : {ttype(shape, dt)}",
                                  [("x", x)], lambda t, dims=dims: torch.flip(t, dims),
                                  *tol(dt, False)))
        return cases

    if op == "gather":
        # Repeated indices sum their cotangents (torch's gather backward);
        # indices smaller than the operand off `dim`. Both scatter lowerings.
        cases = []
        for shape, dim, ishape, high in (((10, 4), 0, (7, 4), 4), ((5, 7), 1, (3, 9), 7),
                                         ((4, 6, 5), 2, (2, 6, 8), 5)):
            for dt in DTYPES:
                x = draw(gen, shape, dt)
                idx = draw(gen, ishape, torch.int64, 0, high)
                for flags in ((), ("--gpu-kernels",)):
                    cases.append(Case(f"gather_{shape_name(shape)}_dim{dim}_{MLIR_DTYPE[dt]}" + ("_gpu_kernels" if flags else ""),
                                      f"  %r = trace.gather %x[%i] dim = {dim} : {ttype(shape, dt)}, {ttype(ishape, torch.int64)} -> {ttype(ishape, dt)}",
                                      [("x", x), ("i", idx)],
                                      lambda t, i, dim=dim: torch.gather(t, dim, i),
                                      *tol(dt, False), flags=flags))
        return cases
    if op == "scatter_add":
        cases = []
        for shape, dim, ishape, high in (((10, 4), 0, (6, 4), 4), ((3, 5, 4), 2, (3, 2, 7), 4)):
            for dt in DTYPES:
                base, upd = draw(gen, shape, dt), draw(gen, ishape, dt)
                idx = draw(gen, ishape, torch.int64, 0, high)
                cases.append(Case(f"scatter_add_{shape_name(shape)}_dim{dim}_{MLIR_DTYPE[dt]}",
                                  f"  %r = trace.scatter_add %u into %b[%i] dim = {dim} : {ttype(ishape, dt)}, {ttype(ishape, torch.int64)} -> {ttype(shape, dt)}",
                                  [("b", base), ("i", idx), ("u", upd)],
                                  lambda b, i, u, dim=dim: b.scatter_add(dim, i, u),
                                  *tol(dt, False)))
        return cases

    raise SystemExit(f"unknown op {op}")


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--op", required=True)
    parser.add_argument("--trace-opt", required=True)
    parser.add_argument("--trace-run", required=True)
    parser.add_argument("--workdir", required=True)
    args = parser.parse_args()
    gen = torch.Generator().manual_seed(SEED + sum(map(ord, args.op)))
    cases = cases_for(args.op, gen)
    results = [run_case(c, gen, args.trace_opt, args.trace_run, args.workdir) for c in cases]
    passed = sum(results)
    print(f"{args.op}: {passed} of {len(results)} gradient cases match PyTorch")
    sys.exit(0 if passed == len(results) else 1)


if __name__ == "__main__":
    main()
