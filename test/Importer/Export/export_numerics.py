#!/usr/bin/env python3
"""A .pt2 fixture imported by trace-import and run by trace-run equals
PyTorch on the same inputs; with --grad, so do the gradients of every
parameter taken by trace-autodiff.

The eager reference is scripts/fixture_models.py's module with the archive's
own weights (`torch.export.load(...).state_dict`), on fixed random inputs;
with --reference=program, the archive's own program
(`torch.export.load(...).module()`, for the generator's models), whose
buffer updates are compared too.
Dropout stays in training mode: the eager module's F.dropout draws, for the
reference only, the numbers of the imported Philox op (same seed, offsets in
call order; test/Integration/CPU/import/import_numerics.py's PhiloxDropout),
so a mask that differed in one element would fail the comparison.

    export_numerics.py --fixture test/Importer/Export/Inputs/mlp.pt2 \
        --trace-import BIN --trace-opt BIN --trace-run BIN --workdir DIR \
        [--grad] [--reference=program [--input-shape NAME=DxDxDTYPE]]
        [--rtol R] [--atol A]
"""

import argparse
import os
import subprocess
import sys

import numpy as np
import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
sys.path.insert(0, os.path.join(ROOT, "test", "Integration", "CPU", "import"))
sys.path.insert(0, os.path.join(ROOT, "test", "Integration", "CPU"))
import fixture_models  # noqa: E402
from import_numerics import PhiloxDropout  # noqa: E402

SEED = 20261206


def program_reference(fixture, args):
    """The archive's program as the eager module; example inputs of the
    shapes --input-shape gives (else the export's); the buffers it writes."""
    program = torch.export.load(fixture)
    module = program.module()
    names = program.graph_signature.user_inputs
    inputs = dict(zip(names, program.example_inputs[0]))
    for spec in args.input_shape:
        key, text = spec.split("=")
        shape = [int(d) for d in text.split("x")[:-1]]
        inputs[key] = torch.zeros(shape, dtype=inputs[key].dtype)
    mutated = list(program.graph_signature.buffers_to_mutate.values())
    return module, inputs, mutated


def check(fixture, args):
    name = os.path.splitext(os.path.basename(fixture))[0]
    workdir = os.path.join(args.workdir, name)
    os.makedirs(workdir, exist_ok=True)
    mutated = []
    if args.reference == "program":
        module, inputs, mutated = program_reference(fixture, args)
    else:
        module, inputs = fixture_models.build(name)
        module.load_state_dict(torch.export.load(fixture).state_dict)

    gen = torch.Generator().manual_seed(SEED)
    feeds = {}
    for key, example in inputs.items():
        if example.is_floating_point():
            feeds[key] = (torch.rand(example.shape, generator=gen) * 2 - 1
                          ).to(example.dtype)
        else:
            high = int(example.max()) + 1
            feeds[key] = torch.randint(0, high, example.shape, generator=gen,
                                       dtype=example.dtype)

    mlir = os.path.join(workdir, f"{name}.mlir")
    subprocess.run([args.trace_import, fixture, "-o", mlir]
                   + [f"--input-shape={spec}" for spec in args.input_shape],
                   check=True)

    # The function's arguments: user inputs, then parameters and buffers by
    # module path (CheckpointWrapper's segment left out).
    tensors = dict(feeds)
    params = {}
    for key, t in module.state_dict(keep_vars=True).items():
        clean = key.replace(fixture_models.WRAPPER_PREFIX, "")
        # The arguments' values before the eager step writes the buffers.
        tensors[clean] = t if isinstance(t, torch.nn.Parameter) else t.clone()
        if isinstance(t, torch.nn.Parameter):
            params[clean] = t

    # The reference runs wrapped blocks plainly: checkpointing would draw
    # their dropout numbers again in the backward.
    for sub in module.modules():
        if type(sub).__name__ == "CheckpointWrapper":
            sub.checkpoint_fn = lambda m, *a, **k: m(*a, **k)
    dropout = PhiloxDropout(SEED)
    real_dropout = F.dropout
    F.dropout = dropout
    try:
        out = module(*feeds.values())
        expected = {"result0": out.detach()}
        buffers = dict(module.named_buffers())
        for key in mutated:
            expected[key.replace(fixture_models.WRAPPER_PREFIX, "")] = \
                buffers[key].detach().clone()
        if args.grad:
            grads = torch.autograd.grad(out, list(params.values()),
                                        allow_unused=True)
    finally:
        F.dropout = real_dropout

    src, entry = mlir, "forward"
    if args.grad:
        for (key, t), g in zip(params.items(), grads):
            expected[f"grad.{key}"] = g if g is not None else torch.zeros_like(t)
        src = os.path.join(workdir, f"{name}_grad.mlir")
        subprocess.run([args.trace_opt, mlir, "--trace-autodiff", "-o", src],
                       check=True)
        entry = "forward_grad"
        tensors["cot.result0"] = torch.ones_like(out)

    run = [args.trace_run, src, f"--entry={entry}", "--quiet",
           f"--rtol={args.rtol}", f"--atol={args.atol}"]
    for key, t in tensors.items():
        path = os.path.join(workdir, f"arg.{key}.npy")
        np.save(path, np.array(t.detach().numpy(), order="C"))
        run.append(f"--arg={key}={path}")
    if dropout.offset:
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
    what = "loss and parameter gradients" if args.grad else "loss"
    if mutated:
        what += " and buffer updates"
    status = "match" if proc.returncode == 0 else "DO NOT match"
    print(f"{name}.pt2: {len(expected)} values ({what}, {dropout.offset} "
          f"dropout counters) {status} PyTorch (rtol {args.rtol}, atol "
          f"{args.atol})")
    return proc.returncode


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--fixture", required=True, nargs="+")
    parser.add_argument("--trace-import", required=True)
    parser.add_argument("--trace-opt", default="trace-opt")
    parser.add_argument("--trace-run", required=True)
    parser.add_argument("--workdir", required=True)
    parser.add_argument("--grad", action="store_true")
    parser.add_argument("--reference", choices=["model", "program"],
                        default="model")
    parser.add_argument("--input-shape", action="append", default=[])
    parser.add_argument("--rtol", type=float, default=1e-5)
    parser.add_argument("--atol", type=float, default=1e-6)
    args = parser.parse_args()
    failed = sum(check(f, args) != 0 for f in args.fixture)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
