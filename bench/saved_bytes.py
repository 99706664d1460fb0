#!/usr/bin/env python3
"""Bytes saved for backward: trace-autodiff and trace-remat on the imported
model fixtures against PyTorch eager on the same modules.

For each fixture: trace-import, then `trace-opt --trace-autodiff=print-saved`,
whose remark gives the residuals @forward_fwd returns (activations, and the
arguments such as weights that backward reads, reported apart). PyTorch's
figure is what autograd keeps, counted with
torch.autograd.graph.saved_tensors_hooks (each storage once, parameters and
inputs excluded), for the eager module with every CheckpointWrapper
running the reentrant torch.utils.checkpoint (see eager_module_saved) and
with every wrapper unwrapped.

The second table runs trace-remat after trace-autodiff (the plain min-cut,
then budgets as fractions of its bytes) and reads trace-memory-report's
JSON: activation bytes saved, recompute FLOPs as a share of the step's FLOPs
without recomputation, and the peak of live bytes in the backward, also
after trace-schedule (values recomputed again, ops reordered; its extra
FLOPs as a share of the step's). It adds
a 24-layer GPT built on the fly from scripts/fixture_models.py (traced
here, same classes as the fixtures), with and without a checkpoint region
per block (--checkpoint-modules). The third table times trace-remat, and
trace-schedule after it (--mlir-timing, one thread, median of 3), on 24-,
48- and 96-layer GPTs. The model zoo's table (test/Integration/Models) gives
a row per model: eager's saved bytes, with a checkpoint per block
(zoo_models.BLOCKS: the CNNs' residual blocks too), the min-cut, budget
0.5, and the min-cut with a region per block (--zoo-only prints only that
table).

    bench/saved_bytes.py [--build build] [--skip-remat] [--skip-timing] [--zoo-only]
"""

import argparse
import datetime
import functools
import json
import os
import re
import statistics
import subprocess
import sys

import torch
import torch.utils.checkpoint

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
sys.path.insert(0, os.path.join(ROOT, "test", "Integration", "Models"))
import fixture_models  # noqa: E402
import zoo_models  # noqa: E402

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
    # torch.utils.checkpoint calls in the model's code.
    ("seed example, checkpoint(lambda t: t.sin().cos().exp(), h)",
     "ckpt_seed", [], "ckpt_seed"),
    ("gpt, checkpoint(block, h) per block", "gpt_ckpt_calls", [],
     "gpt_ckpt_calls"),
    ("gpt, checkpoint(lambda t: block(t), h) per block", "gpt_ckpt_lambdas",
     [], "gpt_ckpt_lambdas"),
    ("gpt, checkpoint(custom_forward(block), h) per block",
     "gpt_ckpt_closures", [], "gpt_ckpt_closures"),
    ("3 back-to-back calls of one lambda (one region)", "ckpt_repeated", [],
     "ckpt_repeated"),
    ("a lambda per layer that computes before the layer", "ckpt_prefixed", [],
     "ckpt_prefixed"),
    ("nested calls", "nested_calls", [], "nested_calls"),
    ("calls mixed with CheckpointWrapper", "mixed_calls", [], "mixed_calls"),
]


CALL_FIXTURES = ("ckpt_seed", "gpt_ckpt_calls", "gpt_ckpt_lambdas",
                 "gpt_ckpt_closures", "ckpt_repeated", "ckpt_prefixed", "nested_calls",
                 "mixed_calls")


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
    return eager_module_saved(module, inputs, checkpoint)


