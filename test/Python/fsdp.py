"""trace_mlir.compile and FSDP's parameter handling (test/Python/fsdp.test).

Each check prints one PASS or FAIL line; the script exits 1 if any failed.

FSDP (FullyShardedDataParallel) takes a wrapped module's parameters out
of their modules, keeps them as one flat parameter, and before each
forward puts views of it (or gathered parameters) back where they were.
Debian's PyTorch 1.13 cannot import torch.distributed.fsdp on Python 3.11
(a dataclass in its sharded-tensor metadata is rejected), and runs FSDP
only with CUDA anyway. So here the test does to the model what FSDP's
FlatParamHandle does when it wraps a module and before each forward: each
parameter is taken out of its module, one flat Parameter holds them all,
and plain tensor views of it are set where they were. The compiled step
must read those views, not the parameters it was compiled from, and the
flat parameter's gradient must be eager's:

  * 10 SGD steps of the GPT fixture on the flat parameter: the loss at
    every step equals eager's (rtol 1e-4, atol 1e-6), and so does the
    flat gradient against eager's gradients concatenated in the flat
    parameter's order; every other step the flat parameter moves to new
    memory, as a gather may put it, so a step that kept earlier tensors
    would fail;
  * a submodule wrapped by FSDP (its hooks never run in the compiled
    step, so it would be read sharded) raises TraceMLIRError naming it:
    one whose class derives from one named FSDPModule, as PyTorch 2's
    fully_shard makes it, and one inside a module named
    FullyShardedDataParallel, as FSDP 1 wraps it;
  * after the flattening, a new input shape (which would trace the model
    again, now without its parameters) raises TraceMLIRError, and so does
    a tensor subclass in a parameter's place (a DTensor holds one rank's
    shard).

Real FSDP on a GPU: test/Python/cuda_train.py --run (scripts/gpu-check.sh).
"""

import copy
import os
import sys
import tempfile

import torch

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import fixture_models  # noqa: E402
import trace_mlir  # noqa: E402
from checks import check, summary  # noqa: E402

RTOL, ATOL = 1e-4, 1e-6
STEPS = 10


def gpt_model():
    torch.manual_seed(0)
    return fixture_models.GPT(vocab=32, block_size=8, d_model=32, n_head=2,
                              n_layer=2, dropout=0.0, checkpoint=True)


def gpt_batch(gen):
    return (torch.randint(0, 32, (2, 8), generator=gen),
            torch.randint(0, 32, (2, 8), generator=gen))


def max_rel(a, b):
    return ((a - b).abs() / (b.abs() + ATOL / RTOL)).max().item()


class Flattened:
    """What FSDP's FlatParamHandle does to `model`: its parameters, in
    named_parameters() order, become one flat Parameter (`flat`), and
    `use_views()`, which FSDP runs before each forward, sets a plain
    tensor view of it in each parameter's place."""

    def __init__(self, model):
        self.model = model
        self.params = [(n, p.shape, p.numel())
                       for n, p in model.named_parameters()]
        self.flat = torch.nn.Parameter(torch.cat(
            [p.detach().reshape(-1) for p in model.parameters()]))
        for name, _, _ in self.params:
            path, _, attr = name.rpartition(".")
            del self.model.get_submodule(path)._parameters[attr]
        self.use_views()

    def use_views(self):
        offset = 0
        for name, shape, size in self.params:
            path, _, attr = name.rpartition(".")
            setattr(self.model.get_submodule(path), attr,
                    self.flat[offset:offset + size].view(shape))
            offset += size


