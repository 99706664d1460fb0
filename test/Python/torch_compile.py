"""torch.compile(backend="trace_mlir") against eager (torch_compile.test).

Each check prints one PASS or FAIL line; the script exits 1 if any failed.
  * training: 20 SGD steps on the MLP and the GPT fixtures (its blocks
    checkpointed with torch.utils.checkpoint calls), a new batch per step:
    the loss at every step equals eager's (rtol 1e-4, atol 1e-6), and so
    does every gradient;
  * Thunder's checkpoint example, exactly: f(x) = checkpoint(lambda x:
    x.sin().cos().exp(), x): one checkpoint region in the import, its
    sin and cos recomputed in the backward,
    gradients equal eager's; the same through trace_mlir.compile (a .pt2
    from trace_mlir.export, then trace-compile);
  * a graph break (a .item() in forward): the code dynamo
    cannot capture runs eagerly between two compiled graphs, and the
    loss and gradients equal eager's;
  * a new input shape: dynamo compiles the graph again and the step
    equals eager's on both shapes;
  * the backend is found by name: "trace_mlir" is in
    torch._dynamo.list_backends().
"""

import copy
import glob
import os
import re
import sys
import tempfile
import warnings

import torch
import torch.nn as nn

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import fixture_models  # noqa: E402
import trace_mlir  # noqa: E402
from checks import check, summary  # noqa: E402

RTOL, ATOL = 1e-4, 1e-6


def close(a, b):
    return torch.allclose(a, b, rtol=RTOL, atol=ATOL)


def mlp_batch(gen):
    return torch.randn(8, 32, generator=gen), torch.randn(8, 16, generator=gen)


def gpt_model():
    return fixture_models.CallingGPT("module", vocab=32, block_size=8,
                                     d_model=32, n_head=2, n_layer=2,
                                     dropout=0.0)


def gpt_batch(gen):
    return (torch.randint(0, 32, (2, 8), generator=gen),
            torch.randint(0, 32, (2, 8), generator=gen))


def train(label, make_model, make_batch, cache):
    """20 SGD steps of torch.compile(model, backend="trace_mlir") beside
    eager on the same batches."""
    torch.manual_seed(0)
    model = make_model()
    reference = copy.deepcopy(model)
    compiled = torch.compile(model, backend="trace_mlir",
                             options={"cache_dir": cache})
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    ref_opt = torch.optim.SGD(reference.parameters(), lr=0.05)
    gen = torch.Generator().manual_seed(1)
    ok, worst = True, 0.0
    for _ in range(20):
        batch = make_batch(gen)
        opt.zero_grad()
        ref_opt.zero_grad()
        loss = compiled(*batch)
        loss.backward()
        ref = reference(*batch)
        ref.backward()
        worst = max(worst, ((loss - ref).abs() / ref.abs()).item())
        ok &= close(loss.detach(), ref.detach())
        for p, q in zip(model.parameters(), reference.parameters()):
            ok &= p.grad is not None and close(p.grad, q.grad)
        opt.step()
        ref_opt.step()
    check(f"{label}: 20 SGD steps, losses and gradients equal eager's", ok,
          f"max rel. loss difference {worst:.1e}")


def stage(cache, name):
    """The text of stage `name` of the one library compiled in `cache`."""
    found = glob.glob(os.path.join(cache, "*", name))
    if len(found) != 1:
        return ""
    with open(found[0]) as f:
        return f.read()


def function(ir, name):
    """The text of func.func @name in `ir`."""
    match = re.search(r"func\.func @" + name + r"\(.*?\n  }\n", ir, re.S)
    return match.group(0) if match else ""


def thunder_example(cache):
    f = lambda x: torch.utils.checkpoint.checkpoint(  # noqa: E731
        lambda x: x.sin().cos().exp(), x, use_reentrant=False)
    compiled = torch.compile(f, backend="trace_mlir",
                             options={"cache_dir": cache})
    x = torch.randn(64, 64, requires_grad=True)
    y = compiled(x)
    g = torch.randn_like(y)
    y.backward(g)
    x_ref = x.detach().clone().requires_grad_()
    y_ref = f(x_ref)
    y_ref.backward(g)
    imported = stage(cache, "01-import.mlir")
    regions = imported.count("trace.checkpoint ")
    remat = stage(cache, "03-remat.mlir")
    fwd = function(remat, "forward_fwd")
    bwd = function(remat, "forward_bwd")
    check("Thunder's example: one checkpoint region, sin and cos recomputed "
          "in backward, gradients equal eager's",
          regions == 1 and "trace.sin" in bwd and "trace.cos" in bwd and
          close(y.detach(), y_ref.detach()) and close(x.grad, x_ref.grad),
          f"{regions} regions; sin, cos in forward_fwd "
          f"{fwd.count('trace.sin')}, {fwd.count('trace.cos')}; in "
          f"forward_bwd {bwd.count('trace.sin')}, {bwd.count('trace.cos')}")


