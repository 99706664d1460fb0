#!/usr/bin/env python3
"""trace-autodiff's gradients against finite differences on random graphs.

For each seed, a random trace function @f: f64 arguments of small shapes
(3x4, then up to two of 4, 3x1, 4x3, 2x3x4, 3, scalar), 8 to 20 random steps
and every value nothing else reads summed into one scalar. A step is one op
drawn from those with a VJP rule, with what it needs to be well defined:

  * unary ops; log, sqrt and rsqrt of a positive value built in the graph
    (x*x + 1, exp(x) or logistic(x)), as are div's divisor and pow's base;
  * binary ops, the second operand broadcast_in_dim'ed when its shape is
    smaller (never x op x, which could cut the graph off its inputs);
  * select on a compare of two values (the predicate gets no gradient);
  * reduce_sum / reduce_max over random dims, with and without keepdim;
  * transpose, reshape, broadcast_in_dim (new and stretched dims), slice
    with strides, concatenate of 2-3 values;
  * matmul of rank 2 or 3, the other operand a transpose if need be.

Not convert: rounding to f32 makes f a staircase at the scale of h. Seed k
always contains FOCUS[k % len(FOCUS)], so any len(FOCUS) consecutive seeds
use every op. Graphs whose values overflow or exceed MAX_MAGNITUDE, or in
which some argument does not move f, are drawn again.

`trace-opt --trace-autodiff` adds @f_grad; a @check function appended to its
output calls @f_grad (cotangent 1), then @f at K points stacked in one
argument per input, so one trace-run call yields the gradients and every
value the differences need:

  * directional: for DIRECTIONS random directions v (normal entries),
    <grad f(x), v> against (f(x + h v) - f(x - h v)) / 2h;
  * element-wise, when the arguments have at most ELEMENTWISE_MAX elements
    in all: each gradient entry against (f(x + h e_i) - f(x - h e_i)) / 2h.

Tolerances (f64, h = 1e-6): |ad - fd| <= RTOL * max(|ad|, |fd|) + ATOL * S,
RTOL = 1e-6, ATOL = 1e-9, where S, the computation's magnitude, is the sum
over all intermediate values of their largest |element|: the rounding error
of f, hence of the difference quotient (about 1e-16 S / h), scales with it;
the truncation error, h^2/6 f''', is far below. On the shipped seeds the
worst |ad - fd| is under 0.1 of that tolerance; an error of 1e-5 relative
in the gradients fails every seed.

Kinks: a NumPy twin of each graph gives, at every evaluation point, the
branch pattern of each abs, maximum/minimum, compare and reduce_max; inputs
are drawn again unless the patterns are the same at all points and no
non-tied kink is within KINK_MARGIN (relative) of x. Exact ties that the
graph's structure makes (maximum(v, broadcast(reduce_max(v))), reduce_max
over a broadcast dim) move together and stay. The twin also checks the
compiled f(x) (within FORWARD_RTOL of S).

    fd_numerics.py --seeds 0-7 --trace-opt build/bin/trace-opt \\
        --trace-run build/bin/trace-run --workdir DIR
"""

import argparse
import itertools
import math
import os
import sys
import time

import numpy as np

# Runs a command, printing it and its output and exiting 1 on failure.
from split_numerics import run  # same directory

SEED = 20261130
H = 1e-6
RTOL, ATOL = 1e-6, 1e-9
FORWARD_RTOL = 1e-9
DIRECTIONS = 3
ELEMENTWISE_MAX = 48
MAX_MAGNITUDE = 1e3     # graphs whose values grow beyond this are redrawn
KINK_MARGIN = 1e-7      # relative distance to a kink below which inputs are redrawn

UNARY = ["neg", "abs", "exp", "log", "sin", "cos", "tanh", "sqrt", "rsqrt",
         "erf", "logistic"]
POSITIVE_DOMAIN = {"log", "sqrt", "rsqrt"}
SMOOTH = ["sin", "cos", "tanh", "erf", "logistic"]
BINARY = ["add", "sub", "mul", "div", "pow", "maximum", "minimum"]
OTHER = ["select", "broadcast_in_dim", "reshape", "transpose", "slice",
         "concatenate", "reduce_sum", "reduce_max", "matmul"]
