#!/usr/bin/env python3
"""Generates the torch.export fixtures trace-import's .pt2 importer is tested
on (test/Importer/Export/Inputs/).

    .venv/bin/python scripts/gen-export-fixtures.py [--out DIR]

The project's python (.venv, with the torch python/requirements.txt pins).
Each fixture is `torch.export.export(module, inputs)`, then
`run_decompositions()` (Core ATen), saved with `torch.export.save`:

    mlp.pt2, gpt.pt2, nested.pt2   scripts/fixture_models.py's models
    markers.pt2     torch.utils.checkpoint calls marked as trace_mlir's export
                    marks them: a call per block from one line (two regions of
                    one name), a call inside a call
    norms.pt2       BatchNorm1d in training, one outside and one inside a
                    marked call: running statistics as buffer mutations
    dynamic.pt2     a symbolic batch dim (dynamic_shapes, 2..64)
    constant.pt2    a tensor attribute, lifted as a tensor constant
    unsupported.pt2 cdist, a Core ATen op without a handler
    ops.pt2         convolution, elementwise and shape ops beyond the models'
    reentered.pt2   a marked call whose nodes another node splits
    nested_grad.pt2 nested.pt2 exported with grad enabled (see below)
    truncated.pt2   mlp.pt2 cut in half
    schema.pt2      mlp.pt2 with its JSON's schema_version.major set to 7
    layout.pt2      mlp.pt2 with its archive_version record set to 1

Deterministic (the same bytes on every run, in any checkout): modules are
built under a fixed seed; every node's `from_node` metadata (which records
Python object ids) is dropped, and the checkout's root is cut from the file
names of the recorded stack traces, so they read `scripts/...` and
`.venv/lib/...`.

Models are exported under torch.no_grad(): PyTorch's non-reentrant
checkpoint (CheckpointWrapper's) switches grad mode in its saved-tensor
hook while export records a training graph, and export then wraps stretches
of the graph in set_grad_enabled regions whose nodes, once
run_decompositions inlines them, carry the first node's module stack (an
`add` after `mlp1` read as inside `mlp1`). Without saved tensors there is
no switch. The graph is the same: Core ATen, dropout and BatchNorm in
training mode. nested_grad.pt2 is exported with grad enabled, to test the
importer's warning about such stacks.

The markers are what python/trace_mlir's export writes (that module patches
torch.utils.checkpoint.checkpoint during export): each node run under a
checkpoint call carries, in `node.meta["custom"]`, the key
`trace_mlir.checkpoint` with the list, outermost first, of the calls it ran
under, {"id": INT, "name": "FILE:LINE"}; `torch.fx.traceback.annotate` under
`preserve_node_meta()` puts it there, and export and run_decompositions keep
it.
"""

import argparse
import contextlib
import json
import os
import shutil
import sys
import zipfile

import torch
import torch.fx.traceback as fxt
import torch.nn as nn
import torch.nn.functional as F

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import fixture_models  # noqa: E402

SEED = 0
HERE = "scripts/gen-export-fixtures.py"

# --------------------------------------------------------------------------
# Checkpoint-call markers, as trace_mlir's export writes them.

_calls = []  # the calls open now, outermost first


@contextlib.contextmanager
def checkpoint_call(call_id):
    """Marks the ops run inside as one checkpoint call `call_id`, named by
    the line of the `with` (as trace_mlir names a call by its call site)."""
    line = sys._getframe(2).f_lineno  # the caller's, past contextlib's
    _calls.append({"id": call_id, "name": f"{HERE}:{line}"})
    try:
        with fxt.annotate({"trace_mlir.checkpoint": list(_calls)}):
            yield
    finally:
        _calls.pop()


class Marked(nn.Module):
    """Two blocks checkpointed by calls from one line, then a call that
    checkpoints a call inside it; dropout inside the first calls."""

    def __init__(self, d=8):
        super().__init__()
        self.inp = nn.Linear(d, d)
        self.blocks = nn.ModuleList([nn.Linear(d, d) for _ in range(2)])
        self.drop = nn.Dropout(0.25)
        self.head = nn.Linear(d, 1)

    def forward(self, x):
        h = self.inp(x)
        for i, block in enumerate(self.blocks):
            with checkpoint_call(i):
                h = self.drop(torch.tanh(block(h))) + h
        with checkpoint_call(2):
            g = torch.sin(h)
            with checkpoint_call(3):
                g = torch.cos(g) * 2.0
            g = g + h
        return self.head(g).mean()


