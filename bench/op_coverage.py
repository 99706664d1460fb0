#!/usr/bin/env python3
"""Core ATen op coverage: PyTorch's OpInfo samples compiled by trace_mlir.

    bench/op_coverage.py [--subset ci [--expect-pass]] [--ops a,b,c]
                         [--dtypes float32,float64] [--max-samples N]
                         [--jobs 2] [--cache-dir DIR] [--results FILE]
                         [--from-results FILE] [--write-docs]

The bar (issue 45) is the Core ATen opset: every `torch.ops.aten`
overload tagged `torch.Tag.core`. Ops are counted as overload packets
(`aten.add` stands for add.Tensor, add.Scalar, ...); a packet's samples
are those that reach any of its core overloads.

For each OpInfo entry of `op_db` that takes float32 or float64 on the
CPU, and each of its CPU samples in each dtype (all of them, or the first
--max-samples), a module whose inputs are the sample's tensors calls
`op(sample.input, *sample.args, **sample.kwargs)` (then the sample's
output_process_fn_grad) and returns its tensors. trace_mlir.compile
compiles it (torch.export, trace-compile, a shared library); its forward
is compared with eager's, and where the op supports autograd and has a
floating output that requires grad, so is every input's gradient under
a fixed random cotangent (loss = sum(out * cotangent) over the outputs
eager differentiates). Tolerances:
torch.testing.assert_close's defaults in float32 (rtol 1.3e-6, atol
1e-5), atol = rtol = 1e-7 in float64; NaN equals NaN. A float32 value
that misses its tolerance passes when it is as near eager's float64
value of the sample as eager's float32 value is, within that tolerance:
|ours - eager64| <= atol + rtol |eager64| + |eager32 - eager64| in every
element. Where the two compilers round differently (a matmul's order of
summation, 1 - x^2 as (1 - x)(1 + x)), this asks that ours be no worse
than eager's, as Inductor's own accuracy check does against an fp64
reference (torch._dynamo.utils.same); the footer counts the samples
that pass this way. Seeds are fixed
per entry, dtype and sample. The entries in UNINITIALIZED (empty, ...)
are compared by shape and dtype only.

Which ops a sample reaches: the aten calls of its export graph after
`run_decompositions()` (trace_mlir.export), each sample's ops told apart
by a `torch.fx.traceback.annotate` mark.

Compiling is the cost (trace-compile and a C compile and link each), so
the samples of one (entry, dtype) are compiled together, --group at a
time, in one module (one output tuple, one loss: the samples' subgraphs
are disjoint, so each sample's results are its own). A group that does
not compile or run is split: an "unsupported op 'T'" error (the
importer has no handler for T at all) fails every sample of the group
that reaches T and the rest is compiled again; any other error bisects
the group down to the samples that fail. Once FAILED_ALONE samples of
one (entry, dtype) have failed on their own, the samples of a further
failing group are all charged with its error without being compiled
alone (so their pass counts are lower bounds; the footer counts them).
Libraries are cached in --cache-dir, so a rerun with the same
trace-compile only exports and runs.

A failure's reason is the first line of trace-compile's diagnostic
(without its location, which is always this file's call of the op), a
forward or gradient mismatch with its largest error, an export error,
a timeout or a crash of the worker. An op drawing random numbers
(Tag.nondeterministic_seeded: dropout, bernoulli, ...) draws others than
eager's: a mismatch there is reported as `random: ...`, and a sample
whose eager output changes with the seed cannot be compared at all.

A core op passes when at least one sample reaches it and every sample
charged to it passes forward and, where differentiable, backward, in
both dtypes. A failing sample is charged to every core op it reaches,
except that an error naming one of its aten ops (the importer's
"unsupported op 'T'", a handler's refusal "torch.ops.aten.T: ...") is
charged to that op, and a compile or run error that samples reaching
fewer of its ops also fail with is charged to the smallest such sets
(a rank-0 amax error in logsumexp is amax's). To the other ops it
reaches the sample is blocked, not tried; the entries table shows every
failure where it happened. Mismatches are charged to all the ops of the
sample. A sample that torch.export cannot export (a data-dependent
shape in ctc_loss, say) is charged to no op: no backend built on
torch.export can take it, and the entries table still shows it as
failing. Core ops no OpInfo sample reaches are listed and do not pass.

The tables (core ops, then OpInfo entries) are printed and end with the
line `N of M core ops pass`; --write-docs writes them to
docs/OpCoverage.md. --subset ci runs CI_SUBSET, a fixed list of entries
that pass, on the first CI_MAX_SAMPLES samples of each; with
--expect-pass the exit status is 1 when any entry run fails
(test/Python/op-coverage.test).

Independent (entry, dtype) tasks run in --jobs worker processes (this
file with --worker), each one task at a time, so that a crash in a
compiled library or a hang (--timeout) costs one sample, not the run.
"""

import argparse
import collections
import contextlib
import datetime
import gzip
import json
import math
import os
import re
import selectors
import signal
import subprocess
import sys
import time
import zlib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))

DTYPES = ("float32", "float64")
# float64's tolerance, issue 45's; float32 takes assert_close's defaults
# against eager's float32, or against eager's float64 widened by eager's
# own float32 error (_near_reference).
F64_TOL = 1e-7
F32_ATOL, F32_RTOL = 1e-5, 1.3e-6
# What _compare returns for a float32 value that passes by the float64
# reference only.
REFERENCE = "passes by the float64 reference"

# The CI subset: OpInfo entries (full names) across the families that
# pass: elementwise, binary with broadcasting, matmuls, shapes, indexing,
# softmax, losses (whose sums and means are the reductions here: `sum`,
# `mean` and `amax` themselves fail on rank-0 inputs), group_norm,
# convolution and pooling; run on their first CI_MAX_SAMPLES samples in
# each dtype.
CI_SUBSET = [
    "abs", "exp", "log", "tanh", "sigmoid", "rsqrt", "erf", "add", "mul",
    "div.no_rounding_mode", "maximum", "where", "pow", "clamp", "mm", "bmm",
    "addmm", "nn.functional.linear", "permute", "reshape", "expand", "cat",
    "gather", "nn.functional.embedding", "softmax", "log_softmax",
    "nn.functional.cross_entropy", "nn.functional.mse_loss",
    "nn.functional.gelu", "nn.functional.group_norm", "nn.functional.conv2d",
    "nn.functional.avg_pool2d",
]
CI_MAX_SAMPLES = 3

# Entries whose output is uninitialized memory: only its shape and dtype
# are compared (and their gradient, which is zero).
UNINITIALIZED = {"empty", "empty_like", "new_empty", "empty_strided",
                 "new_empty_strided", "empty_permuted"}

