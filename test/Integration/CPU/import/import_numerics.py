#!/usr/bin/env python3
"""A TorchScript fixture imported by trace-import and run by trace-run equals
PyTorch on the same inputs; with --grad, so do the gradients of every
parameter taken by trace-autodiff.

The eager reference is scripts/fixture_models.py's module with the .pt's own
weights (state_dict round trip). Dropout stays in training mode: the eager
module's F.dropout is replaced, for the reference only, by the mask the
imported Philox op draws (same seed, same offsets in call order), so the
comparison is exact rather than statistical.

    import_numerics.py --fixture examples/models/gpt.pt --trace-import BIN \
        --trace-opt BIN --trace-run BIN --workdir DIR [--grad] \
        [--checkpoint-modules REGEX] [--rtol R] [--atol A]
"""

import argparse
import math
import os
import subprocess
import sys

import numpy as np
import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", "..", "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
sys.path.insert(0, os.path.join(HERE, ".."))
import fixture_models  # noqa: E402
from op_numerics import random_reference  # noqa: E402

SEED = 20261129


class PhiloxDropout:
    """F.dropout drawing trace.random_uniform's numbers: keep where u >= p,
    scale by 1 / (1 - p); offsets advance by ceil(numel / 4) per call, as the
    importer assigns them."""

    def __init__(self, seed):
        self.seed, self.offset = seed, 0

    def __call__(self, x, p=0.5, training=True, inplace=False):
        if not training or p == 0.0:
            return x
        u = random_reference(self.seed, self.offset, tuple(x.shape), x.dtype)
        self.offset += math.ceil(x.numel() / 4)
        return torch.where(u >= p, x * (1.0 / (1.0 - p)), torch.zeros((), dtype=x.dtype))


def read_shapes(path):
    with open(path) as f:
        return [line.strip() for line in f if line.strip()]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--fixture", required=True, nargs="+")
    parser.add_argument("--trace-import", required=True)
    parser.add_argument("--trace-opt", default="trace-opt")
    parser.add_argument("--trace-run", required=True)
    parser.add_argument("--workdir", required=True)
    parser.add_argument("--grad", action="store_true")
    parser.add_argument("--checkpoint-modules", default="")
    parser.add_argument("--rtol", type=float, default=1e-5)
    parser.add_argument("--atol", type=float, default=1e-6)
    args = parser.parse_args()
    failed = [f for f in args.fixture if check(f, args) != 0]
    print(f"{len(args.fixture) - len(failed)} of {len(args.fixture)} fixtures "
          f"match PyTorch" + (f"; FAILED: {' '.join(failed)}" if failed else ""))
    sys.exit(1 if failed else 0)


def check(fixture, args):
    """Imports, runs and compares one fixture; returns trace-run's status."""
    name = os.path.splitext(os.path.basename(fixture))[0]
    workdir = os.path.join(args.workdir, name)
    os.makedirs(workdir, exist_ok=True)
    shapes = read_shapes(os.path.splitext(fixture)[0] + ".shapes")
    module, inputs = fixture_models.build(name)
    saved = torch.jit.load(fixture)
    module.load_state_dict(saved.state_dict())

    # Inputs: fresh random values of the recorded shapes (integer inputs
    # drawn below the smallest embedding size that the tracing inputs use).
    gen = torch.Generator().manual_seed(SEED)
    feeds = {}
    for key, example in inputs.items():
        if example.is_floating_point():
            feeds[key] = (torch.rand(example.shape, generator=gen) * 2 - 1).to(example.dtype)
        elif example.dtype == torch.bool:
            feeds[key] = torch.rand(example.shape, generator=gen) < 0.5
        else:
            high = int(example.max()) + 1
            feeds[key] = torch.randint(0, high, example.shape, generator=gen,
                                       dtype=example.dtype)

    mlir = os.path.join(workdir, f"{name}.mlir")
    cmd = [args.trace_import, fixture, "-o", mlir]
    cmd += [f"--input-shape={s}" for s in shapes]
    if args.checkpoint_modules:
        cmd.append(f"--checkpoint-modules={args.checkpoint_modules}")
    subprocess.run(cmd, check=True)

    # The imported function's arguments: inputs, then state_dict order
    # (parameters and buffers, `_checkpoint_wrapped_module.` dropped).
    tensors = dict(feeds)
    params = {}
    for key, t in module.state_dict(keep_vars=True).items():
        clean = key.replace(fixture_models.WRAPPER_PREFIX, "")
        tensors[clean] = t
        if isinstance(t, torch.nn.Parameter):
            params[clean] = t

    # Eager checkpointing would recompute each wrapped block in backward and
    # draw its dropout numbers twice; the reference runs the blocks plainly
    # (same values, and the gradients checkpointing must reproduce).
    for sub in module.modules():
        if type(sub).__name__ == "CheckpointWrapper":
            sub.checkpoint_fn = lambda m, *a, **k: m(*a, **k)
    # The same for torch.utils.checkpoint calls in the models' code, when
    # the model has dropout; without, the reference is PyTorch's own
    # checkpointing (use_reentrant=False, as the models call it).
    has_dropout = any(isinstance(sub, torch.nn.Dropout) and sub.p > 0
                      for sub in module.modules())
    real_checkpoint = fixture_models.checkpoint
    if has_dropout:
        fixture_models.checkpoint = lambda fn, *a, use_reentrant=None, **k: fn(*a, **k)

    dropout = PhiloxDropout(SEED)
    real_dropout = F.dropout
    F.dropout = dropout
    try:
        out = module(*feeds.values())
        src, entry = mlir, "forward"
        expected = {"result0": out.detach()}
        if args.grad:
            grads = torch.autograd.grad(out, list(params.values()), allow_unused=True)
    finally:
        F.dropout = real_dropout
        fixture_models.checkpoint = real_checkpoint

    if args.grad:
        for (key, t), g in zip(params.items(), grads):
            expected[f"grad.{key}"] = g if g is not None else torch.zeros_like(t)
        src = os.path.join(workdir, f"{name}_grad.mlir")
        subprocess.run([args.trace_opt, mlir, "--trace-autodiff", "-o", src], check=True)
        entry = "forward_grad"
        tensors["cot.result0"] = torch.ones_like(out)

    run = [args.trace_run, src, f"--entry={entry}", "--quiet",
           f"--rtol={args.rtol}", f"--atol={args.atol}"]
    for key, t in tensors.items():
        path = os.path.join(workdir, f"arg.{key}.npy")
        np.save(path, np.array(t.detach().numpy(), order="C"))
        run.append(f"--arg={key}={path}")
    if dropout.offset or "dropout" in open(mlir).read():
        path = os.path.join(workdir, "arg.seed.npy")
        np.save(path, np.array(SEED, dtype=np.int64))
        run.append(f"--arg=seed={path}")
    for key, t in expected.items():
        path = os.path.join(workdir, f"expected.{key}.npy")
        np.save(path, np.array(t.detach().numpy(), order="C"))
        run.append(f"--expect={key}={path}")
    proc = subprocess.run(run, capture_output=True, text=True)
    sys.stdout.write(proc.stdout)
    sys.stderr.write(proc.stderr)
    what = "loss and parameter gradients" if args.grad else "output"
    status = "match" if proc.returncode == 0 else "DO NOT match"
    print(f"{name}: {len(expected)} values ({what}, {dropout.offset} dropout "
          f"counters) {status} PyTorch (rtol {args.rtol}, atol {args.atol})")
    return proc.returncode


if __name__ == "__main__":
    main()