class Norms(nn.Module):
    """BatchNorm1d in training, outside and inside a checkpoint call."""

    def __init__(self, d=8):
        super().__init__()
        self.lin = nn.Linear(d, d)
        self.bn1 = nn.BatchNorm1d(d)
        self.bn2 = nn.BatchNorm1d(d)

    def forward(self, x):
        h = self.bn1(self.lin(x))
        with checkpoint_call(0):
            h = torch.relu(self.bn2(h))
        return h.sum()


class Dynamic(nn.Module):
    """A batch dim export keeps symbolic; a view that reads it."""

    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)

    def forward(self, x):
        h = torch.relu(self.lin(x))
        return h.view(x.shape[0], 2, 2).sum(dim=(1, 2)).mean()


class Constant(nn.Module):
    """A plain tensor attribute: export lifts it as a tensor constant."""

    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)
        self.scale = torch.tensor([1.0, 2.0, 3.0, 4.0])

    def forward(self, x):
        return (self.lin(x) * self.scale).sum()


class Ops(nn.Module):
    """The Core ATen ops beyond the models': convolution, unary and binary
    elementwise ops, clamp, slices, selects, concatenation, softmax, amax."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(2, 3, 3, padding=1)
        self.lin = nn.Linear(12, 5)

    def forward(self, x, y):
        c = self.conv(x)
        c = torch.sigmoid(c) * torch.exp(-c.abs())
        p = c.flatten(1)[:, :12]
        a = torch.maximum(p, y) - torch.minimum(p, y)
        b = (torch.rsqrt(a.abs() + 1.0) + torch.sqrt(a.abs() + 0.5)
             + torch.log(a.abs() + 2.0))
        s = torch.clamp(torch.sin(b) * torch.cos(b), -0.2, 0.2)
        z = torch.cat([s, y.t()[3:].t()], dim=1)
        q = torch.softmax(self.lin(z[:, 2:14]), dim=-1)
        return q.amax(dim=-1).sum() + z.select(1, 3).sum()


class NNOps(nn.Module):
    """The Core ATen ops of CNNs and masked attention: max and average
    pooling (adaptive too), constant padding (a crop as well), hardtanh
    and relu6, group norm, BatchNorm without running statistics, logical
    ops on a mask, scatter_add."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(2, 4, 3)
        self.gn = nn.GroupNorm(2, 4)
        self.bn = nn.BatchNorm2d(4, track_running_stats=False)

    def forward(self, x, index):
        h = self.conv(F.pad(x, (1, 2, 0, -1), value=0.5))
        h = F.hardtanh(self.gn(h), -0.6, 0.8) + F.relu6(self.bn(h) * 4.0)
        m = F.max_pool2d(h, 2, stride=1, padding=1)
        a = F.avg_pool2d(h, 3, stride=2, padding=1, count_include_pad=False)
        g = F.adaptive_avg_pool2d(m, (2, 3)).flatten(1)
        mask = torch.logical_or(torch.logical_not(g > 0.1), g < -0.1)
        g = torch.where(torch.logical_and(mask, g != 0.0), g * 2.0, g)
        s = torch.zeros(2, 4, dtype=g.dtype).scatter_add(1, index, g[:, :6])
        return s.pow(2).sum() + a.mean()


class Reentered(nn.Module):
    """One checkpoint call whose nodes an unmarked node splits in two: not
    one region."""

    def forward(self, x):
        with checkpoint_call(0):
            a = torch.sin(x)
        b = torch.cos(x)
        with checkpoint_call(0):
            c = torch.exp(a)
        return (b + c).sum()


class Distances(nn.Module):
    def forward(self, x):
        return torch.cdist(x, x)


class Unsupported(nn.Module):
    """cdist (Core ATen's _cdist_forward), inside a submodule (the error
    names its path)."""

    def __init__(self):
        super().__init__()
        self.dist = Distances()

    def forward(self, x):
        return self.dist(x).sum()