def train_flattened(cache):
    model = gpt_model()
    reference = copy.deepcopy(model)
    order = [n for n, _ in model.named_parameters()]
    gen = torch.Generator().manual_seed(1)
    compiled = trace_mlir.compile(model, gpt_batch(gen), cache_dir=cache)
    flattened = Flattened(model)
    flat = flattened.flat
    # The model's parameters are now views of the flat one, not Parameters.
    check("the flattening leaves the model no parameters of its own",
          len(list(model.parameters())) == 0)
    opt = torch.optim.SGD([flat], lr=0.1)
    ref_opt = torch.optim.SGD(reference.parameters(), lr=0.1)
    ref_params = dict(reference.named_parameters())
    ok, worst_loss, worst_grad = True, 0.0, 0.0
    for step in range(STEPS):
        batch = gpt_batch(gen)
        opt.zero_grad()
        ref_opt.zero_grad()
        if step % 2:
            # The gathered parameter in new memory, as FSDP's all-gather
            # may put it: a step that kept the tensors of an earlier call
            # would read stale weights from then on.
            flat.data = flat.data.clone()
        flattened.use_views()  # FSDP's pre-forward
        loss = compiled(*batch)
        loss.backward()
        ref = reference(*batch)
        ref.backward()
        ref_flat = torch.cat([ref_params[n].grad.reshape(-1) for n in order])
        worst_loss = max(worst_loss, max_rel(loss.detach(), ref.detach()))
        ok &= torch.allclose(loss, ref, rtol=RTOL, atol=ATOL)
        if flat.grad is None:
            ok = False
            break
        worst_grad = max(worst_grad, max_rel(flat.grad, ref_flat))
        ok &= torch.allclose(flat.grad, ref_flat, rtol=RTOL, atol=ATOL)
        opt.step()
        ref_opt.step()
    check(f"{STEPS} SGD steps on FSDP's flat parameter: losses and the flat "
          "gradient equal eager's", ok,
          f"max rel. loss {worst_loss:.1e}, gradient {worst_grad:.1e}")


class FSDPModule:
    """Stands in for torch.distributed.fsdp.FSDPModule, the class that
    PyTorch 2's fully_shard mixes into a module's class."""


class FullyShardedDataParallel(torch.nn.Module):
    """Stands in for FSDP's wrapper module, which holds the wrapped one."""

    def __init__(self, module):
        super().__init__()
        self.module = module

    def forward(self, x):
        return self.module(x)


def raises(label, compiled, batch, says):
    try:
        compiled(*batch)
        check(label, False, "no error")
    except trace_mlir.TraceMLIRError as e:
        check(label, all(s in str(e) for s in says), str(e))


def wrapped_submodules(cache):
    gen = torch.Generator().manual_seed(1)
    model = gpt_model()
    compiled = trace_mlir.compile(model, gpt_batch(gen), cache_dir=cache)
    block = model.blocks[1]
    block.__class__ = type(f"FSDP{type(block).__name__}",
                           (FSDPModule, type(block)), {})
    raises("a submodule fully_shard wrapped raises TraceMLIRError",
           compiled, gpt_batch(gen), ["'blocks.1'", "wrap the module"])
    model = gpt_model()
    compiled = trace_mlir.compile(model, gpt_batch(gen), cache_dir=cache)
    model.blocks[0] = FullyShardedDataParallel(model.blocks[0])
    raises("a submodule in FullyShardedDataParallel raises TraceMLIRError",
           compiled, gpt_batch(gen), ["'blocks.0'", "wrap the module"])


class Shard(torch.Tensor):
    """A tensor subclass in a parameter's place, as a DTensor (one rank's
    shard) would be."""


def after_flattening(cache):
    gen = torch.Generator().manual_seed(1)
    model = gpt_model()
    compiled = trace_mlir.compile(model, gpt_batch(gen), cache_dir=cache)
    flattened = Flattened(model)
    wider = tuple(torch.cat([t, t]) for t in gpt_batch(gen))
    raises("a new input shape after the flattening raises TraceMLIRError",
           compiled, wider, ["no longer plain tensors in its modules",
                             "before wrapping it"])
    flattened.use_views()
    model.lm_head.weight = model.lm_head.weight.as_subclass(Shard)
    raises("a tensor subclass in a parameter's place raises TraceMLIRError",
           compiled, gpt_batch(gen), ["'lm_head.weight' is a Shard"])


def main():
    with tempfile.TemporaryDirectory(prefix="trace_mlir-fsdp-") as cache:
        train_flattened(cache)
        wrapped_submodules(cache)
        after_flattening(cache)
    return summary()


if __name__ == "__main__":
    sys.exit(main())
