#!/usr/bin/env python3
"""cross_entropy with a -inf logit (a masked-out class) stays finite, as in
PyTorch: the imported cross_entropy fixture run by trace-run on logits with
column 5 set to -inf equals F.cross_entropy (rtol 1e-5).

    inf_logits.py --trace-import BIN --trace-run BIN --workdir DIR
"""

import argparse
import os
import subprocess
import sys

import numpy as np
import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURE = os.path.join(HERE, "..", "..", "..", "Importer", "TorchScript", "Inputs", "ops",
                       "cross_entropy")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--trace-import", required=True)
    parser.add_argument("--trace-run", required=True)
    parser.add_argument("--workdir", required=True)
    args = parser.parse_args()
    os.makedirs(args.workdir, exist_ok=True)
    mlir = os.path.join(args.workdir, "cross_entropy.mlir")
    subprocess.run([args.trace_import, FIXTURE + ".pt", "--input-shapes-file",
                    FIXTURE + ".shapes", "-o", mlir], check=True)
    gen = torch.Generator().manual_seed(7)
    x = torch.randn(4, 10, generator=gen)
    x[:, 5] = float("-inf")
    target = torch.tensor([0, 3, 9, 1])
    expected = F.cross_entropy(x, target)
    assert torch.isfinite(expected)
    paths = {}
    for name, t in [("x", x), ("target", target), ("expected", expected)]:
        paths[name] = os.path.join(args.workdir, name + ".npy")
        np.save(paths[name], t.numpy())
    proc = subprocess.run([args.trace_run, mlir, f"--arg=x={paths['x']}",
                           f"--arg=target={paths['target']}",
                           f"--expect=result0={paths['expected']}",
                           "--rtol=1e-5", "--atol=1e-6"], capture_output=True, text=True)
    sys.stdout.write(proc.stdout)
    sys.stderr.write(proc.stderr)
    print(f"cross_entropy with a -inf logit: torch {expected.item():.6f}, "
          f"{'match' if proc.returncode == 0 else 'DO NOT match'}")
    sys.exit(proc.returncode)


if __name__ == "__main__":
    main()