def _own(make, *inputs, dynamic=None):
    def build():
        torch.manual_seed(SEED)
        m = make()
        m.train()
        return m, tuple(inputs), dynamic
    return build


def _fixture(name):
    def build():
        m, inputs = fixture_models.build(name)
        return m, tuple(inputs.values()), None
    return build


FIXTURES = {
    "mlp": _fixture("mlp"),
    "gpt": _fixture("gpt"),
    "nested": _fixture("nested"),
    "markers": _own(Marked, torch.ones(4, 8)),
    "norms": _own(Norms, torch.ones(6, 8)),
    "dynamic": _own(Dynamic, torch.ones(3, 4),
                    dynamic={"x": {0: torch.export.Dim("batch", min=2,
                                                       max=64)}}),
    "constant": _own(Constant, torch.ones(2, 4)),
    "unsupported": _own(Unsupported, torch.ones(2, 3)),
    "ops": _own(Ops, torch.ones(2, 2, 4, 4), torch.ones(2, 12)),
    "reentered": _own(Reentered, torch.ones(2, 3)),
    # In float64: its batch norm over 2x6x5 values is ill-conditioned, and
    # float32 gradients differ from PyTorch's in rounding.
    "nn_ops": _own(lambda: NNOps().double(),
                   torch.ones(2, 2, 7, 6, dtype=torch.float64),
                   torch.tensor([[0, 1, 2, 3, 0, 1], [3, 3, 2, 1, 0, 0]])),
    # Exported with grad enabled: the module stacks of the checkpointed
    # blocks are wrong (the docstring says why); the importer warns.
    "nested_grad": _fixture("nested"),
}
NO_GRAD_EXCEPT = {"nested_grad"}


def export(name, path):
    module, inputs, dynamic = FIXTURES[name]()
    grad = torch.enable_grad() if name in NO_GRAD_EXCEPT else torch.no_grad()
    with fxt.preserve_node_meta(), grad:
        ep = torch.export.export(module, inputs, dynamic_shapes=dynamic)
        ep = ep.run_decompositions()
    for node in ep.graph.nodes:
        node.meta.pop("from_node", None)
        if "stack_trace" in node.meta and node.meta["stack_trace"]:
            node.meta["stack_trace"] = node.meta["stack_trace"].replace(
                ROOT + os.sep, "")
    torch.export.save(ep, path)
    return ep


def rewrite(good, bad, edit):
    """A copy of archive `good` with each record's bytes passed through
    `edit(name, data)` (`name` without the archive's folder)."""
    prefix = os.path.basename(good)[:-len(".pt2")] + "/"
    with zipfile.ZipFile(good) as src, zipfile.ZipFile(bad, "w") as dst:
        for info in src.infolist():
            name = info.filename[len(prefix):]
            data = edit(name, src.read(info.filename))
            out = zipfile.ZipInfo(
                os.path.basename(bad)[:-len(".pt2")] + "/" + name,
                date_time=(1980, 1, 1, 0, 0, 0))
            dst.writestr(out, data, compress_type=zipfile.ZIP_STORED)


def schema_major(major):
    def edit(name, data):
        if name != "models/model.json":
            return data
        program = json.loads(data)
        program["schema_version"]["major"] = major
        return json.dumps(program).encode()
    return edit


def archive_version(version):
    return lambda name, data: version if name == "archive_version" else data


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", default=os.path.join(
        ROOT, "test", "Importer", "Export", "Inputs"))
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    for name in FIXTURES:
        path = os.path.join(args.out, f"{name}.pt2")
        ep = export(name, path)
        ops = sorted({str(n.target) for n in ep.graph.nodes
                      if n.op == "call_function"})
        print(f"{name}.pt2: {', '.join(ops)}")
    mlp = os.path.join(args.out, "mlp.pt2")
    with open(mlp, "rb") as f:
        data = f.read()
    with open(os.path.join(args.out, "truncated.pt2"), "wb") as f:
        f.write(data[:len(data) // 2])
    rewrite(mlp, os.path.join(args.out, "schema.pt2"), schema_major(7))
    rewrite(mlp, os.path.join(args.out, "layout.pt2"), archive_version(b"1"))


if __name__ == "__main__":
    main()
