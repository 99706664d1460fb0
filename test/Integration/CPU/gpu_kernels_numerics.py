#!/usr/bin/env python3
"""The GPU pipeline's kernels compute what the CPU pipeline computes.

For every public function of a module (or those named by `--entry`),
runs trace-run twice on the same inputs drawn from a seed:

* the reference: trace-run's CPU pipeline;
* kernels: `trace-run --gpu-kernels`, the kernels trace-gpu-pipeline
  forms (one per fusion or linalg op, its 1-D grid, guards and block
  reductions), each run as loops over its blocks and threads on the CPU.

and compares every result within `--rtol`/`--atol`, by default the f32
tolerance of the GPU check runners (make_runner.py): a block reduction
adds in another order than the CPU's loop (a sum of 1000 values in
[-1, 1) differs by up to 4e-5). Prints one line per function.

    gpu_kernels_numerics.py --trace-run BIN --input F [--input ...] --workdir DIR
        [--entry NAME ...] [--seed N] [--rtol R] [--atol A]
        [--kernels-flag=FLAG ...]
"""

import argparse
import glob
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from npy_compare import run, worst_ratio  # noqa: E402


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--trace-run", required=True)
    parser.add_argument("--input", action="append", required=True)
    parser.add_argument("--workdir", required=True)
    parser.add_argument("--entry", action="append")
    parser.add_argument("--seed", default="3")
    parser.add_argument("--rtol", type=float, default=1e-4)
    parser.add_argument("--atol", type=float, default=1e-4)
    parser.add_argument("--kernels-flag", action="append", default=[],
                        help="another trace-run flag for the kernels run "
                        "(e.g. --gpu-max-blocks=2)")
    args = parser.parse_args()

    for module in args.input:
        check(args, module)


def check(args, module):
    entries = args.entry or re.findall(r"^\s*func\.func @([\w.]+)\(",
                                       open(module).read(), re.M)
    if not entries:
        sys.exit(f"{module}: no public function")
    for entry in entries:
        out = {}
        for variant, flags in (("cpu", []),
                               ("kernels", ["--gpu-kernels", *args.kernels_flag])):
            out[variant] = os.path.join(args.workdir, entry, variant)
            run([args.trace_run, module, f"--entry={entry}", "--quiet",
                 f"--random-inputs={args.seed}", f"--out-dir={out[variant]}",
                 *flags])
        names = sorted(os.path.basename(p)[:-4]
                       for p in glob.glob(os.path.join(out["cpu"], "*.npy")))
        if not names:
            sys.exit(f"@{entry}: no results")
        worst = worst_ratio(
            f"@{entry} kernels",
            {n: os.path.join(out["kernels"], n + ".npy") for n in names},
            {n: os.path.join(out["cpu"], n + ".npy") for n in names},
            args.rtol, args.atol, "the CPU pipeline's result")
        how = "exactly" if worst == 0 else f"within tolerance (worst {worst:.2g} of it)"
        print(f"@{entry}: {len(names)} results as GPU kernels on the CPU "
              f"equal the CPU pipeline's {how}")


if __name__ == "__main__":
    main()