FOCUS = UNARY + BINARY + OTHER
ARG_SHAPES = [(4,), (3, 1), (3, 4), (4, 3), (2, 3, 4), (3,), ()]

_erf = np.vectorize(math.erf, otypes=[np.float64])
NUMPY_UNARY = {
    "neg": np.negative, "abs": np.abs, "exp": np.exp, "log": np.log,
    "sin": np.sin, "cos": np.cos, "tanh": np.tanh, "sqrt": np.sqrt,
    "rsqrt": lambda x: 1.0 / np.sqrt(x), "erf": _erf,
    "logistic": lambda x: 1.0 / (1.0 + np.exp(-x)),
}
NUMPY_BINARY = {
    "add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide,
    "pow": np.power, "maximum": np.maximum, "minimum": np.minimum,
}
NUMPY_COMPARE = {"eq": np.equal, "ne": np.not_equal, "lt": np.less,
                 "le": np.less_equal, "gt": np.greater, "ge": np.greater_equal}


def ttype(shape):
    return "tensor<" + "".join(f"{d}x" for d in shape) + "f64>"


class Graph:
    """A random trace function built step by step, with a NumPy twin.

    Every value is a name and a shape; `steps` holds, per emitted op, the IR
    line and a NumPy function of the environment. `kinks` lists where a
    small move of the inputs could change a branch (abs, max/min, compare,
    reduce_max): each is a function of the environment giving the branch
    pattern and the distance to the nearest non-tied kink.
    """

    def __init__(self, rng):
        self.rng = rng
        self.args, self.steps, self.kinks, self.ops = [], [], [], []
        self.shapes, self.uses = {}, {}

    # -- values ---------------------------------------------------------------
    def arg(self, shape):
        name = f"x{len(self.args)}"
        self.args.append(name)
        self.shapes[name], self.uses[name] = shape, 0
        return name

    def emit(self, text, shape, fn, op=None, pool=True):
        """Appends an op; its value joins the pool unless it is a predicate."""
        name = f"v{len(self.steps)}"
        self.steps.append((name, f"  %{name} = {text}", fn))
        if pool:
            self.shapes[name], self.uses[name] = shape, 0
        if op:
            self.ops.append(op)
        return name

    def use(self, *names):
        for n in names:
            self.uses[n] += 1

    def pick(self, ok=lambda shape: True):
        """A value whose shape passes `ok`, recent ones more likely."""
        names = [n for n in self.shapes if ok(self.shapes[n])]
        if not names:
            return None
        weights = np.arange(1, len(names) + 1, dtype=np.float64) ** 1.5
        return names[self.rng.choice(len(names), p=weights / weights.sum())]

    # -- helpers that emit ops ------------------------------------------------
    def broadcast_dims(self, src, dst):
        """Increasing dims mapping `src` into `dst` (sizes equal or 1), or None."""
        combos = list(itertools.combinations(range(len(dst)), len(src)))
        self.rng.shuffle(combos)
        right = tuple(range(len(dst) - len(src), len(dst)))
        for dims in [right] + combos:
            if all(s in (1, dst[d]) for s, d in zip(src, dims)):
                return list(dims)
        return None

    def broadcast(self, x, shape, dims=None, op=None):
        if dims is None:
            dims = self.broadcast_dims(self.shapes[x], shape)
        self.use(x)
        view = [1] * len(shape)
        for k, d in enumerate(dims):
            view[d] = self.shapes[x][k]
        return self.emit(
            f"trace.broadcast_in_dim %{x}, dims = {list(dims)} : "
            f"{ttype(self.shapes[x])} -> {ttype(shape)}", tuple(shape),
            lambda env, x=x, view=view, shape=tuple(shape):
                np.broadcast_to(env[x].reshape(view), shape).copy(), op)

    def pick_like(self, shape, other_than=None):
        """A value of `shape`: one of that shape or one broadcast to it. Not
        `other_than` (x - x would cut the graph off its inputs): if nothing
        else fits, a smooth function of it."""
        x = self.pick(lambda s: len(s) <= len(shape) and
                      self.broadcast_dims(s, shape) is not None)
        if x == other_than:
            x = self.pick(lambda s: len(s) <= len(shape) and
                          self.broadcast_dims(s, shape) is not None) or x
        if x == other_than:
            x = self.unary(str(self.rng.choice(SMOOTH)), x)
        return x if self.shapes[x] == shape else self.broadcast(x, shape)

    def unary(self, op, x):
        self.use(x)
        t = ttype(self.shapes[x])
        fn = NUMPY_UNARY[op]
        if op == "abs":
            self.kinks.append(lambda env, x=x: (np.sign(env[x]), env[x]))
        return self.emit(f"trace.{op} %{x} : {t}", self.shapes[x],
                         lambda env, x=x, fn=fn: fn(env[x]), op)

    def binary(self, op, a, b):
        self.use(a, b)
        shape = self.shapes[a]
        fn = NUMPY_BINARY[op]
        if op in ("maximum", "minimum"):
            self.kinks.append(lambda env, a=a, b=b: (np.sign(env[a] - env[b]),
                                                     env[a] - env[b]))
        return self.emit(f"trace.{op} %{a}, %{b} : {ttype(shape)}", shape,
                         lambda env, a=a, b=b, fn=fn: fn(env[a], env[b]), op)

    def full(self, shape, value):
        return self.emit(f"trace.full {value!r} : {ttype(shape)}", shape,
                         lambda env, shape=shape, value=value:
                             np.full(shape, value, dtype=np.float64))

    def positive(self, x):
        """A positive function of x: x*x + 1, exp(x) or logistic(x)."""
        kind = self.rng.integers(3)
        if kind == 0:
            sq = self.binary("mul", x, x)
            return self.binary("add", sq, self.full(self.shapes[x], 1.0))
        return self.unary("exp" if kind == 1 else "logistic", x)

    def transpose(self, x, perm, op=None):
        self.use(x)
        shape = tuple(self.shapes[x][p] for p in perm)
        return self.emit(f"trace.transpose %{x}, perm = {list(perm)} : "
                         f"{ttype(self.shapes[x])} -> {ttype(shape)}", shape,
                         lambda env, x=x, perm=tuple(perm): np.transpose(env[x], perm),
                         op)

    def reshape(self, x, shape, op=None):
        self.use(x)
        return self.emit(f"trace.reshape %{x} : {ttype(self.shapes[x])} -> {ttype(shape)}",
                         tuple(shape),
                         lambda env, x=x, shape=tuple(shape): env[x].reshape(shape), op)

    def reduce(self, op, x, dims, keepdim):
        self.use(x)
        shape = self.shapes[x]
        out = tuple(1 if d in dims else s for d, s in enumerate(shape)) if keepdim \
            else tuple(s for d, s in enumerate(shape) if d not in dims)
        npfn = np.sum if op == "reduce_sum" else np.max
        axes = tuple(int(d) for d in dims)
        if op == "reduce_max":
            def kink(env, x=x, axes=axes):
                v = env[x]
                top = np.max(v, axis=axes, keepdims=True)
                below = np.where(v < top, v, -np.inf)
                gap = top - np.max(below, axis=axes, keepdims=True)
                return v == top, gap
            self.kinks.append(kink)
        kd = " keepdim" if keepdim else ""
        return self.emit(f"trace.{op} %{x} dims = {[int(d) for d in dims]}{kd} : "
                         f"{ttype(shape)} -> {ttype(out)}", out,
                         lambda env, x=x, axes=axes, kd=keepdim, f=npfn:
                             np.asarray(f(env[x], axis=axes, keepdims=kd)), op)

    # -- one random step per op kind -------------------------------------------
    def step(self, op):
        rng = self.rng
        if op in UNARY:
            x = self.pick()
            if op in POSITIVE_DOMAIN:
                x = self.positive(x)
            return self.unary(op, x)
        if op in BINARY:
            a = self.pick()
            b = self.pick_like(self.shapes[a], other_than=a)
            if rng.random() < 0.5:
                a, b = b, a
            if op == "div":
                b = self.positive(b)
            if op == "pow":
                a = self.positive(a)
            return self.binary(op, a, b)
        if op == "select":
            a = self.pick()
            shape = self.shapes[a]
            b = self.pick_like(shape, other_than=a)
            direction = str(rng.choice(list(NUMPY_COMPARE)))
            self.use(a, b)
            c = self.emit(f"trace.compare {direction}, %{a}, %{b} : {ttype(shape)}",
                          shape, lambda env, a=a, b=b, f=NUMPY_COMPARE[direction]:
                              f(env[a], env[b]), pool=False)
            self.kinks.append(lambda env, a=a, b=b: (np.sign(env[a] - env[b]),
                                                     env[a] - env[b]))
            t = self.pick_like(shape)
            f = self.pick_like(shape, other_than=t)
            self.use(t, f)
            return self.emit(f"trace.select %{c}, %{t}, %{f} : "
                             f"{ttype(shape).replace('f64', 'i1')}, {ttype(shape)}",
                             shape, lambda env, c=c, t=t, f=f: np.where(env[c], env[t], env[f]),
                             op)
        if op == "broadcast_in_dim":
            x = self.pick(lambda s: len(s) < 3 or 1 in s)
            shape = [int(rng.integers(2, 4)) if s == 1 and rng.random() < 0.7 else s
                     for s in self.shapes[x]]
            dims = list(range(len(shape)))
            if len(shape) < 3 and (rng.random() < 0.7 or tuple(shape) == self.shapes[x]):
                at = int(rng.integers(len(shape) + 1))
                shape.insert(at, int(rng.integers(2, 4)))
                dims = [d if d < at else d + 1 for d in dims]
            return self.broadcast(x, tuple(shape), dims, op)
        if op == "reshape":
            x = self.pick(lambda s: math.prod(s) > 1)
            n = math.prod(self.shapes[x])
            divisors = [d for d in range(1, n + 1) if n % d == 0]
            shapes = [s for r in (1, 2, 3) for s in itertools.product(divisors, repeat=r)
                      if math.prod(s) == n and s != self.shapes[x]]
            return self.reshape(x, shapes[rng.integers(len(shapes))], op)
        if op == "transpose":
            x = self.pick(lambda s: len(s) >= 2)  # the 3x4 argument at least
            rank = len(self.shapes[x])
            perm = list(range(rank))
            while perm == list(range(rank)):
                perm = [int(p) for p in rng.permutation(rank)]
            return self.transpose(x, perm, op)
        if op == "slice":
            x = self.pick(lambda s: max(s, default=0) >= 2)
            spec, idx, out = [], [], []
            for size in self.shapes[x]:
                start = int(rng.integers(size)) if rng.random() < 0.6 else 0
                limit = int(rng.integers(start + 1, size + 1))
                stride = int(rng.choice([1, 1, 2, 3]))
                spec.append(f"{start}:{limit}" + (f":{stride}" if stride > 1 else ""))
                idx.append(slice(start, limit, stride))
                out.append(len(range(start, limit, stride)))
            self.use(x)
            return self.emit(f"trace.slice %{x} [{', '.join(spec)}] : "
                             f"{ttype(self.shapes[x])} -> {ttype(out)}", tuple(out),
                             lambda env, x=x, idx=tuple(idx): env[x][idx], op)
        if op == "concatenate":
            x = self.pick(lambda s: len(s) >= 1)
            shape = self.shapes[x]
            dim = int(rng.integers(len(shape)))
            same = lambda s: len(s) == len(shape) and all(
                a == b for d, (a, b) in enumerate(zip(s, shape)) if d != dim)
            parts = [x] + [self.pick(same) for _ in range(int(rng.integers(1, 3)))]
            rng.shuffle(parts)
            self.use(*parts)
            out = list(shape)
            out[dim] = sum(self.shapes[p][dim] for p in parts)
            tys = ", ".join(ttype(self.shapes[p]) for p in parts)
            return self.emit(f"trace.concatenate {', '.join('%' + p for p in parts)} "
                             f"dim = {dim} : ({tys}) -> {ttype(out)}", tuple(out),
                             lambda env, parts=tuple(parts), dim=dim:
                                 np.concatenate([env[p] for p in parts], axis=dim), op)
        if op in ("reduce_sum", "reduce_max"):
            x = self.pick(lambda s: len(s) >= 1)
            rank = len(self.shapes[x])
            dims = [int(d) for d in rng.choice(rank, int(rng.integers(1, rank + 1)),
                                               replace=False)]
            return self.reduce(op, x, dims, bool(rng.random() < 0.4))
        if op == "matmul":
            a = self.pick(lambda s: len(s) in (2, 3))  # the 3x4 argument at least
            sa = self.shapes[a]
            batch, k = sa[:-2], sa[-1]
            b = self.pick(lambda s: len(s) == len(sa) and s[:-2] == batch and s[-2] == k)
            if b is None or rng.random() < 0.3:
                # The transpose of a [..., n, k] value (a itself if nothing else).
                c = self.pick(lambda s: len(s) == len(sa) and s[:-2] == batch and s[-1] == k)
                perm = list(range(len(sa)))
                perm[-1], perm[-2] = perm[-2], perm[-1]
                b = self.transpose(c, perm)
            if rng.random() < 0.5 and self.shapes[b][-1] == sa[-2]:
                a, b = b, a  # sometimes the product the other way round
            self.use(a, b)
            out = self.shapes[a][:-1] + self.shapes[b][-1:]
            return self.emit(f"trace.matmul %{a}, %{b} : {ttype(self.shapes[a])}, "
                             f"{ttype(self.shapes[b])} -> {ttype(out)}", out,
                             lambda env, a=a, b=b: np.matmul(env[a], env[b]), op)
        raise AssertionError(op)

    def finish(self):
        """Sums every value nothing reads (arguments included) into the result."""
        recorded = len(self.ops)
        sinks = [n for n in self.shapes if self.uses[n] == 0]
        scalars = []
        for s in sinks:
            rank = len(self.shapes[s])
            scalars.append(self.reduce("reduce_sum", s, list(range(rank)), False)
                           if rank else s)
        total = scalars[0]
        for s in scalars[1:]:
            total = self.binary("add", total, s)
        self.result = total
        del self.ops[recorded:]  # the final sum is in every graph

    # -- output ----------------------------------------------------------------
    def mlir(self):
        params = ", ".join(f"%{a}: {ttype(self.shapes[a])} {{trace.name = \"{a}\"}}"
                           for a in self.args)
        body = "\n".join(line for _, line, _ in self.steps)
        return (f"func.func @f({params}) -> tensor<f64> {{\n{body}\n"
                f"  return %{self.result} : tensor<f64>\n}}\n")

    def evaluate(self, inputs):
        env = dict(zip(self.args, inputs))
        with np.errstate(all="ignore"):  # overflow is checked by the caller
            for name, _, fn in self.steps:
                env[name] = np.asarray(fn(env))
        return env


