"""trace_mlir.compile against PyTorch eager (test/Python/train.test).

Each check prints one PASS or FAIL line; the script exits 1 if any failed.
  * training: 20 steps each of SGD and AdamW on the MLP and GPT fixtures
    (dropout 0), a new random batch per step: the loss at every step and
    every parameter's gradient equal eager's (rtol 1e-4, atol 1e-6); the
    parameters' largest difference after the last step is printed (Adam
    turns gradients that differ in rounding into steps of lr);
  * state: the compiled module's parameters are the model's tensors, and
    its state_dict the model's, under `module.`;
  * eval(): the loss and gradients equal eager's in eval mode (the GPT
    with dropout), and under torch.no_grad the loss;
  * a submodule called twice (two saved values of one name) and an input
    that requires grad: gradients equal eager's; a second backward
    raises;
  * a model with two outputs, neither a loss: autograd's cotangents;
  * dropout: the same torch.manual_seed gives the same losses, another
    seed other ones;
  * a new batch size recompiles, warns once, and gives eager's loss;
    with recompile="error" it raises;
  * errors: an unsupported op raises TraceMLIRError with the importer's
    message (the op's Core ATen name and its source line), an input of another
    dtype a TypeError.
"""

import copy
import os
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
def max_rel(a, b):
    return ((a - b).abs() / (b.abs() + ATOL / RTOL)).max().item()


def mlp(gen, batch=8):
    x = torch.randn(batch, 32, generator=gen)
    y = torch.randn(batch, 16, generator=gen)
    return x, y


def gpt_model(dropout=0.0):
    return fixture_models.GPT(vocab=32, block_size=8, d_model=32, n_head=2,
                              n_layer=2, dropout=dropout, checkpoint=True)


def gpt(gen, batch=2):
    idx = torch.randint(0, 32, (batch, 8), generator=gen)
    targets = torch.randint(0, 32, (batch, 8), generator=gen)
    return idx, targets


def train(label, make_model, make_batch, make_opt, cache):
    torch.manual_seed(0)
    model = make_model()
    reference = copy.deepcopy(model)
    gen = torch.Generator().manual_seed(1)
    compiled = trace_mlir.compile(model, make_batch(gen), cache_dir=cache)
    opt, ref_opt = make_opt(model), make_opt(reference)
    worst_loss = worst_grad = 0.0
    ok = True
    for _ in range(20):
        batch = make_batch(gen)
        opt.zero_grad()
        ref_opt.zero_grad()
        loss = compiled(*batch)
        loss.backward()
        ref = reference(*batch)
        ref.backward()
        worst_loss = max(worst_loss, max_rel(loss.detach(), ref.detach()))
        ok &= torch.allclose(loss, ref, rtol=RTOL, atol=ATOL)
        for (name, p), q in zip(model.named_parameters(),
                                reference.parameters()):
            worst_grad = max(worst_grad, max_rel(p.grad, q.grad))
            ok &= torch.allclose(p.grad, q.grad, rtol=RTOL, atol=ATOL)
        opt.step()
        ref_opt.step()
    drift = max((p - q).abs().max().item() for p, q in
                zip(model.parameters(), reference.parameters()))
    check(f"{label}: 20 steps, losses and gradients equal eager's", ok,
          f"max rel. loss {worst_loss:.1e}, gradient {worst_grad:.1e}; "
          f"parameters after: max abs. difference {drift:.1e}")
    return model, compiled, reference


def main():
    with tempfile.TemporaryDirectory(prefix="trace_mlir-test-") as cache:
        return checks(cache)


