#!/usr/bin/env python3
"""Convolution training-step time: PyTorch eager against trace_mlir.compile
with each lowering of trace.convolution (trace-cpu-pipeline's
`convolutions` option): direct (one loop nest), im2col (an im2col copy
and an OpenBLAS matmul), and auto (im2col where the matmul's reduction,
channels/groups x window, is at least 16, each group has at least 4
output channels and the columns take at most 64 MiB; the rule this table
measured).

    bench/conv_time.py [--repeat 5] [--layers NAME,...]

A step is one layer's loss, mean(conv(x)^2), its backward (the input's and
the parameters' gradients) included, through the compiled module's
autograd.Function, so the Python overhead is in it. CPU, one thread
(torch.set_num_threads(1), OPENBLAS_NUM_THREADS=1), libraries built with
--host-cpu=native. Time is the median of --repeat steps after a warm-up.
Every variant's gradients are compared with eager's (rtol 1e-3, atol
1e-4) and the row says so.
"""

import argparse
import copy
import datetime
import os
import statistics
import sys
import tempfile
import time

os.environ["OPENBLAS_NUM_THREADS"] = "1"

import torch  # noqa: E402
import torch.nn as nn  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))
import trace_mlir  # noqa: E402

# name: (layer, input shape); ResNet- and MobileNet-like layers.
LAYERS = {
    "stem 7x7/2 3->32": (lambda: nn.Conv2d(3, 32, 7, stride=2, padding=3), (8, 3, 64, 64)),
    "3x3 64->64": (lambda: nn.Conv2d(64, 64, 3, padding=1), (8, 64, 16, 16)),
    "3x3/2 32->64": (lambda: nn.Conv2d(32, 64, 3, stride=2, padding=1), (8, 32, 32, 32)),
    "1x1 64->128": (lambda: nn.Conv2d(64, 128, 1), (8, 64, 16, 16)),
    "1x1 16->16": (lambda: nn.Conv2d(16, 16, 1), (8, 16, 16, 16)),
    "3x3 g4 64->64": (lambda: nn.Conv2d(64, 64, 3, padding=1, groups=4), (8, 64, 16, 16)),
    "depthwise 3x3 64": (lambda: nn.Conv2d(64, 64, 3, padding=1, groups=64), (8, 64, 16, 16)),
    "conv1d k5 32->32": (lambda: nn.Conv1d(32, 32, 5, padding=2), (8, 32, 128)),
}
MODES = ("direct", "im2col", "auto")


class Loss(nn.Module):
    def __init__(self, layer):
        super().__init__()
        self.layer = layer

    def forward(self, x):
        return (self.layer(x) ** 2).mean()


def step_time(net, x, repeat):
    times, grads = [], None
    for i in range(repeat + 1):
        net.zero_grad(set_to_none=True)
        xi = x.clone().requires_grad_()
        start = time.perf_counter()
        net(xi).backward()
        elapsed = time.perf_counter() - start
        if i:
            times.append(elapsed)
        grads = [xi.grad] + [p.grad for p in net.parameters()]
    return statistics.median(times) * 1e3, grads


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--layers", default=",".join(LAYERS))
    args = parser.parse_args()
    torch.set_num_threads(1)
    names = args.layers.split(",")
    print(f"# bench/conv_time.py, {datetime.date.today()}, CPU, one thread, "
          f"median of {args.repeat} steps (ms); x: eager's time over the row's")
    print("| layer | eager ms | " + " | ".join(f"{m} ms" for m in MODES) +
          " | " + " | ".join(f"{m} x" for m in MODES) + " | grads |")
    print("|---|---:|" + "---:|" * (2 * len(MODES)) + "---|")
    with tempfile.TemporaryDirectory(prefix="conv-time-") as cache:
        for name in names:
            make, shape = LAYERS[name]
            torch.manual_seed(0)
            eager = Loss(make())
            x = torch.randn(shape)
            eager_ms, want = step_time(eager, x, args.repeat)
            row, ok = [], True
            for mode in MODES:
                net = copy.deepcopy(eager)
                step = trace_mlir.compile(
                    net, (x,), cache_dir=cache,
                    options=["--host-cpu=native",
                             f"--pipeline=convolutions={mode}"])
                ms, got = step_time(step, x, args.repeat)
                ok &= all(torch.allclose(g, w, rtol=1e-3, atol=1e-4)
                          for g, w in zip(got, want))
                row.append(ms)
            print(f"| {name} | {eager_ms:.1f} | " +
                  " | ".join(f"{ms:.1f}" for ms in row) + " | " +
                  " | ".join(f"{eager_ms / ms:.2f}" for ms in row) +
                  f" | {'equal' if ok else 'DIFFER'} |", flush=True)


if __name__ == "__main__":
    main()