def check_function(graph, k):
    """@check: the gradients from @f_grad, then f at K stacked points."""
    shapes = [graph.shapes[a] for a in graph.args]
    params = ", ".join([f"%{a}: {ttype(s)} {{trace.name = \"{a}\"}}"
                        for a, s in zip(graph.args, shapes)] +
                       [f"%p_{a}: {ttype((k,) + s)} {{trace.name = \"p.{a}\"}}"
                        for a, s in zip(graph.args, shapes)])
    results = ", ".join([f"{ttype(s)} {{trace.name = \"grad.{a}\"}}"
                         for a, s in zip(graph.args, shapes)] +
                        [f"{ttype((k,))} {{trace.name = \"fvals\"}}"])
    arg_types = ", ".join(ttype(s) for s in shapes)
    n = len(shapes)
    lines = [f"  func.func @check({params}) -> ({results}) {{",
             "    %cot = trace.full 1.0 : tensor<f64>",
             f"    %g:{n + 1} = func.call @f_grad({', '.join('%' + a for a in graph.args)}, %cot)"
             f" : ({arg_types}, tensor<f64>) -> (tensor<f64>, {arg_types})"]
    for i in range(k):
        operands = []
        for a, s in zip(graph.args, shapes):
            ranges = ", ".join([f"{i}:{i + 1}"] + [f"0:{d}" for d in s])
            lines.append(f"    %s{i}_{a} = trace.slice %p_{a} [{ranges}] : "
                         f"{ttype((k,) + s)} -> {ttype((1,) + s)}")
            lines.append(f"    %a{i}_{a} = trace.reshape %s{i}_{a} : "
                         f"{ttype((1,) + s)} -> {ttype(s)}")
            operands.append(f"%a{i}_{a}")
        lines.append(f"    %f{i} = func.call @f({', '.join(operands)}) : "
                     f"({arg_types}) -> tensor<f64>")
        lines.append(f"    %r{i} = trace.reshape %f{i} : tensor<f64> -> tensor<1xf64>")
    lines.append(f"    %fv = trace.concatenate {', '.join(f'%r{i}' for i in range(k))} "
                 f"dim = 0 : ({', '.join(['tensor<1xf64>'] * k)}) -> {ttype((k,))}")
    grads = ", ".join(f"%g#{j + 1}" for j in range(n))
    lines.append(f"    return {grads}, %fv : {arg_types}, {ttype((k,))}")
    lines.append("  }")
    return "\n".join(lines) + "\n"