def eager_module_saved(module, inputs, checkpoint):
    """Bytes autograd keeps for backward. With `checkpoint`, every
    CheckpointWrapper, and every torch.utils.checkpoint call in the model's
    code, runs the reentrant torch.utils.checkpoint: it saves
    the region's inputs with save_for_backward, which the hooks below see.
    (The non-reentrant one the fixtures are built with keeps them in a
    closure and installs saved-tensor hooks of its own, which hide them from
    ours: counting with it undercounts by each region's input.) Reentrant
    checkpointing needs an input that requires grad to produce gradients;
    float inputs are marked so (inputs are excluded from the count)."""
    for sub in module.modules():
        if type(sub).__name__ != "CheckpointWrapper":
            continue
        if checkpoint:
            sub.checkpoint_fn = functools.partial(
                torch.utils.checkpoint.checkpoint, use_reentrant=True)
        else:
            sub.checkpoint_fn = lambda m, *a, **k: m(*a, **k)
    # The models' own torch.utils.checkpoint calls likewise.
    # (The calls pass use_reentrant=False, which a functools.partial would
    # let override its own.)
    def call(fn, *args, use_reentrant=None, **kwargs):
        if not checkpoint:
            return fn(*args, **kwargs)
        return torch.utils.checkpoint.checkpoint(fn, *args, use_reentrant=True,
                                                 **kwargs)
    real_checkpoint = fixture_models.checkpoint
    fixture_models.checkpoint = call
    if checkpoint:
        for t in inputs.values():
            if t.is_floating_point():
                t.requires_grad_(True)
    excluded = {p.data_ptr() for p in module.parameters()}
    excluded |= {t.data_ptr() for t in inputs.values()}
    seen = {}

    def pack(t):
        ptr = t.untyped_storage().data_ptr() if hasattr(t, "untyped_storage") \
            else t.storage().data_ptr()
        if t.data_ptr() not in excluded and ptr not in seen:
            seen[ptr] = t.numel() * t.element_size()
        return t

    try:
        with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
            loss = module(*inputs.values())
        loss.backward()
    finally:
        fixture_models.checkpoint = real_checkpoint
    return sum(seen.values())


# trace-remat settings: (label, --trace-remat options or None for
# trace-autodiff's own split).
REMAT_PLANS = [
    ("no remat (trace-autodiff)", None),
    ("min-cut", ""),
    ("budget 0.75", "budget=0.75"),
    ("budget 0.5", "budget=0.5"),
    ("budget 0.25", "budget=0.25"),
    ("budget 0.1", "budget=0.1"),
]
REGIONS = ["--checkpoint-modules=blocks\\.[0-9]+"]


def deep_gpt(workdir, layers, calls=None):
    """A GPT of `layers` blocks (fixture_models.GPT, fixture sizes, no
    wrappers; with `calls`, fixture_models.CallingGPT, each block run by a
    torch.utils.checkpoint call) traced to a .pt with its .shapes; returns
    (pt, eager module, inputs)."""
    torch.manual_seed(fixture_models.SEED)
    module = (fixture_models.CallingGPT(calls, n_layer=layers) if calls else
              fixture_models.GPT(n_layer=layers, checkpoint=False))
    module.train()
    inputs = fixture_models._gpt_inputs()
    pt = os.path.join(workdir, f"gpt{layers}{'_' + calls if calls else ''}.pt")
    if not os.path.exists(pt):
        torch.jit.trace(module, tuple(inputs.values()), check_trace=False).save(pt)
        with open(pt[:-3] + ".shapes", "w") as f:
            f.write("".join(f"{n}={'x'.join(map(str, t.shape))}xi64\n"
                            for n, t in inputs.items()))
    return pt, module, inputs


def import_pt(build, pt, flags, out):
    subprocess.run([os.path.join(build, "bin", "trace-import"), pt, "-o", out,
                    "--input-shapes-file", pt[:-3] + ".shapes"] + flags, check=True)
    return out


def memory_report(build, mlir, remat, workdir, schedule=False):
    """trace-memory-report's JSON for @forward after trace-autodiff and, when
    `remat` is not None, trace-remat with those options, then trace-schedule
    if `schedule`."""
    out = os.path.join(workdir, "report.json")
    passes = ["--trace-autodiff"]
    if remat is not None:
        passes.append(f"--trace-remat={remat}")
    if schedule:
        passes.append("--trace-schedule")
    subprocess.run([os.path.join(build, "bin", "trace-opt"), mlir] + passes
                   + [f"--trace-memory-report=json output={out}", "-o", os.devnull],
                   check=True)
    with open(out) as f:
        report = json.load(f)
    (fn,) = [f for f in report["functions"] if f["name"] == "forward"]
    return fn