# Samples compiled in one module.
GROUP = 24
# Tasks a worker runs before a fresh one takes over (each keeps the
# libraries it loaded).
RECYCLE = 100

# Samples of one (entry, dtype) that fail compiled on their own before a
# failing group is no longer split.
FAILED_ALONE = 2

SAMPLE_MARK = "op_coverage.sample"


def entry_name(op):
    return op.name + ("." + op.variant_test_name if op.variant_test_name
                      else "")


def seed_of(*parts):
    return zlib.crc32(":".join(map(str, parts)).encode()) & 0x7fffffff


def load_op_db():
    """op_db, whose module imports expecttest for its TestCase base
    class only; the harness uses neither, so a stand-in serves where the
    package is not installed."""
    import logging
    # "No CUDA runtime is found", from an import of the testing modules.
    logging.getLogger("torch.utils.cpp_extension").setLevel(logging.ERROR)
    try:
        import expecttest  # noqa: F401
    except ImportError:
        import types
        import unittest
        stub = types.ModuleType("expecttest")
        stub.TestCase = unittest.TestCase
        stub.ACCEPT = False
        sys.modules["expecttest"] = stub
    from torch.testing._internal.common_methods_invocations import op_db
    return op_db


def core_ops():
    """{packet: [overload, ...]} of the aten overloads tagged core, by
    their names without the namespace (`add` -> [`add.Tensor`, ...])."""
    import torch
    packets = {}
    for name in dir(torch.ops.aten):
        try:
            packet = getattr(torch.ops.aten, name)
        except (AttributeError, RuntimeError):
            continue
        if not isinstance(packet, torch._ops.OpOverloadPacket):
            continue
        for overload in packet.overloads():
            if torch.Tag.core in getattr(packet, overload).tags:
                packets.setdefault(name, []).append(f"{name}.{overload}")
    return {k: sorted(v) for k, v in sorted(packets.items())}


# --------------------------------------------------------------------------
# The worker: one (entry, dtype) task at a time, results as JSON lines.
# --------------------------------------------------------------------------

class _Timeout(Exception):
    pass


@contextlib.contextmanager
def _deadline(seconds):
    """Raises _Timeout in Python code running past `seconds`; a
    subprocess (trace-compile) is killed by subprocess.run on the way
    out. A hang inside a library call is the parent's to catch."""
    def expire(signum, frame):
        raise _Timeout()
    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(max(1, int(seconds)))
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def _first_line(text):
    for line in str(text).splitlines():
        if line.strip():
            return line.strip()
    return ""


def _compile_reason(error):
    """The first line of a compile error, without trace-compile's
    location (always the op's call in this file)."""
    import traceback
    from trace_mlir import TraceMLIRError
    line = _first_line(error)
    if isinstance(error, TraceMLIRError):
        return re.sub(r"^\S+:\d+:\d+: (error: )?", "", line)
    frames = traceback.extract_tb(error.__traceback__)
    exporting = any(re.search(r"/torch/(_?export|_dynamo)/", f.filename)
                    for f in frames)
    return (("export: " if exporting else "") +
            f"{type(error).__name__}: {line}")[:300]


def _max_err(actual, expected):
    import torch
    try:
        a, e = actual.double(), expected.double()
        finite = torch.isfinite(a) & torch.isfinite(e)
        diff = (a - e).abs()[finite]
        special = (~finite & ~((a == e) | (a.isnan() & e.isnan()))).any()
        err = f"{diff.max().item():.3g}" if diff.numel() else "0"
        return err + (", non-finite differ" if special else "")
    except Exception:
        return "?"


def _op_name(namespace, name, overload):
    """How the results name an op: `add.Tensor` for aten's, with the
    namespace otherwise (`torch_nn.foo.default`)."""
    prefix = "" if namespace == "aten" else namespace + "."
    return f"{prefix}{name}.{overload}"


def _identical(a, b):
    """Same shape, dtype and bits (NaN equal to NaN)."""
    import torch
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    a, b = a.detach(), b.detach()
    same = a == b
    if a.is_floating_point():
        same |= torch.isnan(a) & torch.isnan(b)
    return bool(same.all())


def _near_reference(actual, expected, reference):
    """Whether a float32 value is as near eager's float64 value as eager's
    own float32 one is, within assert_close's float32 tolerance:
    |ours - eager64| <= atol + rtol |eager64| + |eager32 - eager64| in
    every element (or ours equals eager32 there, NaN and inf included)."""
    import torch
    if reference is None or reference.shape != actual.shape:
        return False
    a, e = actual.detach().double(), expected.detach().double()
    r = reference.detach().double()
    bound = F32_ATOL + F32_RTOL * r.abs() + (e - r).abs()
    # Where eager's float32 or float64 value is not finite, the bound says
    # nothing: only equality to eager's float32 value counts there.
    finite = torch.isfinite(e) & torch.isfinite(r)
    near = finite & ((a - r).abs() <= bound)
    same = (a == e) | (torch.isnan(a) & torch.isnan(e))
    return bool((near | same).all())


def _compare(actual, expected, dtype, values=True, reference=None):
    """None when equal within the dtype's tolerance, REFERENCE when a
    float32 value misses it but is as near eager's float64 value as
    eager's float32 one (_near_reference), else what differs; shape and
    dtype only where not `values`."""
    import torch
    if actual is None:
        return "none"
    if actual.shape != expected.shape:
        return f"shape {list(actual.shape)} vs {list(expected.shape)}"
    if actual.dtype != expected.dtype:
        return f"dtype {actual.dtype} vs {expected.dtype}"
    if not values:
        return None
    tol = {}
    if dtype == torch.float64 and expected.is_floating_point():
        tol = dict(atol=F64_TOL, rtol=F64_TOL)
    try:
        torch.testing.assert_close(actual.detach(), expected.detach(),
                                   equal_nan=True, **tol)
    except AssertionError:
        if expected.dtype == torch.float32 and \
                _near_reference(actual, expected, reference):
            return REFERENCE
        return f"max abs err {_max_err(actual.detach(), expected.detach())}"
    return None


# Where a sample's flattened arguments hold one of its tensors.
_TENSOR = object()


def fx_traceback_preserved():
    import torch.fx.traceback as fx_traceback
    return fx_traceback.preserve_node_meta()


class _Sample:
    """One sample's flattened arguments, eager results and cotangents."""

    def __init__(self, index, sample):
        import torch
        from torch.utils._pytree import tree_flatten
        self.index = index
        leaves, self.spec = tree_flatten(
            (sample.input, sample.args, sample.kwargs))
        self.consts = [_TENSOR if isinstance(x, torch.Tensor) else x
                       for x in leaves]
        self.tensors = [x for x in leaves if isinstance(x, torch.Tensor)]
        self.process = sample.output_process_fn_grad
        self.ops = []
        self.seeded = []

    def fresh_inputs(self):
        """Leaves of their own, requiring grad as the sample's do."""
        return [t.detach().clone().requires_grad_(t.requires_grad)
                for t in self.tensors]


