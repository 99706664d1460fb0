#!/usr/bin/python3
"""Bytes saved for backward: trace-autodiff on the imported model fixtures
against PyTorch eager on the same modules.

For each fixture: trace-import, then `trace-opt --trace-autodiff=print-saved`,
whose remark gives the residuals @forward_fwd returns (activations, and the
arguments such as weights that backward reads, reported apart). PyTorch's
figure is what autograd keeps, counted with
torch.autograd.graph.saved_tensors_hooks (each storage once, parameters and
inputs excluded), for the eager module as built (CheckpointWrapper blocks
run torch.utils.checkpoint) and with every wrapper unwrapped.

    bench/saved_bytes.py [--build build]
"""

import argparse
import datetime
import os
import re
import subprocess
import sys

import torch

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import fixture_models  # noqa: E402

REMARK = re.compile(r"saved for backward by @\w+: (\d+) values, (\d+) bytes "
                    r"\((\d+) of activations, (\d+) of arguments\), (\d+) ops recomputed")

# (row label, fixture, extra trace-import flags, eager model). The eager
# columns of both gpt rows come from `gpt` (gpt_nockpt has the same weights
# and no wrappers to checkpoint with).
ROWS = [
    ("mlp", "mlp", [], "mlp"),
    ("gpt, no regions", "gpt_nockpt", [], "gpt"),
    ("gpt, CheckpointWrapper on every block", "gpt", [], "gpt"),
    ("gpt, --checkpoint-modules 'blocks\\.[0-9]+'", "gpt_nockpt",
     ["--checkpoint-modules=blocks\\.[0-9]+"], "gpt"),
    ("nested wrappers", "nested", [], "nested"),
]


def trace_saved(build, fixture, flags, workdir):
    pt = os.path.join(ROOT, "examples", "models", fixture + ".pt")
    mlir = os.path.join(workdir, fixture + ".mlir")
    subprocess.run([os.path.join(build, "bin", "trace-import"), pt, "-o", mlir,
                    "--input-shapes-file", pt[:-3] + ".shapes"] + flags, check=True)
    proc = subprocess.run([os.path.join(build, "bin", "trace-opt"), mlir,
                           "--trace-autodiff=print-saved", "-o", os.devnull],
                          capture_output=True, text=True, check=True)
    match = REMARK.search(proc.stderr)
    if not match:
        sys.exit(f"no saved-for-backward remark for {fixture}:\n{proc.stderr}")
    values, total, acts, args, recomputed = map(int, match.groups())
    return {"values": values, "activations": acts, "arguments": args,
            "recomputed": recomputed}


def eager_saved(fixture, checkpoint):
    module, inputs = fixture_models.build(fixture)
    module.load_state_dict(torch.jit.load(
        os.path.join(ROOT, "examples", "models", fixture + ".pt")).state_dict())
    if not checkpoint:
        for sub in module.modules():
            if type(sub).__name__ == "CheckpointWrapper":
                sub.checkpoint_fn = lambda m, *a, **k: m(*a, **k)
    excluded = {p.data_ptr() for p in module.parameters()}
    excluded |= {t.data_ptr() for t in inputs.values()}
    seen = {}

    def pack(t):
        ptr = t.untyped_storage().data_ptr() if hasattr(t, "untyped_storage") \
            else t.storage().data_ptr()
        if t.data_ptr() not in excluded and ptr not in seen:
            seen[ptr] = t.numel() * t.element_size()
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        loss = module(*inputs.values())
    loss.backward()
    return sum(seen.values())


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    args = parser.parse_args()
    workdir = os.path.join(args.build, "bench", "saved_bytes")
    os.makedirs(workdir, exist_ok=True)
    torch.manual_seed(0)

    print(f"Saved for backward, {datetime.date.today()} "
          f"(trace-autodiff vs PyTorch {torch.__version__} eager)\n")
    print("| model | trace: activations | trace: weights read | ops recomputed "
          "| eager | eager, checkpoint |")
    print("|---|---:|---:|---:|---:|---:|")
    for label, fixture, flags, eager in ROWS:
        t = trace_saved(args.build, fixture, flags, workdir)
        plain = eager_saved(eager, checkpoint=False)
        ckpt = eager_saved(eager, checkpoint=True)
        print(f"| {label} | {t['activations']:,} | {t['arguments']:,} | "
              f"{t['recomputed']} | {plain:,} | {ckpt:,} |")


if __name__ == "__main__":
    main()
