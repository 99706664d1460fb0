#!/usr/bin/python3
"""@f_fwd then @f_bwd give exactly @f_grad's results.

Runs trace-autodiff on a module, then with trace-run: @forward_grad on
inputs drawn from a seed (everything kept live), @forward_fwd on the same
inputs, and @forward_bwd on what @forward_fwd saved plus the same output
cotangent. The outputs of @forward_fwd and the gradients of @forward_bwd
must equal @forward_grad's bit for bit (rtol 0, atol 0): recomputing a
checkpoint region, dropout's Philox mask included, gives the same numbers.

    split_numerics.py --input model.mlir --trace-opt trace-opt \\
        --trace-run trace-run --workdir DIR
"""

import argparse
import os
import subprocess
import sys

import numpy as np


def run(cmd):
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        sys.stderr.write(" ".join(cmd) + "\n" + proc.stdout + proc.stderr)
        sys.exit(1)
    return proc.stdout + proc.stderr


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--input", required=True)
    parser.add_argument("--trace-opt", required=True)
    parser.add_argument("--trace-run", required=True)
    parser.add_argument("--workdir", required=True)
    parser.add_argument("--seed", default="3")
    args = parser.parse_args()
    d = args.workdir
    os.makedirs(d, exist_ok=True)
    grad_mlir = os.path.join(d, "grad.mlir")
    run([args.trace_opt, args.input, "--trace-autodiff", "-o", grad_mlir])

    joint = os.path.join(d, "joint")
    run([args.trace_run, grad_mlir, "--entry=forward_grad", "--quiet",
         f"--random-inputs={args.seed}", f"--out-dir={joint}"])
    names = sorted(os.listdir(os.path.join(joint, "inputs")))
    inputs = {n[:-4]: os.path.join(joint, "inputs", n) for n in names}

    fwd = os.path.join(d, "fwd")
    run([args.trace_run, grad_mlir, "--entry=forward_fwd", "--quiet", f"--out-dir={fwd}"]
        + [f"--arg={n}={p}" for n, p in inputs.items() if not n.startswith("cot.")])
    saved = sorted(n[:-4] for n in os.listdir(fwd) if n.startswith("saved."))

    expect = [f"--expect={n[:-4]}={os.path.join(joint, n)}"
              for n in os.listdir(joint) if n.startswith("grad.")]
    run([args.trace_run, grad_mlir, "--entry=forward_bwd", "--quiet", "--rtol=0", "--atol=0"]
        + [f"--arg={n}={os.path.join(fwd, n + '.npy')}" for n in saved]
        + [f"--arg={n}={p}" for n, p in inputs.items() if n.startswith("cot.")] + expect)

    outputs = [n for n in os.listdir(joint) if n.endswith(".npy") and not n.startswith("grad.")]
    for n in outputs:
        a, b = np.load(os.path.join(joint, n)), np.load(os.path.join(fwd, n))
        if not np.array_equal(a, b):
            sys.exit(f"@forward_fwd's {n} differs from @forward_grad's")
    print(f"{os.path.basename(args.input)}: {len(saved)} saved values; @forward_fwd's "
          f"{len(outputs)} outputs and @forward_bwd's {len(expect)} gradients equal "
          f"@forward_grad's exactly")


if __name__ == "__main__":
    main()