class _OneOp:
    """The module's forward over a group of samples: each sample's tensors
    in turn, its outputs' tensors flattened into one tuple."""

    def __init__(self, op, samples, mark):
        self.op, self.samples, self.mark = op, samples, mark

    def __call__(self, *tensors):
        import torch.fx.traceback as fx_traceback
        from torch.utils._pytree import tree_flatten, tree_unflatten
        import torch
        outputs, k = [], 0
        for s in self.samples:
            leaves = []
            for c in s.consts:
                if c is _TENSOR:
                    leaves.append(tensors[k])
                    k += 1
                else:
                    leaves.append(c)
            context = (fx_traceback.annotate({SAMPLE_MARK: s.index})
                       if self.mark else contextlib.nullcontext())
            with context:
                inp, args, kwargs = tree_unflatten(leaves, s.spec)
                out = s.process(self.op(inp, *args, **kwargs))
            outputs += [o for o in tree_flatten(out)[0]
                        if isinstance(o, torch.Tensor)]
        return tuple(outputs)


def _module(op, samples, mark=False):
    import torch

    class OneOp(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.call = _OneOp(op, samples, mark)

        def forward(self, *tensors):
            return self.call(*tensors)
    return OneOp()


class Worker:
    def __init__(self, cache_dir, timeout):
        import torch
        torch.set_num_threads(1)
        self.cache_dir = cache_dir
        self.timeout = timeout
        self.ops = {entry_name(op): op for op in load_op_db()}
        core = core_ops()
        self.core = {o for v in core.values() for o in v}

    def emit(self, **event):
        sys.stdout.write(json.dumps(event) + "\n")
        sys.stdout.flush()

    def run(self, task):
        import torch
        self.task = task
        self.compile_s = 0.0
        self.compiles = 0
        self.prepare_s = 0.0
        self.failed_alone = 0
        op = self.ops[task["entry"]]
        dtype = getattr(torch, task["dtype"])
        grad = bool(op.supports_autograd)
        torch.manual_seed(seed_of(task["entry"], task["dtype"]))
        samples = []
        generator = op.sample_inputs("cpu", dtype, requires_grad=grad)
        try:
            for i, s in enumerate(generator):
                if task["max_samples"] is not None and \
                        i >= task["max_samples"]:
                    break
                samples.append(_Sample(i, s))
            # Closed now, not when collected inside a later trace (its
            # no_grad context would exit there).
            if hasattr(generator, "close"):
                generator.close()
        except Exception as e:
            self.emit(kind="error", reason="sample_inputs raised "
                      f"{type(e).__name__}: {_first_line(e)}"[:300])
            return self.done()
        skip = set(task.get("decided", []))
        samples = [s for s in samples if s.index not in skip]
        self.emit(kind="samples", count=len(samples) + len(skip))
        dense = []
        for s in samples:
            layouts = {str(t.layout) for t in s.tensors
                       if t.layout != torch.strided}
            if layouts:
                self.emit(kind="skip", index=s.index, reason="input of "
                          f"layout {', '.join(sorted(layouts))}")
            else:
                dense.append(s)
        samples = dense
        start = time.time()
        for first in range(0, len(samples), task["group"]):
            self.analyse(op, samples[first:first + task["group"]])
            self.emit(kind="progress")
        todo = []
        for s in samples:
            if self.eager(op, s, dtype):
                todo.append(s)
            self.emit(kind="progress")
        self.prepare_s = time.time() - start
        # The samples of a group a worker crashed in, one by one first.
        singles = set(task.get("singles", []))
        for s in todo:
            if s.index in singles:
                self.resolve(op, [s], dtype)
        todo = [s for s in todo if s.index not in singles]
        for first in range(0, len(todo), task["group"]):
            self.resolve(op, todo[first:first + task["group"]], dtype)
        return self.done()

    def done(self):
        self.emit(kind="done", compiles=self.compiles,
                  compile_s=round(self.compile_s, 3),
                  prepare_s=round(self.prepare_s, 3))

    def result(self, s, fwd, grad, reason, alone=True, by_reference=False):
        """One sample's result; `alone` is False where the sample failed
        in a group and was not compiled on its own; `by_reference` where
        it passes by the float64 reference only."""
        self.emit(kind="result", index=s.index, fwd=fwd, grad=grad,
                  reason=reason, ops=s.ops, alone=alone,
                  by_reference=by_reference)

    def eager(self, op, s, dtype):
        """Eager's outputs and gradients of one sample; False (and the
        sample's result) where they cannot be the reference."""
        import torch
        module = _module(op, [s])
        inputs = s.fresh_inputs()
        try:
            torch.manual_seed(0)
            outs = module(*inputs)
            # The same call under another seed: a deterministic op gives
            # the same bits.
            torch.manual_seed(1)
            again = module(*s.fresh_inputs())
        except Exception as e:
            self.emit(kind="skip", index=s.index, reason="eager raised "
                      f"{type(e).__name__}: {_first_line(e)}"[:200])
            return False
        s.n_out = len(outs)
        if not outs:
            self.emit(kind="skip", index=s.index,
                      reason="no tensor output to compare")
            return False
        s.values = op.name not in UNINITIALIZED
        if s.values and not all(_identical(a, b)
                                for a, b in zip(again, outs)):
            self.result(s, False, None, "random: eager's output depends on "
                        "the RNG seed, not comparable")
            return False
        s.expected = [o.detach() for o in outs]
        generator = torch.Generator().manual_seed(
            seed_of(self.task["entry"], self.task["dtype"], s.index))
        s.cotangents = [torch.randn(o.shape, dtype=o.dtype,
                                    generator=generator)
                        if o.is_floating_point() else None for o in outs]
        s.grad_inputs = [k for k, t in enumerate(inputs) if t.requires_grad]
        # The outputs eager differentiates (not native_layer_norm's mean
        # and rstd, say): the loss of both sides sums over these only.
        s.grad_outputs = [j for j, (o, c) in enumerate(zip(outs,
                                                           s.cotangents))
                          if c is not None and o.requires_grad]
        s.differentiable = bool(op.supports_autograd and s.grad_inputs and
                                s.grad_outputs)
        s.expected_grads = None
        if s.differentiable:
            loss = sum((outs[j] * s.cotangents[j]).sum()
                       for j in s.grad_outputs)
            grads = torch.autograd.grad(
                loss, [inputs[k] for k in s.grad_inputs], allow_unused=True)
            s.expected_grads = [torch.zeros_like(inputs[k]) if g is None
                                else g.detach()
                                for k, g in zip(s.grad_inputs, grads)]
        s.reference, s.reference_grads = self.reference(module, s, dtype)
        return True

    def reference(self, module, s, dtype):
        """Eager's float64 outputs and gradients of a float32 sample (its
        float tensors and cotangents in float64), or Nones where there is
        none (float64 samples, ops that refuse float64)."""
        import torch
        none = [None] * s.n_out, [None] * len(s.grad_inputs)
        if dtype != torch.float32 or not s.values:
            return none
        inputs = [t.detach().double().requires_grad_(t.requires_grad)
                  if t.is_floating_point() else t.detach().clone()
                  for t in s.tensors]
        try:
            torch.manual_seed(0)
            outs = module(*inputs)
            if len(outs) != s.n_out:
                return none
            grads = [None] * len(s.grad_inputs)
            if s.differentiable:
                loss = sum((outs[j] * s.cotangents[j].double()).sum()
                           for j in s.grad_outputs)
                grads = torch.autograd.grad(
                    loss, [inputs[k] for k in s.grad_inputs],
                    allow_unused=True)
                grads = [torch.zeros_like(inputs[k]) if g is None
                         else g.detach()
                         for k, g in zip(s.grad_inputs, grads)]
        except Exception:
            return none
        return [o.detach() for o in outs], grads

    def analyse(self, op, group):
        """Sets each sample's `ops`: the aten ops of its part of the
        group's decomposed export graph (told apart by SAMPLE_MARK). A
        group that does not export is taken sample by sample, and a sample
        that does not export is traced by make_fx through the Core ATen
        decompositions instead."""
        import torch
        import trace_mlir
        inputs = [t.detach() for s in group for t in s.tensors]
        try:
            with _deadline(self.timeout):
                graph = trace_mlir.export(_module(op, group, mark=True),
                                          tuple(inputs)).graph
        except Exception:
            graph = None
        if graph is None and len(group) > 1:
            for s in group:
                self.analyse(op, [s])
            return
        if graph is None:
            try:
                from torch._decomp import core_aten_decompositions
                from torch.fx.experimental.proxy_tensor import make_fx
                with fx_traceback_preserved():
                    graph = make_fx(_module(op, group, mark=True),
                                    decomposition_table=(
                                        core_aten_decompositions()))(
                        *inputs).graph
            except Exception:
                return
        ops = collections.defaultdict(set)
        seeded = collections.defaultdict(set)
        for node in graph.nodes:
            target = node.target
            if node.op != "call_function" or \
                    not isinstance(target, torch._ops.OpOverload):
                continue
            index = (node.meta.get("custom") or {}).get(SAMPLE_MARK)
            if index is None and len(group) == 1:
                index = group[0].index
            name = _op_name(target.namespace, target._opname,
                            target._overloadname)
            ops[index].add(name)
            if torch.Tag.nondeterministic_seeded in target.tags:
                seeded[index].add(name)
        for s in group:
            s.ops = sorted(ops[s.index])
            s.seeded = sorted(seeded[s.index])

    def resolve(self, op, group, dtype):
        """Compiles the group and checks it; splits it on a compile
        error. Once FAILED_ALONE samples of the task have failed on their
        own, a failing group's samples are all charged with its error
        instead (their pass counts are then lower bounds)."""
        self.emit(kind="group", indices=[s.index for s in group],
                  ops={s.index: s.ops for s in group})
        compiled, error = self.compile(op, group)
        if compiled is not None:
            error = self.check(compiled, group, dtype)
            if error is None:
                return
        missing = re.search(
            r"unsupported op 'torch\.ops\.(\w+)\.(\w+)\.(\w+)'", error)
        if missing:
            hit = [s for s in group if _op_name(*missing.groups()) in s.ops]
            if hit:
                for s in hit:
                    self.result(s, False, None, error)
                rest = [s for s in group if s not in hit]
                if rest:
                    self.resolve(op, rest, dtype)
                return
        if len(group) == 1:
            self.failed_alone += 1
            return self.result(group[0], False, None, error)
        if self.failed_alone >= FAILED_ALONE:
            for s in group:
                self.result(s, False, None, error, alone=False)
            return
        half = len(group) // 2
        self.resolve(op, group[:half], dtype)
        self.resolve(op, group[half:], dtype)

    def compile(self, op, group):
        import trace_mlir
        inputs = [t for s in group for t in s.fresh_inputs()]
        start = time.time()
        self.compiles += 1
        try:
            with _deadline(self.timeout):
                return trace_mlir.compile(_module(op, group), tuple(inputs),
                                          cache_dir=self.cache_dir), None
        except _Timeout:
            return None, f"compile timed out after {self.timeout} s"
        except Exception as e:
            return None, _compile_reason(e)
        finally:
            self.compile_s += time.time() - start

    def check(self, compiled, group, dtype):
        """Runs the compiled group and reports each sample's result; an
        error of the forward is returned instead (the group is split)."""
        import torch
        inputs = [s.fresh_inputs() for s in group]
        try:
            with _deadline(self.timeout):
                outs = compiled(*[t for ts in inputs for t in ts])
        except _Timeout:
            return f"run timed out after {self.timeout} s"
        except Exception as e:
            return f"run: {type(e).__name__}: {_first_line(e)}"
        if isinstance(outs, torch.Tensor):
            outs = (outs,)
        outs = list(outs)
        expected = sum(s.n_out for s in group)
        if len(outs) != expected:
            for s in group:
                self.result(s, False, None, f"forward mismatch ({len(outs)}"
                            f" outputs, eager has {expected})")
            return
        per_sample, k = [], 0
        for s in group:
            per_sample.append(outs[k:k + s.n_out])
            k += s.n_out
        forward = []
        by_reference = set()
        for i, (s, got) in enumerate(zip(group, per_sample)):
            bad = [(j, _compare(a, b, dtype, s.values, s.reference[j]))
                   for j, (a, b) in enumerate(zip(got, s.expected))]
            if any(why == REFERENCE for _, why in bad):
                by_reference.add(i)
            bad = [(j, why) for j, why in bad if why and why != REFERENCE]
            why = None
            if bad:
                why = (f"forward mismatch (output {bad[0][0]}: "
                       f"{bad[0][1]})")
            if bad and s.seeded:
                why = (f"random: torch.ops.aten.{s.seeded[0]} draws other "
                       "numbers than "
                       f"eager's, not comparable ({why})")
            forward.append(why)
        grads = {}
        differentiable = [i for i, s in enumerate(group) if s.differentiable]
        if differentiable:
            terms = [(per_sample[i][j] * group[i].cotangents[j]).sum()
                     for i in differentiable for j in group[i].grad_outputs
                     if per_sample[i][j].requires_grad]
            wrt = [inputs[i][k] for i in differentiable
                   for k in group[i].grad_inputs]
            try:
                with _deadline(self.timeout):
                    got = (torch.autograd.grad(sum(terms), wrt,
                                               allow_unused=True)
                           if terms else [None] * len(wrt))
                error = None
            except Exception as e:
                got = [None] * len(wrt)
                error = f"backward: {type(e).__name__}: {_first_line(e)}"
            j = 0
            for i in differentiable:
                s = group[i]
                why = error
                for n, (k, want) in enumerate(zip(s.grad_inputs,
                                                  s.expected_grads)):
                    g = got[j]
                    j += 1
                    if why:
                        continue
                    if g is None:
                        g = torch.zeros_like(want)
                    diff = _compare(g, want, dtype,
                                    reference=s.reference_grads[n])
                    if diff == REFERENCE:
                        by_reference.add(i)
                    elif diff:
                        why = f"grad of input {k} mismatch ({diff})"
                grads[i] = why
        for i, s in enumerate(group):
            grad_ok = None
            reason = forward[i]
            if s.differentiable:
                grad_ok = grads[i] is None
                reason = reason or grads[i]
            self.result(s, forward[i] is None, grad_ok, reason,
                        by_reference=i in by_reference and reason is None)


def worker_main(args):
    import warnings
    warnings.filterwarnings("ignore")
    worker = Worker(args.cache_dir, args.timeout)
    sys.stdout.write(json.dumps({"kind": "ready"}) + "\n")
    sys.stdout.flush()
    for line in sys.stdin:
        task = json.loads(line)
        try:
            worker.run(task)
        except Exception as e:
            worker.emit(kind="error",
                        reason=f"harness: {type(e).__name__}: "
                        f"{_first_line(e)}"[:300])
            worker.done()


# --------------------------------------------------------------------------
# The parent: tasks to workers, results merged, the table.
# --------------------------------------------------------------------------

class _Proc:
    def __init__(self, args, log):
        env = dict(os.environ, TORCH_CPP_LOG_LEVEL="ERROR",
                   OMP_NUM_THREADS="1")
        command = [sys.executable, os.path.abspath(__file__), "--worker",
                   "--cache-dir", args.cache_dir,
                   "--timeout", str(args.timeout)]
        self.p = subprocess.Popen(command, stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=log,
                                  env=env)
        self.task = None
        self.tasks = 0
        self.buffer = b""
        self.ready = False
        self.last = time.time()


def run_tasks(tasks, args, on_done):
    """Runs the tasks on args.jobs workers; a worker that dies or hangs
    fails the sample (or group) it was at and the task goes on in a new
    one, the samples it finished kept."""
    os.makedirs(args.cache_dir, exist_ok=True)
    log = open(os.path.join(args.cache_dir, "workers.log"), "a")
    pending = collections.deque(tasks)
    procs = []
    selector = selectors.DefaultSelector()

    def start():
        proc = _Proc(args, log)
        selector.register(proc.p.stdout, selectors.EVENT_READ, proc)
        procs.append(proc)

    def give(proc):
        if pending:
            proc.task = pending.popleft()
            proc.task.setdefault("state", {"results": {}, "skips": {},
                                           "group": None, "compiles": 0,
                                           "compile_s": 0.0,
                                           "prepare_s": 0.0, "count": 0,
                                           "error": None})
            payload = {k: v for k, v in proc.task.items() if k != "state"}
            payload["decided"] = sorted(
                list(proc.task["state"]["results"]) +
                list(proc.task["state"]["skips"]))
            proc.p.stdin.write((json.dumps(payload) + "\n").encode())
            proc.p.stdin.flush()
            proc.last = time.time()

    def lost(proc, why):
        """The worker died or hung: its current group's samples fail."""
        selector.unregister(proc.p.stdout)
        procs.remove(proc)
        with contextlib.suppress(Exception):
            proc.p.kill()
            proc.p.wait(5)
        task = proc.task
        if task is None:
            return
        state = task["state"]
        group = [i for i in (state["group"] or [])
                 if i not in state["results"]]
        if len(group) == 1:
            state["results"][group[0]] = dict(
                fwd=False, grad=None, reason=why, alone=True,
                ops=state.get("ops", {}).get(group[0], []))
        elif not group:
            state["error"] = why
            on_done(task)
            return
        else:
            task["singles"] = sorted(set(task.get("singles", [])) |
                                     set(group))
        state["group"] = None
        pending.appendleft(task)

    def loop():
        while procs:
            events = selector.select(timeout=5)
            for key, _ in events:
                proc = key.data
                chunk = os.read(proc.p.stdout.fileno(), 1 << 16)
                if not chunk:
                    code = proc.p.wait()
                    lost(proc, f"crash: the worker died ({code})"
                         if code >= 0 else
                         f"crash: {signal.Signals(-code).name}")
                    if pending or any(p.task for p in procs):
                        if pending:
                            start()
                    continue
                proc.last = time.time()
                proc.buffer += chunk
                while b"\n" in proc.buffer:
                    line, proc.buffer = proc.buffer.split(b"\n", 1)
                    try:
                        event = json.loads(line)
                    except ValueError:
                        continue
                    kind = event["kind"]
                    if kind == "ready":
                        proc.ready = True
                        give(proc)
                        continue
                    state = proc.task["state"]
                    if kind == "samples":
                        state["count"] = event["count"]
                    elif kind == "group":
                        state["group"] = event["indices"]
                        state["ops"] = {int(k): v
                                        for k, v in event["ops"].items()}
                    elif kind == "result":
                        state["results"][event["index"]] = {
                            k: event.get(k) for k in (
                                "fwd", "grad", "reason", "ops", "alone",
                                "by_reference")}
                    elif kind == "skip":
                        state["skips"][event["index"]] = event["reason"]
                    elif kind == "error":
                        state["error"] = event["reason"]
                    elif kind == "done":
                        state["compiles"] += event["compiles"]
                        state["compile_s"] += event["compile_s"]
                        state["prepare_s"] += event["prepare_s"]
                        on_done(proc.task)
                        proc.task = None
                        proc.tasks += 1
                        if proc.tasks < RECYCLE:
                            give(proc)
                if proc.ready and proc.task is None and (
                        not pending or proc.tasks >= RECYCLE):
                    if pending:
                        start()
                    selector.unregister(proc.p.stdout)
                    procs.remove(proc)
                    proc.p.stdin.close()
                    proc.p.wait()
            now = time.time()
            for proc in list(procs):
                limit = args.timeout + 60 if proc.ready else 300
                if now - proc.last > limit:
                    lost(proc, f"hang: no progress in {int(limit)} s")
                    if pending:
                        start()

    for _ in range(min(args.jobs, len(tasks))):
        start()
    try:
        loop()
    finally:
        for proc in procs:
            with contextlib.suppress(Exception):
                proc.p.kill()
        log.close()


def select_entries(op_db, args):
    import torch
    entries = []
    for op in op_db:
        if not any(op.supports_dtype(getattr(torch, d), "cpu")
                   for d in DTYPES):
            continue
        entries.append(op)
    names = {entry_name(op): op for op in entries}
    wanted = None
    if args.subset == "ci":
        wanted = list(CI_SUBSET)
    if args.ops:
        wanted = [w.strip() for w in args.ops.split(",") if w.strip()]
    if wanted is None:
        return entries
    chosen = []
    for w in wanted:
        found = ([op for op in entries if entry_name(op) == w] or
                 [op for op in entries if op.name == w])
        if not found:
            sys.exit(f"op_coverage: no OpInfo entry '{w}' taking "
                     f"{' or '.join(DTYPES)} on the CPU")
        chosen += [op for op in found if op not in chosen]
    return chosen


# What a random sample is charged to: no core op.
RANDOM = "(random)"
# What a sample torch.export cannot export is charged to: no op of ours.
EXPORT = "(export)"


def _failure_key(reason):
    """A failure without the figures that differ between samples."""
    return re.sub(r"max abs err [^);]*", "max abs err", reason)


def aggregate(results, core, complete):
    """Per core packet and per entry: samples tried, forward passes,
    gradient passes of the differentiable ones, the first failure."""
    overload_packet = {o: p for p, os_ in core.items() for o in os_}
    packets = {p: dict(tried=0, fwd=0, grad=0, diff=0, blocked=0,
                       reason=None, blocked_by=collections.Counter(),
                       overloads=set(), entries=set())
               for p in core}
    def reached_packets(r):
        return frozenset(overload_packet[o] for o in r["ops"]
                         if o in overload_packet)

    def named(r):
        """The op a failure names, as a packet (`amax`, or with its
        namespace where not aten's), if it is one of the sample's or not
        an aten op."""
        m = re.search(r"torch\.ops\.(\w+)\.(\w+)\.(\w+)", r["reason"])
        if not m:
            return None
        namespace, name, overload = m.groups()
        if namespace != "aten":
            return f"{namespace}.{name}"
        if _op_name(namespace, name, overload) in r["ops"]:
            return name
        return None

    # The core ops of the samples that fail in each way.
    failing = collections.defaultdict(set)
    for rec in results:
        for r in rec["results"].values():
            if r["reason"] and not r["reason"].startswith(("random",
                                                          "export:")) and \
                    not named(r) and reached_packets(r):
                failing[_failure_key(r["reason"])].add(reached_packets(r))

    def charged(r, reached):
        """The ops a failing sample is charged to: the op its error names;
        none for a random one; else the smallest sets of ops that fail
        the same way on their own, else all it reaches."""
        # An export failure is never an op of ours, even one it names; a
        # random op's own samples stay charged to it (its random path is
        # not compared, so it cannot pass on its other samples alone).
        if r["reason"].startswith("export:"):
            return {EXPORT}
        op = named(r)
        if op:
            return {op}
        if r["reason"].startswith("random"):
            return {RANDOM}
        key = _failure_key(r["reason"])
        smaller = [q for q in failing[key] if q <= reached]
        minimal = [q for q in smaller if not any(o < q for o in smaller)]
        return set().union(*minimal) if minimal else reached

    entries = {}
    for rec in results:
        e = entries.setdefault(rec["entry"], dict(
            tried=0, fwd=0, grad=0, diff=0, reason=None, skipped=0,
            grouped=0, dtypes=[], noncore=set(), core=set()))
        e["dtypes"].append(rec["dtype"])
        e["skipped"] += len(rec["skips"])
        for reason in rec["skips"].values():
            e.setdefault("skip_reason", reason)
        if rec["error"] and not e["reason"]:
            e["reason"] = f"{rec['error']} ({rec['dtype']})"
        for index in sorted(rec["results"], key=int):
            r = rec["results"][index]
            where = f"{rec['entry']} {rec['dtype']} sample {index}"
            e["tried"] += 1
            e["fwd"] += r["fwd"]
            e["grouped"] += not r.get("alone", True)
            if r["grad"] is not None:
                e["diff"] += 1
                e["grad"] += r["grad"]
            if r["reason"] and not e["reason"]:
                e["reason"] = f"{r['reason']} ({rec['dtype']} sample {index})"
            reached = set(reached_packets(r))
            for o in r["ops"]:
                if o in overload_packet:
                    packets[overload_packet[o]]["overloads"].add(o)
                    e["core"].add(o)
                else:
                    e["noncore"].add(o)
            blamed = charged(r, reached) if r["reason"] else reached
            for p in reached:
                pk = packets[p]
                pk["entries"].add(rec["entry"])
                if p not in blamed:
                    pk["blocked"] += 1
                    pk["blocked_by"]["/".join(sorted(blamed))] += 1
                    continue
                pk["tried"] += 1
                pk["fwd"] += r["fwd"]
                if r["grad"] is not None:
                    pk["diff"] += 1
                    pk["grad"] += r["grad"]
                if r["reason"] and not pk["reason"]:
                    pk["reason"] = f"{r['reason']} ({where})"
    for p, pk in packets.items():
        pk["pass"] = (pk["tried"] > 0 and pk["fwd"] == pk["tried"]
                      and pk["grad"] == pk["diff"])
        if pk["pass"]:
            continue
        if pk["tried"] == 0 and pk["blocked"]:
            by, n = pk["blocked_by"].most_common(1)[0]
            pk["reason"] = (
                f"blocked: its {pk['blocked']} samples are random, not "
                "comparable with eager" if by == RANDOM else
                f"blocked: torch.export cannot export its {pk['blocked']} "
                "samples" if by == EXPORT else
                f"blocked: its {pk['blocked']} samples all fail at "
                f"{'aten.' if '.' not in by else ''}{by} first")
        elif pk["tried"] == 0:
            pk["reason"] = ("no OpInfo sample reaches it" if complete
                            else "not reached by the entries run")
    for e in entries.values():
        e["pass"] = (e["tried"] > 0 and e["fwd"] == e["tried"]
                     and e["grad"] == e["diff"] and not e["reason"])
        if e["tried"] == 0 and not e["reason"]:
            e["reason"] = "no sample compared"
        if e["skipped"]:
            e["skip_note"] = (f"{e['skipped']} samples skipped: "
                              f"{e['skip_reason']}")
    return packets, entries


def _cell(text):
    return (text or "").replace("|", "\\|").replace("\n", " ")


def render(packets, entries, core, meta):
    """The markdown tables and the summary line."""
    lines = []
    selected_all = meta["selected_all"]
    shown = {p: pk for p, pk in packets.items()
             if selected_all or pk["tried"] or pk["blocked"]}
    passed = sum(pk["pass"] for pk in shown.values())
    lines.append("## Core ATen ops")
    lines.append("")
    lines.append("Ops are overload packets (`aten.add` counts add.Tensor, "
                 "add.Scalar, ...). samples: the samples charged to the op "
                 "among those that reach any of its core overloads; "
                 "forward and grad: how many of them pass (grad: of the "
                 "differentiable ones); blocked: samples that reach it but "
                 "fail on account of another op.")
    lines.append("")
    lines.append("| op | overloads reached | samples | forward | grad | "
                 "blocked | first failure |")
    lines.append("|---|---|---:|---:|---:|---:|---|")
    for p in sorted(shown):
        pk = shown[p]
        reached = ", ".join(sorted(o.split(".", 1)[1]
                                   for o in pk["overloads"]))
        lines.append(f"| {p} | {_cell(reached)} | {pk['tried']} | "
                     f"{pk['fwd']} | {pk['grad']}/{pk['diff']} | "
                     f"{pk['blocked']} | "
                     f"{'pass' if pk['pass'] else _cell(pk['reason'])} |")
    lines.append("")
    unreached = sorted(o for p, os_ in core.items() for o in os_
                       if o not in packets[p]["overloads"])
    if selected_all:
        lines.append("Core overloads no sample reaches (their packet may "
                     "pass by its others): " +
                     ", ".join(f"`{o}`" for o in unreached) + ".")
        lines.append("")
    lines.append("## OpInfo entries")
    lines.append("")
    lines.append("| entry | samples | forward | grad | core ops reached | "
                 "first failure |")
    lines.append("|---|---:|---:|---:|---|---|")
    for name in sorted(entries):
        e = entries[name]
        reached = ", ".join(sorted(e["core"]))
        note = "; " + _cell(e["skip_note"]) if e.get("skip_note") else ""
        lines.append(f"| {name} | {e['tried']} | {e['fwd']} | "
                     f"{e['grad']}/{e['diff']} | {_cell(reached)} | "
                     f"{'pass' if e['pass'] else _cell(e['reason'])}"
                     f"{note} |")
    lines.append("")
    epass = sum(e["pass"] for e in entries.values())
    lines.append(f"{epass} of {len(entries)} OpInfo entries pass")
    summary = f"{passed} of {len(shown)} core ops pass"
    if not selected_all:
        summary += (f" (the {len(shown)} of {len(core)} that the "
                    f"{len(entries)} entries run reach)")
    lines.append(summary)
    return lines, summary


def reasons_summary(packets, selected_all):
    """Failing core ops grouped by the kind of their first failure."""
    def kind(reason):
        reason = re.sub(r" \([^()]*sample \d+\)$", "", reason or "")
        m = re.match(r"unsupported op '(.*?)'", reason)
        if m:
            return f"unsupported op '{m.group(1)}'"
        for prefix in ("forward mismatch", "grad of input", "blocked",
                       "export", "crash", "hang", "compile timed out",
                       "random", "no OpInfo", "run:", "backward:"):
            if reason.startswith(prefix):
                return prefix
        return re.sub(r"\d+", "N", reason)[:120]
    groups = collections.Counter(kind(pk["reason"])
                                 for pk in packets.values()
                                 if not pk["pass"] and
                                 (pk["tried"] or pk["blocked"] or
                                  selected_all))
    return groups


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--subset", choices=["ci"])
    parser.add_argument("--ops", help="OpInfo entries, comma separated: a "
                        "full name (div.no_rounding_mode, softmax), else a "
                        "name stands for all its variants (div)")
    parser.add_argument("--dtypes", default=",".join(DTYPES))
    parser.add_argument("--max-samples", type=int, default=None,
                        help=f"samples per entry and dtype (all; "
                        f"{CI_MAX_SAMPLES} with --subset ci)")
    parser.add_argument("--group", type=int, default=GROUP,
                        help="samples compiled in one module")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--timeout", type=int, default=600,
                        help="seconds a compile or a run may take")
    parser.add_argument("--cache-dir", default=os.path.join(
        ROOT, "build", "op-coverage-cache"))
    parser.add_argument("--expect-pass", action="store_true",
                        help="exit 1 when an entry run fails")
    parser.add_argument("--results", help="write the raw results (JSON)")
    parser.add_argument("--from-results", help="tabulate a --results file "
                        "instead of running")
    parser.add_argument("--write-docs", action="store_true",
                        help="write docs/OpCoverage.md")
    parser.add_argument("--worker", action="store_true",
                        help=argparse.SUPPRESS)
    args = parser.parse_args()
    args.cache_dir = os.path.abspath(args.cache_dir)
    if args.worker:
        return worker_main(args)
    if args.subset == "ci" and args.max_samples is None:
        args.max_samples = CI_MAX_SAMPLES

    import warnings
    warnings.filterwarnings("ignore")
    core = core_ops()
    command = "bench/op_coverage.py " + " ".join(
        a for a in sys.argv[1:]
        if not a.startswith("--from-results") and a != args.from_results)
    if args.from_results:
        with _open_results(args.from_results, "rt") as f:
            saved = json.load(f)
        results, meta = saved["results"], saved["meta"]
    else:
        op_db = load_op_db()
        chosen = select_entries(op_db, args)
        dtypes = [d.strip() for d in args.dtypes.split(",")]
        for d in dtypes:
            if d not in DTYPES:
                sys.exit(f"op_coverage: --dtypes: {d} is not one of "
                         f"{', '.join(DTYPES)}")
        import torch
        tasks = [dict(entry=entry_name(op), dtype=d,
                      max_samples=args.max_samples, group=args.group)
                 for op in chosen for d in dtypes
                 if op.supports_dtype(getattr(torch, d), "cpu")]
        results = []
        start = time.time()

        def on_done(task):
            state = task["state"]
            rec = dict(entry=task["entry"], dtype=task["dtype"],
                       count=state["count"], error=state["error"],
                       compiles=state["compiles"],
                       compile_s=state["compile_s"],
                       prepare_s=state["prepare_s"],
                       results={str(k): v for k, v in
                                state["results"].items()},
                       skips={str(k): v for k, v in
                              state["skips"].items()})
            results.append(rec)
            bad = [r for r in rec["results"].values() if r["reason"]]
            print(f"[{len(results)}/{len(tasks)} {time.time() - start:.0f}s]"
                  f" {task['entry']} {task['dtype']}: "
                  f"{len(rec['results']) - len(bad)}/{len(rec['results'])} "
                  f"pass, {state['compiles']} compiles "
                  f"{state['compile_s']:.1f}s" +
                  (f"; {bad[0]['reason']}" if bad else
                   f"; {rec['error']}" if rec["error"] else ""),
                  file=sys.stderr, flush=True)
            if args.results and len(results) % 20 == 0:
                dump(results, meta)

        def dump(results, meta):
            with _open_results(args.results + ".tmp", "wt") as f:
                json.dump({"meta": meta, "results": results}, f)
            os.replace(args.results + ".tmp", args.results)

        meta = dict(command=command, selected_all=not (args.ops or
                                                       args.subset),
                    entries=len(chosen), dtypes=dtypes,
                    max_samples=args.max_samples, group=args.group,
                    torch=torch.__version__,
                    checkout=_checkout(),
                    date=datetime.date.today().isoformat())
        meta["planned"] = [[t["entry"], t["dtype"]] for t in tasks]

        def interrupt(signum, frame):
            raise KeyboardInterrupt()
        signal.signal(signal.SIGTERM, interrupt)
        try:
            run_tasks(tasks, args, on_done)
        except KeyboardInterrupt:
            print("op_coverage: interrupted; tabulating the tasks done",
                  file=sys.stderr)
        meta["wall_s"] = round(time.time() - start)
        if args.results:
            dump(results, meta)
    done = {(r["entry"], r["dtype"]) for r in results}
    complete = meta["selected_all"] and all(
        tuple(t) in done for t in meta.get("planned", []))
    packets, entries = aggregate(results, core, complete)
    lines, summary = render(packets, entries, core, meta)
    compiles = sum(r["compiles"] for r in results)
    compile_s = sum(r["compile_s"] for r in results)
    groups = reasons_summary(packets, meta["selected_all"])
    footer = [f"{len(results)} (entry, dtype) tasks in {meta.get('wall_s')}"
              f" s of wall time, {compiles} compiles, "
              f"{compile_s / max(compiles, 1):.2f} s per compile (export "
              "and trace-compile, as timed in the workers), "
              f"{sum(r.get('prepare_s', 0) for r in results):.0f} s in "
              "the workers for samples, eager runs and op analysis"]
    by_reference = sum(bool(r.get("by_reference")) for rec in results
                       for r in rec["results"].values())
    footer.append(f"{by_reference} float32 samples pass by the float64 "
                  "reference: a value of theirs misses assert_close's "
                  "tolerance against eager's float32 but is as near eager's "
                  "float64 value as eager's float32 one is")
    if groups:
        footer.append("Failing core ops by first failure: " + "; ".join(
            f"{k}: {n}" for k, n in groups.most_common()))
    print("\n".join(lines[:-1] + [""] + footer + ["", lines[-1]]))
    if args.write_docs:
        made_by = meta["command"]
        if "--write-docs" not in made_by.split():
            made_by += " --write-docs"
        write_docs(lines, footer, meta, made_by, results)
    if args.expect_pass:
        failing = [n for n, e in entries.items() if not e["pass"]]
        if failing:
            print(f"op_coverage: --expect-pass: {len(failing)} entries "
                  f"fail: {', '.join(sorted(failing))}", file=sys.stderr)
            return 1
    return 0