class Thunder(nn.Module):
    def forward(self, x):
        return torch.utils.checkpoint.checkpoint(
            lambda x: x.sin().cos().exp(), x, use_reentrant=False)


def thunder_through_export(cache):
    """The same example through trace_mlir.export, torch.export.save and
    trace-compile, as trace_mlir.compile runs them."""
    step = trace_mlir.compile(Thunder(), (torch.randn(64, 64),),
                              cache_dir=cache)
    x = torch.randn(64, 64, requires_grad=True)
    y = step(x)
    g = torch.randn_like(y)
    y.backward(g)
    x_ref = x.detach().clone().requires_grad_()
    Thunder()(x_ref).backward(g)
    archives = glob.glob(os.path.join(cache, "*.pt2"))
    regions = stage(cache, "01-import.mlir").count("trace.checkpoint ")
    bwd = function(stage(cache, "03-remat.mlir"), "forward_bwd")
    check("Thunder's example through a .pt2 and trace-compile: one region, "
          "sin and cos recomputed in backward, gradients equal eager's",
          len(archives) == 1 and regions == 1 and "trace.sin" in bwd and
          "trace.cos" in bwd and close(x.grad, x_ref.grad),
          f"{len(archives)} archives, {regions} regions")


class Breaks(nn.Module):
    """Two linear layers with code dynamo cannot capture between them."""

    def __init__(self):
        super().__init__()
        self.a = nn.Linear(16, 16)
        self.b = nn.Linear(16, 4)

    def forward(self, x):
        h = torch.tanh(self.a(x))
        scale = 1.0 + float(h.abs().mean().item() > 10.0)  # a graph break
        return (self.b(h) * scale).pow(2).mean()


def graph_break(cache):
    torch.manual_seed(0)
    model = Breaks()
    reference = copy.deepcopy(model)
    compiled = torch.compile(model, backend="trace_mlir",
                             options={"cache_dir": cache})
    x = torch.randn(8, 16)
    loss = compiled(x)
    loss.backward()
    ref = reference(x)
    ref.backward()
    ok = close(loss.detach(), ref.detach()) and all(
        close(p.grad, q.grad) for p, q in zip(model.parameters(),
                                              reference.parameters()))
    libraries = len(glob.glob(os.path.join(cache, "*", "libstep.so")))
    check("a graph break: two compiled graphs, the break run eagerly, loss "
          "and gradients equal eager's", ok and libraries == 2,
          f"{libraries} libraries")


def new_shape(cache):
    torch.manual_seed(0)
    model = fixture_models.MLP()
    reference = copy.deepcopy(model)
    compiled = torch.compile(model, backend="trace_mlir",
                             options={"cache_dir": cache})
    gen = torch.Generator().manual_seed(2)
    ok = True
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for batch in (8, 4, 8):
            x, y = torch.randn(batch, 32, generator=gen), \
                torch.randn(batch, 16, generator=gen)
            ok &= close(compiled(x, y).detach(), reference(x, y).detach())
    check("a new input shape compiles again; both equal eager's", ok)


def main():
    import torch._dynamo
    check("'trace_mlir' is a torch.compile backend",
          "trace_mlir" in torch._dynamo.list_backends())
    for label, make_model, make_batch in (
            ("MLP", fixture_models.MLP, mlp_batch),
            ("GPT", gpt_model, gpt_batch)):
        torch._dynamo.reset()
        with tempfile.TemporaryDirectory(prefix="trace_mlir-test-") as cache:
            train(label, make_model, make_batch, cache)
    for test in (thunder_example, thunder_through_export, graph_break,
                 new_shape):
        torch._dynamo.reset()
        with tempfile.TemporaryDirectory(prefix="trace_mlir-test-") as cache:
            test(cache)
    return summary()


if __name__ == "__main__":
    sys.exit(main())
