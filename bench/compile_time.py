#!/usr/bin/env python3
"""Compile time against depth: trace-compile on GPTs of 3 to 48 layers,
for the cpu and cuda targets, and trace-run on the same path.

    bench/compile_time.py [--build build] [--layers 3,6,12,24,48]
                          [--targets cpu,cuda] [--jobs N] [--repeat 3]

The GPT is fixture_models.GPT (d_model 96, 4 heads, T 24, B 2, vocab 64,
dropout 0) with PyTorch's CheckpointWrapper on every block: the model of
issue 18's first measurements. Its blocks alternate tanh and exact GELU,
so there are two kinds of block, and every block after the second repeats
one of them.

For each run, trace-compile -v gives the total wall time, LLVM's time
(the kernels' and the host's objects: translation, optimization, code
generation, in parallel on --jobs threads) and the distinct kernels
against the launches (CPU: kernel functions and their calls; cuda: PTX
kernels and gpu.launch_func ops).

Rows also show:
  * a model without repetition: an MLP whose every layer has a width of
    its own (Linear + tanh, 3 to 48 layers, widths 64 + 4 i), so no two
    layers share a kernel and the time can only be linear in the size;
  * the object cache: the deepest GPT compiled a second time with
    --cache-dir (every object read back), and the next-deepest GPT compiled
    after it into the same cache (the kernels it shares are read back);
  * trace-run: a 3-layer GPT's @forward_grad (the training-step pipeline
    and the JIT on random inputs), end to end.

The machines are shared: compare rows of one run. Each compile row is the
median of --repeat rounds over all the rows, and a line per target gives
the GPT's time at 24 layers (or the deepest) against the shallowest
(3): issue 18's target. The table is printed and written to
bench/results/compile-time-DATE.txt.
"""

import argparse
import datetime
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

import torch
import torch.nn as nn

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import fixture_models  # noqa: E402

B, T, VOCAB = 2, 24, 64


class WidthMLP(nn.Module):
    """Linear + tanh layers of widths 64, 68, 72, ...: no two alike."""

    def __init__(self, layers):
        super().__init__()
        widths = [64 + 4 * i for i in range(layers + 1)]
        self.layers = nn.ModuleList(
            nn.Linear(a, b) for a, b in zip(widths, widths[1:]))

    def forward(self, x):
        for layer in self.layers:
            x = torch.tanh(layer(x))
        return (x * x).mean()


def save_gpt(directory, layers):
    torch.manual_seed(0)
    model = fixture_models.GPT(vocab=VOCAB, block_size=T, d_model=96,
                               n_head=4, n_layer=layers, dropout=0.0,
                               checkpoint=True)
    model.train()
    gen = torch.Generator().manual_seed(1)
    idx = torch.randint(0, VOCAB, (B, T), generator=gen)
    targets = torch.randint(0, VOCAB, (B, T), generator=gen)
    path = os.path.join(directory, f"gpt{layers}.pt")
    torch.jit.trace(model, (idx, targets), check_trace=False).save(path)
    shapes = [f"--input-shape=idx={B}x{T}xi64",
              f"--input-shape=targets={B}x{T}xi64"]
    return path, shapes


def save_mlp(directory, layers):
    torch.manual_seed(0)
    model = WidthMLP(layers)
    x = torch.randn(16, 64)
    path = os.path.join(directory, f"mlp{layers}.pt")
    torch.jit.trace(model, (x,), check_trace=False).save(path)
    return path, ["--input-shape=x=16x64xf32"]


def compile_once(args, model, shapes, target, out, extra=()):
    cmd = [os.path.join(args.build, "bin", "trace-compile"), model,
           f"--target={target}", "-o", out, "-v", "--name=step"]
    if args.jobs:
        cmd.append(f"-j={args.jobs}")
    cmd += shapes + list(extra)
    start = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True)
    total = time.perf_counter() - start
    if proc.returncode != 0:
        sys.exit(f"error: {' '.join(cmd)} failed:\n{proc.stderr}")
    llvm = re.search(r"objects: (\d+) \((\d+) from the cache\): ([\d.]+) s",
                     proc.stderr)
    counts = re.search(r"(\d+) kernels for (\d+) launches", proc.stdout)
    return {"total": total, "llvm": float(llvm.group(3)),
            "objects": int(llvm.group(1)), "cached": int(llvm.group(2)),
            "kernels": int(counts.group(1)), "launches": int(counts.group(2))}


