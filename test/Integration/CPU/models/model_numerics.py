#!/usr/bin/python3
"""Forward numerics of a whole model on the CPU backend against PyTorch.

Builds one of bench/models.py's models twice (trace IR and torch.nn.Module,
same parameters), draws the input with a fixed seed, and runs the trace IR
with `trace-run --expect` at rtol 1e-4 / atol 1e-5 against the module's
output in float32.

    model_numerics.py --model gpt_block --trace-run trace-run --workdir DIR
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
    args = parser.parse_args()
    os.makedirs(args.workdir, exist_ok=True)

    text, module, shape = CONFIGS[args.model]()
    src = os.path.join(args.workdir, f"{args.model}.mlir")
    with open(src, "w") as f:
        f.write(text)
    gen = torch.Generator().manual_seed(1234)
    x = torch.rand(shape, generator=gen) * 2 - 1
    with torch.no_grad():
        expected = module(x)
    cmd = [args.trace_run, src, "--quiet", f"--rtol={args.rtol}", f"--atol={args.atol}"]
    tensors = [("x", x)] + list(module.named_parameters())
    for name, t in tensors:
        path = os.path.join(args.workdir, f"{name}.npy")
        np.save(path, t.detach().numpy())
        cmd.append(f"--arg={name}={path}")
    ref = os.path.join(args.workdir, "expected.npy")
    np.save(ref, expected.numpy())
    cmd.append(f"--expect=out={ref}")
    proc = subprocess.run(cmd, capture_output=True, text=True)
    sys.stdout.write(proc.stdout)
    sys.stderr.write(proc.stderr)
    status = "matches" if proc.returncode == 0 else "DOES NOT match"
    print(f"{args.model}: {len(tensors)} inputs, output {list(expected.shape)} {status} "
          f"PyTorch (rtol {args.rtol}, atol {args.atol})")
    sys.exit(proc.returncode)


if __name__ == "__main__":
    main()