def _open_results(path, mode):
    """A --results file: gzip-compressed where its name says .gz (with or
    without the .tmp of a file being written)."""
    gz = path.removesuffix(".tmp").endswith(".gz")
    return gzip.open(path, mode) if gz else open(path, mode)


def _checkout():
    """The commit of the checkout, and whether it had changes."""
    try:
        return subprocess.run(
            ["git", "-C", ROOT, "describe", "--always", "--dirty"],
            capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def write_docs(lines, footer, meta, command, results):
    scope = ("every OpInfo entry taking float32 or float64 on the CPU"
             if meta["selected_all"] else
             f"the {meta['entries']} OpInfo entries selected")
    samples = ("all samples" if meta["max_samples"] is None else
               f"the first {meta['max_samples']} samples")
    done = {(r["entry"], r["dtype"]) for r in results}
    missing = [f"{e} ({d})" for e, d in meta.get("planned", [])
               if (e, d) not in done]
    if missing:
        shown = ", ".join(missing[:8])
        if len(missing) > 8:
            shown += f" and {len(missing) - 8} more"
        scope = (f"a partial run: {len(done)} of the "
                 f"{len(meta['planned'])} (entry, dtype) tasks of {scope} "
                 f"(not run: {shown})")
    head = [
        "# Core ATen op coverage",
        "",
        "<!-- Generated by bench/op_coverage.py; do not edit. -->",
        "",
        "Generated by `.venv/bin/python " + command.strip() + "` "
        f"(PyTorch {meta['torch']}, checkout {meta.get('checkout')}); do "
        "not edit by hand, run it again.",
        "",
        f"Scope: {scope}, {samples} of each in "
        f"{' and '.join(meta['dtypes'])}. Each sample's op is compiled by "
        "`trace_mlir.compile` and its forward and, where differentiable, "
        "every input's gradient under a random cotangent compared with "
        "eager (assert_close's tolerances in float32, 1e-7 in float64). "
        "A float32 value that misses its tolerance passes if it is as "
        "near eager's float64 value as eager's float32 one is: "
        "|ours - eager64| <= atol + rtol |eager64| + |eager32 - eager64| "
        "elementwise (the footer counts these samples).",
        "",
        "A core op (an overload packet) passes when at least one sample "
        "reaches it and every sample charged to it passes forward and "
        "backward in both dtypes. A failing sample is charged to every "
        "core op it reaches, except that an error naming one of its aten "
        "ops (\"unsupported op 'T'\", a handler's refusal) is charged to "
        "that op, and an error that samples reaching fewer of its ops "
        "fail with too is charged to the smallest such sets; to its other "
        "ops the sample is blocked, not tried. Mismatches are charged to "
        "every op the sample reaches. A sample torch.export cannot export "
        "is charged to no op (the entries table shows it failing). The "
        "OpInfo table shows each failure "
        "where it happened. The docstring of `bench/op_coverage.py` gives "
        "the method.",
        "",
    ]
    summary = lines[-1]
    body = head + [f"**{summary}**", ""] + lines[:-1] + [""] + footer + [""]
    with open(os.path.join(ROOT, "docs", "OpCoverage.md"), "w") as f:
        f.write("\n".join(body))


if __name__ == "__main__":
    sys.exit(main())
