#!/usr/bin/env python3
"""Embedding and loss training-step time: does a real gather pay?

Issue 20 asked to replace the embedding's and nll_loss's one-hot products
with a gather, or to show by measurement that it does not pay. Two tables:

1. Embedding. loss = mean(emb(tokens) * w) over N tokens of width D, for
   vocabularies V. Rows: PyTorch eager (nn.Embedding), trace_mlir.compile
   of nn.Embedding (now trace.gather, whose gradient is a scatter_add over
   the N tokens), and trace_mlir.compile of the one-hot product the
   importer used to emit, written in PyTorch as
   `(tokens[..., None] == arange(V)).to(f32) @ W` (a [N, V] x [V, D]
   matmul in the forward and another in the backward).
2. Cross-entropy. F.cross_entropy(logits, target) over C classes, its
   nll_loss now a gather of the target's log-probability (its gradient a
   scatter of one element per row), against the select the importer used
   to emit, written in PyTorch as
   `-where(target[:, None] == arange(C), log_softmax(logits), 0).sum(1)
   .mean()` (a select and a sum over the classes, and a select in the
   backward). Both read the whole [N, C] log_softmax anyway, so the gather
   saves at most the select's passes.

CPU, one thread (torch.set_num_threads(1), OPENBLAS_NUM_THREADS=1),
libraries built with --host-cpu=native. Time is the median of --repeat
steps (forward and backward, the Python overhead included) after a
warm-up. Each compiled variant's gradients are compared with eager's
(rtol 1e-4, atol 1e-6) and the row says so.

    bench/gather_time.py [--repeat 5]
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
import torch.nn.functional as F  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))
import trace_mlir  # noqa: E402

TOKENS, WIDTH = 512, 128
VOCABS = (1024, 8192, 32768)
CLASSES = (1024, 8192, 32768)
CE_ROWS = 256


class Embed(nn.Module):
    def __init__(self, vocab, one_hot):
        super().__init__()
        self.emb = nn.Embedding(vocab, WIDTH)
        self.one_hot = one_hot
        self.register_buffer("w", torch.randn(TOKENS, WIDTH))
        self.register_buffer("ids", torch.arange(vocab))

    def forward(self, tokens):
        if self.one_hot:
            hot = (tokens[:, None] == self.ids).to(torch.float32)
            rows = hot @ self.emb.weight
        else:
            rows = self.emb(tokens)
        return (rows * self.w).mean()


class Loss(nn.Module):
    def __init__(self, classes, full):
        super().__init__()
        self.lin = nn.Linear(64, classes)
        self.select = not full
        self.register_buffer("ids", torch.arange(classes))

    def forward(self, x, target):
        logits = self.lin(x)
        if self.select:
            logp = F.log_softmax(logits, -1)
            hit = target[:, None] == self.ids
            return -torch.where(hit, logp, torch.zeros_like(logp)).sum(1).mean()
        return F.cross_entropy(logits, target)


def step_time(net, inputs, repeat):
    times, grads = [], None
    for i in range(repeat + 1):
        net.zero_grad(set_to_none=True)
        start = time.perf_counter()
        net(*inputs).backward()
        elapsed = time.perf_counter() - start
        if i:
            times.append(elapsed)
        grads = [p.grad for p in net.parameters()]
    return statistics.median(times) * 1e3, grads


def close(got, want):
    return all(torch.allclose(g, w, rtol=1e-4, atol=1e-6)
               for g, w in zip(got, want))


def compiled(net, inputs, cache):
    return trace_mlir.compile(net, inputs, cache_dir=cache,
                              options=["--host-cpu=native"])


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    torch.set_num_threads(1)
    print(f"# bench/gather_time.py, {datetime.date.today()}, CPU, one thread, "
          f"median of {args.repeat} steps (ms)")
    print(f"\n## Embedding, {TOKENS} tokens of width {WIDTH}\n")
    print("| vocab | eager ms | gather ms | one-hot ms | one-hot / gather "
          "| grads |")
    print("|---:|---:|---:|---:|---:|---|")
    with tempfile.TemporaryDirectory(prefix="gather-time-") as cache:
        for vocab in VOCABS:
            torch.manual_seed(0)
            tokens = torch.randint(0, vocab, (TOKENS,))
            eager = Embed(vocab, one_hot=False)
            eager_ms, want = step_time(eager, (tokens,), args.repeat)
            gather = compiled(copy.deepcopy(eager), (tokens,), cache)
            gather_ms, got = step_time(gather, (tokens,), args.repeat)
            ok = close(got, want)
            hot_net = copy.deepcopy(eager)
            hot_net.one_hot = True
            hot = compiled(hot_net, (tokens,), cache)
            hot_ms, got = step_time(hot, (tokens,), args.repeat)
            ok &= close(got, want)
            print(f"| {vocab} | {eager_ms:.2f} | {gather_ms:.2f} | "
                  f"{hot_ms:.2f} | {hot_ms / gather_ms:.1f} | "
                  f"{'equal' if ok else 'DIFFER'} |", flush=True)

        print(f"\n## Cross-entropy, {CE_ROWS} rows, Linear(64, C) logits\n")
        print("| classes | eager ms | gather ms | select ms | select / gather "
              "| grads |")
        print("|---:|---:|---:|---:|---:|---|")
        for classes in CLASSES:
            torch.manual_seed(0)
            x = torch.randn(CE_ROWS, 64)
            target = torch.randint(0, classes, (CE_ROWS,))
            eager = Loss(classes, full=True)
            eager_ms, want = step_time(eager, (x, target), args.repeat)
            ce = compiled(copy.deepcopy(eager), (x, target), cache)
            ce_ms, got = step_time(ce, (x, target), args.repeat)
            ok = close(got, want)
            select_net = copy.deepcopy(eager)
            select_net.select = True
            select = compiled(select_net, (x, target), cache)
            select_ms, got = step_time(select, (x, target), args.repeat)
            ok &= close(got, want)
            print(f"| {classes} | {eager_ms:.2f} | {ce_ms:.2f} | "
                  f"{select_ms:.2f} | {select_ms / ce_ms:.2f} | "
                  f"{'equal' if ok else 'DIFFER'} |", flush=True)


if __name__ == "__main__":
    main()