def time_trace_run(args, directory, model, shapes):
    """trace-import, then trace-run --training-step of @forward_grad."""
    mlir = os.path.join(directory, "run.mlir")
    subprocess.run([os.path.join(args.build, "bin", "trace-import"), model,
                    "-o", mlir] + shapes, check=True)
    cmd = [os.path.join(args.build, "bin", "trace-run"), mlir,
           "--training-step", "--entry=forward_grad", "--random-inputs=1",
           "--quiet"]
    start = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--layers", default="3,6,12,24,48")
    parser.add_argument("--targets", default="cpu,cuda")
    parser.add_argument("--jobs", type=int, default=0,
                        help="trace-compile -j (default: one per core)")
    parser.add_argument("--results", default=os.path.join(ROOT, "bench",
                                                          "results"))
    parser.add_argument("--repeat", type=int, default=3,
                        help="rounds over the compile rows; times are the "
                        "medians")
    args = parser.parse_args()
    depths = [int(d) for d in args.layers.split(",")]
    targets = args.targets.split(",")
    if "cuda" in targets and not os.path.exists(
            "/usr/local/cuda/nvvm/libdevice/libdevice.10.bc"):
        print("no CUDA toolkit at /usr/local/cuda: cuda rows skipped")
        targets.remove("cuda")
    torch.set_num_threads(1)

    lines = []

    def emit(line=""):
        print(line, flush=True)
        lines.append(line)

    with tempfile.TemporaryDirectory(prefix="compile-time-") as directory:
        emit(f"# trace-compile time against depth, {datetime.date.today()}"
             f", {os.cpu_count()} cores, -j {args.jobs or 'all'}")
        emit()
        emit("| model | target | layers | total s | LLVM s | objects | "
             "distinct kernels | launches |")
        emit("|---|---|---:|---:|---:|---:|---:|---:|")
        points = [(target, label, layers, save(directory, layers))
                  for target in targets
                  for label, save in (("GPT", save_gpt),
                                      ("MLP, distinct widths", save_mlp))
                  for layers in depths]
        # Rounds over every point, not repeats of one, so that a slow
        # minute of the shared machine spreads over the rows.
        runs = {point[:3]: [] for point in points}
        for _ in range(args.repeat):
            for target, label, layers, (model, shapes) in points:
                runs[(target, label, layers)].append(compile_once(
                    args, model, shapes, target,
                    os.path.join(directory, "out")))
        median = lambda rs, key: statistics.median(r[key] for r in rs)
        for key, rs in runs.items():
            target, label, layers = key
            r = rs[-1]
            emit(f"| {label} | {target} | {layers} | "
                 f"{median(rs, 'total'):.1f} | {median(rs, 'llvm'):.1f} | "
                 f"{r['objects']} | {r['kernels']} | {r['launches']} |")
        emit()
        if len(depths) > 1:
            for target in targets:
                first = depths[0]
                last = 24 if 24 in depths else depths[-1]
                ratio = (median(runs[(target, "GPT", last)], "total") /
                         median(runs[(target, "GPT", first)], "total"))
                emit(f"GPT, {target}: {last} layers take {ratio:.2f}x the "
                     f"time of {first} (medians of {args.repeat})")
            emit()
        if "cpu" in targets and len(depths) > 1:
            cache = os.path.join(directory, "cache")
            deepest, next_deepest = depths[-1], depths[-2]
            emit("Object cache (cpu, --cache-dir):")
            emit()
            emit("| run | layers | total s | LLVM s | objects | from the cache |")
            emit("|---|---:|---:|---:|---:|---:|")
            for label, layers in (("cold", deepest), ("again", deepest),
                                  ("another depth", next_deepest)):
                model, shapes = save_gpt(directory, layers)
                r = compile_once(args, model, shapes, "cpu",
                                 os.path.join(directory, "out"),
                                 [f"--cache-dir={cache}"])
                emit(f"| {label} | {layers} | {r['total']:.1f} | "
                     f"{r['llvm']:.1f} | {r['objects']} | {r['cached']} |")
            emit()
            model, shapes = save_gpt(directory, 3)
            seconds = time_trace_run(args, directory, model, shapes)
            emit(f"trace-run --training-step, 3-layer GPT @forward_grad: "
                 f"{seconds:.1f} s")
    os.makedirs(args.results, exist_ok=True)
    path = os.path.join(args.results,
                        f"compile-time-{datetime.date.today()}.txt")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