def remat_rows(build, workdir):
    """(label, mlir, eager bytes, eager checkpointed bytes) per model."""
    models = []
    for label, fixture, flags, eager in [
            ("mlp", "mlp", [], "mlp"),
            ("gpt, no regions", "gpt_nockpt", [], "gpt"),
            ("gpt, CheckpointWrapper on every block", "gpt", [], "gpt")] + [
                row for row in ROWS if row[1] in CALL_FIXTURES]:
        pt = os.path.join(ROOT, "examples", "models", fixture + ".pt")
        mlir = import_pt(build, pt, flags, os.path.join(workdir, fixture + ".mlir"))
        models.append((label, mlir, eager_saved(eager, False), eager_saved(eager, True)))
    pt, module, inputs = deep_gpt(workdir, 24)
    plain = eager_module_saved(module, inputs, checkpoint=False)
    torch.manual_seed(fixture_models.SEED)
    wrapped = fixture_models.GPT(n_layer=24, checkpoint=True)
    wrapped.train()
    ckpt = eager_module_saved(wrapped, inputs, checkpoint=True)
    models.append(("gpt 24 layers, no regions",
                   import_pt(build, pt, [], os.path.join(workdir, "gpt24.mlir")),
                   plain, ckpt))
    models.append(("gpt 24 layers, a region per block",
                   import_pt(build, pt, REGIONS, os.path.join(workdir, "gpt24_regions.mlir")),
                   plain, ckpt))
    pt, module, inputs = deep_gpt(workdir, 24, calls="module")
    models.append(("gpt 24 layers, checkpoint(block, h) per block",
                   import_pt(build, pt, [], os.path.join(workdir, "gpt24_calls.mlir")),
                   plain, eager_module_saved(module, inputs, checkpoint=True)))
    return models


