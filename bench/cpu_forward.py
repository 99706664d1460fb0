#!/usr/bin/env python3
"""CPU forward time: trace-run (the CPU pipeline, JIT-compiled) against
PyTorch eager (LibTorch under python3-torch) on the same inputs, in one run.

    bench/cpu_forward.py [--trace-run build/bin/trace-run] [--repeat 20]

Prints a table: median milliseconds of each, and the ratio trace / eager
(below 1: trace-mlir is faster). Compile time is not counted: trace-run
times only calls of the compiled function. Both sides run on one thread
(OPENBLAS_NUM_THREADS=1 for trace-mlir's matmuls, torch.set_num_threads(1))
so the ratio compares code, not core counts.
The outputs are compared too (rtol 1e-3), so a fast wrong answer shows.
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(__file__))
import models  # noqa: E402

CASES = [
    ("GPT block x2, B4 T128 C256 H8", lambda: models.gpt_block(B=4, T=128, C=256, H=8, layers=2)),
    ("MLP 512-2048-2048-512, B256", lambda: models.mlp(B=256, widths=(512, 2048, 2048, 512))),
    ("elementwise chain, 4M x 8", lambda: models.elementwise_chain(N=1 << 22, depth=8)),
]


def eager_ms(module, x, repeat):
    with torch.no_grad():
        module(x)  # warm-up
        times = []
        for _ in range(repeat):
            start = time.perf_counter()
            out = module(x)
            times.append((time.perf_counter() - start) * 1e3)
    return float(np.median(times)), out


def trace_ms(trace_run, text, module, x, repeat, workdir, extra):
    src = os.path.join(workdir, "model.mlir")
    with open(src, "w") as f:
        f.write(text)
    cmd = [trace_run, src, "--quiet", f"--repeat={repeat}", "--rtol=1e-3", "--atol=1e-4"] + extra
    for name, t in [("x", x)] + list(module.named_parameters()):
        path = os.path.join(workdir, f"{name}.npy")
        np.save(path, t.detach().numpy())
        cmd.append(f"--arg={name}={path}")
    with torch.no_grad():
        np.save(os.path.join(workdir, "expected.npy"), module(x).numpy())
    cmd.append(f"--expect=out={os.path.join(workdir, 'expected.npy')}")
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1")
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if proc.returncode != 0:
        raise SystemExit(f"trace-run failed:\n{proc.stderr}")
    match = re.search(r"median ([0-9.]+) ms", proc.stdout)
    return float(match.group(1))


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    root = os.path.join(os.path.dirname(__file__), "..")
    parser.add_argument("--trace-run", default=os.path.join(root, "build", "bin", "trace-run"))
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()
    torch.manual_seed(0)
    torch.set_num_threads(1)
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads, "
          f"{os.cpu_count()} cores, repeat {args.repeat}, median ms")
    header = f"{'model':34s} {'eager':>9s} {'trace':>9s} {'trace/eager':>12s} {'loops':>9s}"
    print(header)
    print("-" * len(header))
    for name, make in CASES:
        text, module, shape = make()
        x = torch.rand(shape, generator=torch.Generator().manual_seed(1)) * 2 - 1
        eager, _ = eager_ms(module, x, args.repeat)
        with tempfile.TemporaryDirectory() as workdir:
            trace = trace_ms(args.trace_run, text, module, x, args.repeat, workdir, [])
            loops = trace_ms(args.trace_run, text, module, x, max(3, args.repeat // 5),
                             workdir, ["--no-blas"])
        print(f"{name:34s} {eager:9.3f} {trace:9.3f} {trace / eager:12.2f} {loops:9.3f}")
    print("loops: trace-mlir with --no-blas (matmuls as generated loops)")


if __name__ == "__main__":
    main()
