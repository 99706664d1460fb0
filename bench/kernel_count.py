#!/usr/bin/env python3
"""Kernels a training step launches: trace-gpu-pipeline against PyTorch eager.

For each model fixture: trace-import, trace-autodiff, trace-remat (plain
min-cut), trace-schedule, then trace-gpu-pipeline without and with
trace-fuse before it. The GPU pipeline's host code has no control flow, so
the `gpu.launch_func` ops of @forward_fwd plus @forward_bwd are the kernels
one training step launches, and its `trace_cuda_*matmul*` calls the cuBLAS
gemms (one launch each, at least; cuBLAS picks the kernel). The last column
is trace-fuse with `cublas=0`, every matmul a generated kernel. "Host
waits" are the step's `mgpuStreamSynchronize` calls with trace-fuse and
cuBLAS: each stalls the host until the GPU has drained the stream (gemms
are ordered on the kernels' stream, so only each function's return waits).
Against it: the aten ops PyTorch eager dispatches for the same
step (forward, loss, backward), counted with a TorchDispatchMode on the CPU
(each op that reaches a kernel once; on a GPU each is at least one kernel
launch), for the module as built and with every CheckpointWrapper
unwrapped. Runs on any machine: nothing is executed on a GPU.

    bench/kernel_count.py [--build build]
"""

import argparse
import datetime
import functools
import os
import re
import subprocess
import sys
import tempfile

import torch
import torch.utils.checkpoint
from torch.utils._python_dispatch import TorchDispatchMode

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import fixture_models  # noqa: E402

MODELS = [("mlp", "mlp", []), ("gpt, CheckpointWrapper on every block", "gpt", []),
          ("gpt, no regions", "gpt_nockpt", [])]


class CountOps(TorchDispatchMode):
    def __init__(self):
        super().__init__()
        self.count = 0

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        # Views (results aliasing an input, not written) launch no kernel on
        # a GPU either.
        returns = func._schema.returns
        view = bool(returns) and all(
            r.alias_info is not None and not r.alias_info.is_write for r in returns)
        if not view:
            self.count += 1
        return func(*args, **(kwargs or {}))


def eager_ops(fixture, unwrap):
    """Aten ops of one step. Checkpointed blocks run the reentrant
    torch.utils.checkpoint (the non-reentrant one of PyTorch 1.13 fails
    under a dispatch mode); its recomputation in backward is counted."""
    module, inputs = fixture_models.build(fixture)
    for sub in module.modules():
        if type(sub).__name__ == "CheckpointWrapper":
            sub.checkpoint_fn = (
                (lambda m, *a, **k: m(*a, **k)) if unwrap else
                functools.partial(torch.utils.checkpoint.checkpoint, use_reentrant=True))
    for t in inputs.values():
        if t.is_floating_point():
            t.requires_grad_(True)
    counter = CountOps()
    with counter:
        loss = module(*inputs.values())
        loss.backward()
    return counter.count


def trace_kernels(build, fixture, flags, fuse, workdir, cublas=True):
    """(kernel launches, cuBLAS calls, host waits) per step, or an error
    string."""
    pt = os.path.join(ROOT, "examples", "models", fixture + ".pt")
    mlir = os.path.join(workdir, fixture + ".mlir")
    subprocess.run([os.path.join(build, "bin", "trace-import"), pt, "-o", mlir,
                    "--input-shapes-file", pt[:-3] + ".shapes"] + flags, check=True)
    passes = ["--trace-autodiff", "--trace-remat", "--trace-schedule",
              "--symbol-privatize=exclude=forward_fwd,forward_bwd", "--symbol-dce"]
    if fuse:
        passes.append("--trace-fuse")
    passes.append("--trace-gpu-pipeline=chip=sm_90 cublas=" + str(int(cublas)))
    proc = subprocess.run([os.path.join(build, "bin", "trace-opt"), mlir] + passes
                          + ["-o", "-"], capture_output=True, text=True)
    if proc.returncode != 0:
        return proc.stderr.strip().splitlines()[0][:80]
    launches = len(re.findall(r"\bgpu\.launch_func\b", proc.stdout))
    gemms = len(re.findall(r"llvm\.call @trace_cuda_\w*matmul", proc.stdout))
    waits = len(re.findall(r"llvm\.call @mgpuStreamSynchronize\b", proc.stdout))
    return launches, gemms, waits


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    args = parser.parse_args()
    print(f"Kernels per training step, {datetime.date.today()} "
          f"(trace-gpu-pipeline chip=sm_90; PyTorch {torch.__version__} eager, aten ops "
          "dispatched, views excluded)\n")
    print("Launches are kernels + cuBLAS gemm calls.\n")
    print("| model | trace: launches | trace + trace-fuse: launches | eager ops "
          "| eager ops, no checkpoint | trace + trace-fuse, no cuBLAS "
          "| host waits, trace + trace-fuse |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as workdir:
        for label, fixture, flags in MODELS:
            cells = []
            waits = "n/a"
            for fuse, cublas in ((False, True), (True, True), (True, False)):
                r = trace_kernels(args.build, fixture, flags, fuse, workdir, cublas)
                cells.append(f"{r[0] + r[1]:,} = {r[0]:,} + {r[1]:,}"
                             if isinstance(r, tuple) else f"n/a ({r})")
                if fuse and cublas and isinstance(r, tuple):
                    waits = f"{r[2]:,}"
            print(f"| {label} | {cells[0]} | {cells[1]} | "
                  f"{eager_ops(fixture, unwrap=False):,} | {eager_ops(fixture, unwrap=True):,} "
                  f"| {cells[2]} | {waits} |")


if __name__ == "__main__":
    main()