def make_case(seed):
    """A graph containing FOCUS[seed % len(FOCUS)], inputs clear of its kinks,
    and the evaluation points (x, then pairs x +- h v, then x +- h e_i)."""
    rng = np.random.default_rng([SEED, seed])
    focus = FOCUS[seed % len(FOCUS)]
    for _ in range(200):
        g = Graph(rng)
        g.arg((3, 4))
        for _ in range(int(rng.integers(0, 3))):
            g.arg(ARG_SHAPES[rng.integers(len(ARG_SHAPES))])
        n = int(rng.integers(8, 21))
        at = int(rng.integers(n))
        for i in range(n):
            g.step(focus if i == at else str(rng.choice(FOCUS)))
        g.finish()
        for _ in range(20):
            x = [rng.uniform(-1.5, 1.5, g.shapes[a]) for a in g.args]
            env = g.evaluate(x)
            values = [env[name] for name, _, _ in g.steps if env[name].dtype != bool]
            big = max(float(np.max(np.abs(v), initial=0.0)) for v in values)
            if not all(np.all(np.isfinite(v)) for v in values) or big > MAX_MAGNITUDE:
                break  # a graph that overflows or grows too much: draw another
            directions = [[rng.standard_normal(g.shapes[a]) for a in g.args]
                          for _ in range(DIRECTIONS)]
            points = [x]
            for v in directions:
                points += [[xi + H * vi for xi, vi in zip(x, v)],
                           [xi - H * vi for xi, vi in zip(x, v)]]
            numel = sum(xi.size for xi in x)
            if numel <= ELEMENTWISE_MAX:
                for j, xj in enumerate(x):
                    for i in range(xj.size):
                        for sign in (1.0, -1.0):
                            p = [xi.copy() for xi in x]
                            p[j].flat[i] += sign * H
                            points.append(p)
            if not depends_on_every_arg(g, x, directions):
                break  # e.g. an argument only read by a compare: draw another graph
            if clear_of_kinks(g, env, points):
                scale = sum(float(np.max(np.abs(v), initial=0.0)) for v in values)
                return g, x, directions, points, scale, env
    raise SystemExit(f"seed {seed}: no graph with {focus} and inputs clear of kinks")