def print_remat_table(build, workdir):
    print("\ntrace-remat (after trace-autodiff), from trace-memory-report: activation "
          "bytes saved for backward; recompute FLOPs and their share of the step's "
          "FLOPs without recomputation; peak live bytes of the backward\n")
    print("| model | plan | activations saved | vs no remat | recompute FLOPs "
          "| extra FLOPs | peak live, bwd | + trace-schedule: peak | its extra FLOPs "
          "| eager | eager, checkpoint |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for label, mlir, eager, eager_ckpt in remat_rows(build, workdir):
        baseline = None
        for plan, options in REMAT_PLANS:
            r = memory_report(build, mlir, options, workdir)
            scheduled = memory_report(build, mlir, options, workdir, schedule=True)
            saved = r["saved"]["activation_bytes"]
            recompute = r["backward"]["recompute_flops"]
            step = r["forward"]["flops"] + r["backward"]["flops"] - recompute
            again = (scheduled["forward"]["flops"] + scheduled["backward"]["flops"]
                     - r["forward"]["flops"] - r["backward"]["flops"])
            if baseline is None:
                baseline = saved
            print(f"| {label} | {plan} | {saved:,} | {saved / baseline:.0%} | "
                  f"{recompute:,} | {recompute / step:.1%} | "
                  f"{r['backward']['peak_live_bytes']:,} | "
                  f"{scheduled['backward']['peak_live_bytes']:,} | {again / step:.1%} | "
                  f"{eager:,} | {eager_ckpt:,} |")


# The peers' table: (label, fixture). AOTAutograd traces the modules with
# their checkpoints off, since its partitioner chooses what to recompute
# itself, as trace-remat does on the model without regions.
PEER_ROWS = [("mlp", "mlp"), ("gpt, no regions", "gpt_nockpt"),
             ("seed example", "ckpt_seed")]
PEER_BUDGETS = [1.0, 0.5, 0.25]


def aot_saved(module, inputs, budget):
    """What AOTAutograd's min-cut partitioner (torch.compile's) saves for
    backward with activation_memory_budget `budget`: (activation bytes,
    argument bytes). The saved values are the forward graph's last
    outputs, as many as the backward graph takes besides its tangents;
    they are counted as the forward runs, each storage once, so that a
    saved view of a weight (its transpose) or of a buffer counts as that
    argument, as trace-mlir counts it."""
    import torch._functorch.config as functorch_config
    from torch._functorch.aot_autograd import aot_module
    from torch._functorch.partitioners import (
        min_cut_rematerialization_partition)
    runs = []
    saved_count = []

    def forward_compiler(gm, example_inputs):
        def run(*args):
            outs = gm(*args)
            runs.append(list(outs))
            return outs
        run._boxed_call = getattr(gm, "_boxed_call", False)
        return run

    def backward_compiler(gm, example_inputs):
        saved_count.append(sum(
            1 for n in gm.graph.nodes if n.op == "placeholder"
            and not n.name.startswith("tangents")))
        return gm

    real_checkpoint = fixture_models.checkpoint
    fixture_models.checkpoint = lambda fn, *a, use_reentrant=None, **k: fn(*a, **k)
    for sub in module.modules():
        if type(sub).__name__ == "CheckpointWrapper":
            sub.checkpoint_fn = lambda m, *a, **k: m(*a, **k)
    try:
        with functorch_config.patch(activation_memory_budget=budget):
            compiled = aot_module(module, fw_compiler=forward_compiler,
                                  bw_compiler=backward_compiler,
                                  partition_fn=min_cut_rematerialization_partition)
            compiled(*inputs.values()).backward()
    finally:
        fixture_models.checkpoint = real_checkpoint
    arguments = {t.untyped_storage().data_ptr()
                 for t in list(module.parameters()) + list(module.buffers())
                 + list(inputs.values())}
    counted = {"activations": {}, "arguments": {}}
    for t in runs[-1][len(runs[-1]) - saved_count[-1]:]:
        if not isinstance(t, torch.Tensor):
            continue
        storage = t.untyped_storage()
        kind = "arguments" if storage.data_ptr() in arguments else "activations"
        counted[kind][storage.data_ptr()] = storage.nbytes()
    return (sum(counted["activations"].values()),
            sum(counted["arguments"].values()))


def thunder_example_saved(build, workdir):
    """Thunder's own checkpoint example, checkpoint(lambda x:
    x.sin().cos().exp(), x) on a 1024x1024 x, through thunder.jit in its
    environment (bench/thunder-env.sh) and through trace-mlir: the bytes
    each keeps for backward, model input included. None for Thunder
    without its environment."""
    sys.path.insert(0, os.path.join(ROOT, "bench"))
    from step_time import thunder_python
    module = ThunderExample()
    x = torch.randn(1024, 1024)
    pt = os.path.join(workdir, "thunder_example.pt2")
    sys.path.insert(0, os.path.join(ROOT, "python"))
    import trace_mlir
    torch.export.save(trace_mlir.export(module, (x,)), pt)
    mlir = os.path.join(workdir, "thunder_example.mlir")
    subprocess.run([os.path.join(build, "bin", "trace-import"), pt, "-o", mlir,
                    "--input-shape=x=1024x1024xf32"], check=True)
    saved = memory_report(build, mlir, "", workdir)["saved"]
    ours = saved["activation_bytes"] + saved["argument_bytes"]
    python = thunder_python()
    theirs = None
    if python:
        proc = subprocess.run([python, "-c", THUNDER_CHILD], capture_output=True,
                              text=True, check=True)
        theirs = int(proc.stdout.split()[-1])
    return ours, theirs


class ThunderExample(torch.nn.Module):
    """Thunder's checkpoint example as a module."""

    def forward(self, x):
        return torch.utils.checkpoint.checkpoint(
            lambda t: t.sin().cos().exp(), x, use_reentrant=False).sum()


# Run in Thunder's environment: the bytes its autograd function saves
# (each storage once, through saved-tensor hooks, input included).
THUNDER_CHILD = """
import torch, thunder
from torch.utils.checkpoint import checkpoint
def f(x):
    return checkpoint(lambda t: t.sin().cos().exp(), x, use_reentrant=False).sum()
x = torch.randn(1024, 1024, requires_grad=True)
jf = thunder.jit(f)
jf(x).backward()
seen = {}
def pack(t):
    seen[t.untyped_storage().data_ptr()] = t.numel() * t.element_size()
    return t
with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
    loss = jf(x)
loss.backward()
print(sum(seen.values()))
"""


def print_peers_table(build, workdir):
    print("\nAgainst AOTAutograd's partitioner (torch.compile's) at "
          "activation_memory_budget 1.0, 0.5 and 0.25 (between saving only "
          "the inputs, 0, and its default, 1), and trace-remat at the same "
          "budgets (a fraction of its plain min-cut): activation bytes saved "
          "for backward. The fixtures' dropout masks are saved by "
          "AOTAutograd and regenerated from their seed by trace-mlir\n")
    header = " | ".join([f"AOTAutograd {b:g}" for b in PEER_BUDGETS]
                        + ["trace min-cut"] + [f"trace budget {b:g}"
                                               for b in PEER_BUDGETS[1:]])
    print(f"| model | {header} |")
    print("|---|" + "---:|" * (2 * len(PEER_BUDGETS)) )
    for label, fixture in PEER_ROWS:
        module, inputs = fixture_models.build(fixture)
        module.load_state_dict(torch.jit.load(os.path.join(
            ROOT, "examples", "models", fixture + ".pt")).state_dict())
        module.train()
        theirs = [aot_saved(module, inputs, b)[0] for b in PEER_BUDGETS]
        pt = os.path.join(ROOT, "examples", "models", fixture + ".pt")
        mlir = import_pt(build, pt, [], os.path.join(workdir, fixture + ".mlir"))
        ours = [memory_report(build, mlir, "" if b == 1.0 else f"budget={b}",
                              workdir)["saved"]["activation_bytes"]
                for b in PEER_BUDGETS]
        print(f"| {label} | " + " | ".join(f"{v:,}" for v in theirs + ours)
              + " |")
    ours, theirs = thunder_example_saved(build, workdir)
    print("\nThunder's checkpoint example, checkpoint(lambda x: "
          "x.sin().cos().exp(), x) on a 1024x1024 f32 x: bytes kept for "
          "backward, x included\n")
    print("| thunder.jit | trace-mlir (min-cut) |")
    print("|---:|---:|")
    print(f"| {'n/a (bench/thunder-env.sh)' if theirs is None else f'{theirs:,}'}"
          f" | {ours:,} |")


def pass_seconds(build, mlir, flags, name):
    """Median of 3 of the wall time --mlir-timing gives pass `name` (summed
    over its runs, one per function for a function pass)."""
    timing = re.compile(r"^\s*([0-9.]+)\s+\(\s*[0-9.]+%\)\s+" + name + "$", re.M)
    times = []
    for _ in range(3):
        proc = subprocess.run([os.path.join(build, "bin", "trace-opt"), mlir]
                              + flags + ["--mlir-timing", "--mlir-disable-threading",
                                         "-o", os.devnull],
                              capture_output=True, text=True, check=True)
        times.append(float(timing.search(proc.stderr).group(1)))
    return statistics.median(times)


def remat_seconds(build, grad_mlir, options):
    return pass_seconds(build, grad_mlir, [f"--trace-remat={options}"], "TraceRematPass")


def forward_ops(text):
    """Ops of @forward_grad before its trace.forward_end (one per line)."""
    body = text[text.index("func.func @forward_grad("):]
    body = body[body.index("\n") + 1:body.index("trace.forward_end")]
    return sum(1 for line in body.splitlines() if line.strip())


def print_timing_table(build, workdir):
    print("\nCompile time of trace-remat (pass only, --mlir-timing, median of 3 "
          "runs) on GPTs of fixture sizes after trace-autodiff\n")
    print("| layers | forward ops | min-cut | budget 0.5 | budget 0.1 "
          "| trace-schedule after budget 0.1 |")
    print("|---:|---:|---:|---:|---:|---:|")
    for layers in (24, 48, 96):
        pt, _, _ = deep_gpt(workdir, layers)
        mlir = import_pt(build, pt, [], os.path.join(workdir, f"gpt{layers}.mlir"))
        grad = os.path.join(workdir, f"gpt{layers}_grad.mlir")
        subprocess.run([os.path.join(build, "bin", "trace-opt"), mlir,
                        "--trace-autodiff", "-o", grad], check=True)
        with open(grad) as f:
            ops = forward_ops(f.read())
        cells = [f"{remat_seconds(build, grad, o):.2f} s"
                 for o in ("", "budget=0.5", "budget=0.1")]
        remat = os.path.join(workdir, f"gpt{layers}_remat.mlir")
        subprocess.run([os.path.join(build, "bin", "trace-opt"), grad,
                        "--trace-remat=budget=0.1", "-o", remat], check=True)
        cells.append(f"{pass_seconds(build, remat, ['--trace-schedule'], 'TraceSchedulePass'):.2f} s")
        print(f"| {layers} | {int(ops):,} | " + " | ".join(cells) + " |")


def zoo_eager_saved(name, checkpoint):
    """Eager's saved bytes for a zoo model (test/Integration/Models), with
    `checkpoint` each block (zoo_models.BLOCKS) run by the reentrant
    torch.utils.checkpoint."""
    module, inputs = zoo_models.build(name)
    if checkpoint:
        pattern = re.compile("^(" + zoo_models.BLOCKS[name] + ")$")
        for path, sub in module.named_modules():
            if pattern.match(path):
                # The reentrant checkpoint takes no keyword arguments (the
                # transformer layers' masks): they go in a closure.
                def run(*args, forward=sub.forward, **kwargs):
                    return torch.utils.checkpoint.checkpoint(
                        lambda *a: forward(*a, **kwargs), *args,
                        use_reentrant=True)
                sub.forward = run
    names = [f"input{i}" for i in range(len(inputs))]
    return eager_module_saved(module, dict(zip(names, inputs)), checkpoint)


def print_zoo_table(build, workdir):
    """A row per zoo model: eager's saved bytes (and with a checkpoint per
    block), trace-mlir's min-cut and budget 0.5, and the min-cut with a
    region per block, from trace-memory-report."""
    print("\nThe model zoo (test/Integration/Models, f32, training mode): "
          "activation bytes saved for backward\n")
    print("| model | eager | eager, checkpoint per block | min-cut | budget 0.5 "
          "| min-cut, a region per block |")
    print("|---|---:|---:|---:|---:|---:|")
    for name in zoo_models.MODELS:
        pt = os.path.join(workdir, f"zoo_{name}.pt2")
        shapes = zoo_models.export(name, pt)
        mlir = os.path.join(workdir, f"zoo_{name}.mlir")
        subprocess.run([os.path.join(build, "bin", "trace-import"), pt, "-o", mlir,
                        f"--input-shape={shapes}"], check=True)
        cells = [f"{zoo_eager_saved(name, False):,}"]
        blocks = zoo_models.BLOCKS.get(name)
        cells.append(f"{zoo_eager_saved(name, True):,}" if blocks else "n/a")
        for plan in ("", "budget=0.5"):
            r = memory_report(build, mlir, plan, workdir)
            cells.append(f"{r['saved']['activation_bytes']:,}")
        if blocks:
            regions = os.path.join(workdir, f"zoo_{name}_regions.mlir")
            subprocess.run([os.path.join(build, "bin", "trace-import"), pt, "-o",
                            regions, f"--input-shape={shapes}",
                            f"--checkpoint-modules={blocks}"], check=True)
            r = memory_report(build, regions, "", workdir)
            cells.append(f"{r['saved']['activation_bytes']:,}")
        else:
            cells.append("n/a")
        print(f"| {name} | " + " | ".join(cells) + " |", flush=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--skip-remat", action="store_true")
    parser.add_argument("--skip-timing", action="store_true")
    parser.add_argument("--zoo-only", action="store_true",
                        help="only the model zoo's table")
    parser.add_argument("--peers-only", action="store_true",
                        help="only the tables against AOTAutograd and Thunder")
    args = parser.parse_args()
    workdir = os.path.join(args.build, "bench", "saved_bytes")
    os.makedirs(workdir, exist_ok=True)
    torch.manual_seed(0)
    if args.peers_only:
        print(f"Saved for backward, {datetime.date.today()}, PyTorch "
              f"{torch.__version__}")
        print_peers_table(args.build, workdir)
        return
    if args.zoo_only:
        print(f"Saved for backward, {datetime.date.today()}, PyTorch "
              f"{torch.__version__}")
        print_zoo_table(args.build, workdir)
        return

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
    if not args.skip_remat:
        print_remat_table(args.build, workdir)
    print_zoo_table(args.build, workdir)
    print_peers_table(args.build, workdir)
    if not args.skip_timing:
        print_timing_table(args.build, workdir)


if __name__ == "__main__":
    main()