def checks(cache):
    sgd = lambda m: torch.optim.SGD(m.parameters(), lr=0.05)  # noqa: E731
    adamw = lambda m: torch.optim.AdamW(m.parameters(), lr=1e-3)  # noqa: E731
    train("MLP, SGD", fixture_models.MLP, mlp, sgd, cache)
    model, compiled, reference = train("MLP, AdamW", fixture_models.MLP, mlp,
                                       adamw, cache)
    train("GPT, SGD", gpt_model, gpt, sgd, cache)
    train("GPT, AdamW", gpt_model, gpt, adamw, cache)

    # State: the same tensors, the same names.
    same = all(a is b for a, b in zip(compiled.parameters(),
                                      model.parameters()))
    check("parameters are the model's tensors", same)
    state = compiled.state_dict()
    check("state_dict is the model's, under module.",
          list(state) == ["module." + k for k in model.state_dict()] and
          all(state["module." + k].data_ptr() == v.data_ptr()
              for k, v in model.state_dict().items()))
    compiled.load_state_dict(state)

    # eval(): the eval-mode step (dropout off), differentiable; under
    # no_grad the forward only. The GPT has dropout, so the two libraries
    # differ.
    torch.manual_seed(0)
    dropping = gpt_model(dropout=0.1)
    eager_eval = copy.deepcopy(dropping).eval()
    gen = torch.Generator().manual_seed(2)
    batch = gpt(gen)
    c = trace_mlir.compile(dropping, batch, cache_dir=cache)
    c.eval()
    loss = c(*batch)
    loss.backward()
    ref = eager_eval(*batch)
    ref.backward()
    grads_ok = all(torch.allclose(p.grad, q.grad, rtol=RTOL, atol=ATOL)
                   for p, q in zip(dropping.parameters(),
                                   eager_eval.parameters()))
    with torch.no_grad():
        quiet = c(*batch)
    check("eval(): eager's eval loss and gradients; no_grad the same loss",
          torch.allclose(loss, ref, rtol=RTOL, atol=ATOL) and grads_ok and
          torch.allclose(quiet, ref, rtol=RTOL, atol=ATOL))
    batch = mlp(gen)

    # One submodule called twice: two saved values of one name.
    class Twice(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Linear(6, 6)
            self.fc2 = nn.Linear(6, 6)
            self.act = nn.Tanh()

        def forward(self, x):
            return self.act(self.fc2(self.act(self.fc1(x)))).square().sum()
    torch.manual_seed(5)
    twice = Twice()
    twin = copy.deepcopy(twice)
    x = torch.randn(4, 6, requires_grad=True)
    x_ref = x.detach().clone().requires_grad_()
    c = trace_mlir.compile(twice, (x,), cache_dir=cache)
    loss = c(x)
    loss.backward(retain_graph=True)
    twin(x_ref).backward()
    check("a submodule called twice, an input that requires grad: "
          "gradients equal eager's",
          all(torch.allclose(p.grad, q.grad, rtol=RTOL, atol=ATOL)
              for p, q in zip(twice.parameters(), twin.parameters())) and
          x.grad is not None and
          torch.allclose(x.grad, x_ref.grad, rtol=RTOL, atol=ATOL))
    try:
        loss.backward()
        check("a second backward raises", False)
    except trace_mlir.TraceMLIRError as e:
        check("a second backward raises", "retain_graph" in str(e))

    # A new batch size recompiles, and says so once.
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        big = mlp(gen, batch=16)
        loss = compiled(*big)
        compiled(*big)
    said = [w for w in caught if "recompiling" in str(w.message)]
    check("a new shape recompiles, one warning",
          len(said) == 1 and torch.allclose(loss, reference(*big),
                                            rtol=RTOL, atol=ATOL),
          str(said[0].message) if said else "no warning")
    strict = trace_mlir.compile(fixture_models.MLP(), mlp(gen),
                                cache_dir=cache, recompile="error")
    try:
        strict(*mlp(gen, batch=4))
        check("recompile='error' raises", False)
    except trace_mlir.TraceMLIRError as e:
        check("recompile='error' raises", "recompiling" in str(e))

    # load(): the library compile() built, taken again without compiling
    # (as on a machine without the compiler): the same step, bit for bit;
    # another shape or a directory without a step raises.
    torch.manual_seed(0)
    source = gpt_model()
    twin = copy.deepcopy(source)
    batch = gpt(torch.Generator().manual_seed(3))
    built = trace_mlir.compile(source, batch, cache_dir=cache)
    loaded = trace_mlir.load(twin, built.directories[0])
    first = built(*batch)
    first.backward()
    loss = loaded(*batch)
    loss.backward()
    check("load(): the compiled step again, bit for bit",
          torch.equal(loss, first) and
          all(torch.equal(p.grad, q.grad) for p, q in
              zip(source.parameters(), twin.parameters())))
    try:
        loaded(*gpt(gen, batch=3))
        check("load(): another shape raises", False)
    except trace_mlir.TraceMLIRError as e:
        check("load(): another shape raises", "was loaded from" in str(e),
              str(e))
    try:
        trace_mlir.load(twin, os.path.join(cache, "no-such-step"))
        check("load(): a directory without a step raises", False)
    except trace_mlir.TraceMLIRError as e:
        check("load(): a directory without a step raises",
              "cannot read" in str(e))

    # Outputs that are not a scalar loss: the cotangents come from autograd.
    class TwoHeads(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(6, 5)

        def forward(self, x):
            h = torch.tanh(self.fc(x))
            return h, h.sum(dim=1)
    torch.manual_seed(4)
    heads = TwoHeads()
    twin = copy.deepcopy(heads)
    x = torch.randn(3, 6)
    c = trace_mlir.compile(heads, (x,), cache_dir=cache)
    h, s = c(x)
    ((h * h).sum() + (s * torch.arange(3.0)).sum()).backward()
    rh, rs = twin(x)
    ((rh * rh).sum() + (rs * torch.arange(3.0)).sum()).backward()
    check("two outputs, cotangents from autograd: gradients equal eager's",
          torch.allclose(h, rh, rtol=RTOL, atol=ATOL) and
          all(torch.allclose(p.grad, q.grad, rtol=RTOL, atol=ATOL)
              for p, q in zip(heads.parameters(), twin.parameters())))

    # Dropout: a fresh Philox seed per step from torch's generator.
    def losses(seed):
        torch.manual_seed(0)
        m = gpt_model(dropout=0.1)
        g = torch.Generator().manual_seed(3)
        c = trace_mlir.compile(m, gpt(g), cache_dir=cache)
        torch.manual_seed(seed)
        return [c(*gpt(g)).item() for _ in range(3)]
    first, again, other = losses(5), losses(5), losses(6)
    check("dropout: the same seed reproduces, another differs",
          first == again and first != other, f"{first} {other}")

    # Errors.
    class Distances(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(4, 4)

        def forward(self, x):
            return torch.cdist(self.fc(x), x).mean()
    try:
        trace_mlir.compile(Distances(), (torch.randn(2, 4),), cache_dir=cache)
        check("an unsupported op raises TraceMLIRError", False)
    except trace_mlir.TraceMLIRError as e:
        text = str(e)
        check("an unsupported op raises TraceMLIRError",
              "torch.ops.aten._cdist_forward.default" in text and
              "train.py" in text,
              text.splitlines()[0])
    try:
        compiled(batch[0].double(), batch[1])
        check("an input of another dtype raises TypeError", False)
    except TypeError as e:
        check("an input of another dtype raises TypeError",
              "torch.float32" in str(e), str(e))

    return summary()


if __name__ == "__main__":
    sys.exit(main())