def depends_on_every_arg(g, x, directions):
    """Moving any one argument along the first direction moves f (NumPy)."""
    for j in range(len(x)):
        f = []
        for sign in (1.0, -1.0):
            p = list(x)
            p[j] = x[j] + sign * 1e-3 * directions[0][j]
            f.append(float(g.evaluate(p)[g.result]))
        if not abs(f[0] - f[1]) > 1e-9 * (1.0 + abs(f[0])):
            return False
    return True


def clear_of_kinks(g, env, points):
    """No branch changes between the evaluation points, and no non-tied kink
    is closer than KINK_MARGIN: NumPy and the compiled code then take the
    same branches everywhere, and f is smooth between the points."""
    base = [k(env) for k in g.kinks]
    for pattern, gap in base:
        gap = np.abs(np.asarray(gap))
        near = gap[(gap > 0) & np.isfinite(gap)]
        if near.size and near.min() < KINK_MARGIN * (1.0 + np.abs(near).max()):
            return False
    for p in points[1:]:
        penv = g.evaluate(p)
        for (pattern, _), k in zip(base, g.kinks):
            if not np.array_equal(pattern, k(penv)[0]):
                return False
    return True


def run_seed(seed, trace_opt, trace_run, workdir):
    t0 = time.time()
    g, x, directions, points, scale, env = make_case(seed)
    d = os.path.join(workdir, f"seed{seed}")
    os.makedirs(d, exist_ok=True)
    src, grad_src, check_src = (os.path.join(d, n) for n in ("f.mlir", "grad.mlir", "check.mlir"))
    with open(src, "w") as f:
        f.write(g.mlir())
    run([trace_opt, "--trace-autodiff", src, "-o", grad_src])
    module = open(grad_src).read().rstrip()
    assert module.endswith("}"), "trace-opt printed an unexpected module"
    with open(check_src, "w") as f:
        f.write(module[:-1] + check_function(g, len(points)) + "}\n")

    cmd = [trace_run, check_src, "--entry=check", "--quiet", f"--out-dir={os.path.join(d, 'out')}"]
    for j, a in enumerate(g.args):
        np.save(os.path.join(d, f"{a}.npy"), x[j])
        np.save(os.path.join(d, f"p.{a}.npy"), np.stack([p[j] for p in points]))
        cmd += [f"--arg={a}={os.path.join(d, a + '.npy')}",
                f"--arg=p.{a}={os.path.join(d, 'p.' + a + '.npy')}"]
    run(cmd)
    out = os.path.join(d, "out")
    grads = [np.load(os.path.join(out, f"grad.{a}.npy")) for a in g.args]
    fvals = np.load(os.path.join(out, "fvals.npy"))

    failures = []
    expected = float(env[g.result])
    if abs(fvals[0] - expected) > FORWARD_RTOL * scale:
        failures.append(f"f(x) = {fvals[0]!r}, NumPy's {expected!r}")

    def compare(what, ad, fd):
        err = abs(ad - fd)
        tol = RTOL * max(abs(ad), abs(fd)) + ATOL * scale
        if not err <= tol:
            failures.append(f"{what}: autodiff {ad:.12g}, finite differences {fd:.12g}, "
                            f"|diff| {err:.3g} > tolerance {tol:.3g}")
        nonlocal worst, worst_what
        if err / tol >= worst:
            worst, worst_what = err / tol, what

    worst, worst_what = 0.0, ""
    for k, v in enumerate(directions):
        ad = sum(float(np.sum(gj * vj)) for gj, vj in zip(grads, v))
        fd = (fvals[1 + 2 * k] - fvals[2 + 2 * k]) / (2 * H)
        compare(f"direction {k}", ad, fd)
    checked = DIRECTIONS
    base = 1 + 2 * DIRECTIONS
    if len(points) > base:
        for j, a in enumerate(g.args):
            for i in range(x[j].size):
                fd = (fvals[base] - fvals[base + 1]) / (2 * H)
                base += 2
                idx = np.unravel_index(i, x[j].shape) if x[j].shape else ()
                compare(f"df/d{a}{list(idx)}", float(grads[j].flat[i]), fd)
                checked += 1

    ops = len(g.steps)
    kinds = ",".join(sorted(set(g.ops)))
    status = "FAIL" if failures else "PASS"
    print(f"{status}: seed {seed}: {ops} ops ({kinds}); args "
          f"{' '.join('x'.join(map(str, g.shapes[a])) or 'scalar' for a in g.args)}; "
          f"{checked} derivatives, worst |diff| / tolerance {worst:.2g} ({worst_what}); "
          f"{time.time() - t0:.1f} s")
    for msg in failures:
        print(f"  {msg}")
    if failures:
        print(f"  graph: {src}")
    return not failures, set(g.ops)


def parse_seeds(text):
    lo, _, hi = text.partition("-")
    return range(int(lo), int(hi or lo) + 1)


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seeds", required=True, help="a seed or a range, e.g. 0-7")
    parser.add_argument("--trace-opt", required=True)
    parser.add_argument("--trace-run", required=True)
    parser.add_argument("--workdir", required=True)
    args = parser.parse_args()
    seeds = parse_seeds(args.seeds)
    results, used = [], set()
    for seed in seeds:
        ok, ops = run_seed(seed, args.trace_opt, args.trace_run, args.workdir)
        results.append(ok)
        used |= ops
    print(f"seeds {args.seeds}: {sum(results)} of {len(results)} random graphs match "
          f"finite differences; ops used: {len(used)} of {len(FOCUS)}")
    sys.exit(0 if all(results) else 1)


if __name__ == "__main__":
    main()
