#!/usr/bin/env python3
"""Forward (and with --grad, gradient) numerics of a whole model on the CPU
backend against PyTorch.

Builds one of bench/models.py's models twice (trace IR and torch.nn.Module,
same parameters), draws the input with a fixed seed, and runs the trace IR
with `trace-run --expect` at rtol 1e-4 / atol 1e-5 against the module's
output in float32. With --grad, the IR goes through `trace-opt
--trace-autodiff` first and @forward_grad's gradient of the input and of
every parameter, for a random output cotangent, is compared with
torch.autograd's.

    model_numerics.py --model gpt_block --trace-opt trace-opt \
        --trace-run trace-run --workdir DIR [--grad] [--threads N]
        [--out-dir DIR]
"""

import argparse
import os
import subprocess
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..", "..", "bench"))
import models  # noqa: E402

CONFIGS = {
    "gpt_block": lambda: models.gpt_block(B=2, T=16, C=64, H=4, layers=2),
    # Large enough for the OpenMP team: its loop nests pass
    # trace-parallel-loops' min-work and its matmuls split across threads.
    "gpt_block_wide": lambda: models.gpt_block(B=4, T=128, C=128, H=4,
                                               layers=2),
    "mlp": lambda: models.mlp(B=8, widths=(32, 96, 64, 16)),
    "elementwise_chain": lambda: models.elementwise_chain(N=4096, depth=6),
}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", required=True, choices=sorted(CONFIGS))
    parser.add_argument("--trace-run", required=True)
    parser.add_argument("--workdir", required=True)
    parser.add_argument("--rtol", type=float, default=1e-4)
    parser.add_argument("--atol", type=float, default=1e-5)
    parser.add_argument("--grad", action="store_true")
    parser.add_argument("--trace-opt", default="trace-opt")
    parser.add_argument("--threads", type=int,
                        help="run trace-run on an OpenMP team of this many "
                             "threads (OMP_NUM_THREADS)")
    parser.add_argument("--out-dir",
                        help="also write trace-run's results to this "
                             "directory")
    parser.add_argument("--same-as",
                        help="with --out-dir: every result must be bitwise "
                             "the one in this directory (another run's "
                             "--out-dir)")
    args = parser.parse_args()
    os.makedirs(args.workdir, exist_ok=True)

    text, module, shape = CONFIGS[args.model]()
    src = os.path.join(args.workdir, f"{args.model}.mlir")
    with open(src, "w") as f:
        f.write(text)
    gen = torch.Generator().manual_seed(1234)
    x = (torch.rand(shape, generator=gen) * 2 - 1).requires_grad_(args.grad)
    tensors = [("x", x)] + list(module.named_parameters())
    out = module(x)
    cmd = [args.trace_run, src, "--quiet", f"--rtol={args.rtol}", f"--atol={args.atol}"]
    expected = {"out": out.detach()}
    if args.grad:
        cot = torch.rand(out.shape, generator=gen) * 2 - 1
        grads = torch.autograd.grad(out, [t for _, t in tensors], cot)
        expected.update({f"grad.{name}": g for (name, _), g in zip(tensors, grads)})
        tensors.append(("cot.out", cot))
        grad_src = os.path.join(args.workdir, f"{args.model}_grad.mlir")
        subprocess.run([args.trace_opt, src, "--trace-autodiff", "-o", grad_src], check=True)
        cmd = [args.trace_run, grad_src, "--entry=forward_grad", "--quiet",
               f"--rtol={args.rtol}", f"--atol={args.atol}"]
    for name, t in tensors:
        path = os.path.join(args.workdir, f"{name}.npy")
        np.save(path, t.detach().numpy())
        cmd.append(f"--arg={name}={path}")
    for name, t in expected.items():
        ref = os.path.join(args.workdir, f"expected.{name}.npy")
        np.save(ref, t.numpy())
        cmd.append(f"--expect={name}={ref}")
    env = dict(os.environ)
    if args.threads:
        env["OMP_NUM_THREADS"] = str(args.threads)
    if args.out_dir:
        cmd.append(f"--out-dir={args.out_dir}")
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
    sys.stdout.write(proc.stdout)
    sys.stderr.write(proc.stderr)
    status = "match" if proc.returncode == 0 else "DO NOT match"
    what = "output and gradients" if args.grad else "output"
    print(f"{args.model}: {len(tensors)} inputs, {len(expected)} checked values "
          f"({what}) {status} PyTorch (rtol {args.rtol}, atol {args.atol})")
    if proc.returncode == 0 and args.same_as:
        differ = [n for n in sorted(os.listdir(args.same_as))
                  if n.endswith(".npy") and not np.array_equal(
                      np.load(os.path.join(args.out_dir, n)),
                      np.load(os.path.join(args.same_as, n)))]
        if differ:
            print(f"{args.model}: {len(differ)} results differ from "
                  f"{args.same_as}'s: {', '.join(differ)}")
            sys.exit(1)
        print(f"{args.model}: every result bitwise {args.same_as}'s")
    sys.exit(proc.returncode)


if __name__ == "__main__":
    main()
