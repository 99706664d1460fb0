"""Normalizations with state against PyTorch eager
(test/Python/norm_training.test).

batch_norm in training mode updates the module's running_mean,
running_var and num_batches_tracked; the compiled step returns their new
values (results marked buffer_update) and trace_mlir writes them back.
Checked here, each against an eager copy of the model:

* a CNN (conv, BatchNorm2d, relu, conv, BatchNorm2d, adaptive average
  pool, linear, cross-entropy), an MLP with BatchNorm1d, one BatchNorm1d
  used twice per step (updated twice), and a buffer halved in place and
  then read by the loss (and a counter bumped twice), 5 SGD steps:
  the loss at every step and every gradient equal eager's (rtol 1e-4,
  atol 1e-5), and so do the running statistics and the step counter
  after each step; then eval(): the output equals eager's eval output
  (the running statistics in use);
* BatchNorm2d without affine or running statistics, GroupNorm,
  InstanceNorm2d: loss and gradients;
* a BatchNorm inside checkpoint_wrapper or torch.utils.checkpoint in
  training mode: compiled with a warning naming the buffer; the loss and
  gradients equal eager's, and the running statistics are updated once,
  as without the checkpoint (PyTorch's checkpoint updates them again when
  it recomputes the region; eager's twice-updated statistics are checked
  to differ, so the check can tell); one BatchNorm used before, after and
  inside regions, in nested regions, twice in one region and in two
  (--checkpoint-modules, eager without checkpoints): loss, gradients and
  every buffer equal eager's.

Prints one PASS or FAIL line per check and exits 1 on a failure.
"""

import copy
import os
import sys
import tempfile

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.utils.checkpoint as cp
from torch.distributed.algorithms._checkpoint.checkpoint_wrapper import (
    CheckpointImpl, checkpoint_wrapper)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import trace_mlir  # noqa: E402
from checks import check, summary  # noqa: E402

# These checks run the TorchScript frontend (torch.jit.trace): their ops
# reach beyond what the .pt2 importer covers yet (the Core ATen coverage
# issue); train.py, ddp.py, fsdp.py, donation.py, pool_grads.py and
# torch_compile.py run trace_mlir.compile's default, torch.export.
FRONTEND = "torchscript"

RTOL, ATOL = 1e-4, 1e-5


class CNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(8)
        self.conv2 = nn.Conv2d(8, 8, 3, stride=2, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(8, momentum=0.3)
        self.head = nn.Linear(8, 5)

    def forward(self, x, target):
        h = F.relu(self.bn1(self.conv1(x)))
        h = F.relu(self.bn2(self.conv2(h)))
        h = F.adaptive_avg_pool2d(h, 1).flatten(1)
        return F.cross_entropy(self.head(h), target)


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(6, 16)
        self.bn = nn.BatchNorm1d(16)
        self.fc2 = nn.Linear(16, 3)

    def forward(self, x, target):
        return F.cross_entropy(self.fc2(F.relu(self.bn(self.fc1(x)))), target)


class SharedBN(nn.Module):
    """One BatchNorm1d on two inputs: its statistics are updated twice per
    step, the second update from the first's."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(6, 16)
        self.bn = nn.BatchNorm1d(16)
        self.head = nn.Linear(16, 3)

    def forward(self, x, target):
        a = F.relu(self.bn(self.fc(x)))
        b = F.relu(self.bn(self.fc(x * 2.0)))
        return F.cross_entropy(self.head(a + b), target)


class ScaledBuffer(nn.Module):
    """A buffer halved in place, then read by the loss (so by the
    backward), and a counter bumped twice."""

    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(6, 4)
        self.register_buffer("scale", torch.full((4,), 3.0))
        self.register_buffer("count", torch.zeros((), dtype=torch.int64))

    def forward(self, x, target):
        self.scale.mul_(0.5)
        self.count.add_(1)
        self.count.add_(1)
        return F.cross_entropy(self.lin(x) * self.scale, target)


class Squared(nn.Module):
    def __init__(self, norm, channels):
        super().__init__()
        self.conv = nn.Conv2d(3, channels, 3)
        self.norm = norm

    def forward(self, x):
        return (self.norm(self.conv(x)) ** 2 * torch.arange(1.0, 7.0).view(1, 6, 1, 1)).mean()


def close(a, b):
    return a is not None and b is not None and torch.allclose(a, b, rtol=RTOL, atol=ATOL)


def train_check(name, make, inputs, cache, steps=5):
    torch.manual_seed(0)
    net = make()
    ref = copy.deepcopy(net)
    step = trace_mlir.compile(net, inputs, cache_dir=cache, frontend=FRONTEND)
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    opt_ref = torch.optim.SGD(ref.parameters(), lr=0.1)
    losses = grads = buffers = True
    for _ in range(steps):
        opt.zero_grad()
        opt_ref.zero_grad()
        loss = step(*inputs)
        loss.backward()
        want = ref(*inputs)
        want.backward()
        losses &= close(loss, want)
        grads &= all(close(p.grad, q.grad) for p, q in
                     zip(net.parameters(), ref.parameters()))
        buffers &= all(torch.equal(b, c) if b.dtype == torch.int64 else close(b, c)
                       for b, c in zip(net.buffers(), ref.buffers()))
        opt.step()
        opt_ref.step()
    counters = [b.item() for n, b in ref.named_buffers()
                if n.endswith("num_batches_tracked") or n == "count"]
    check(f"{name}: {steps} SGD steps", losses and grads and buffers,
          f"losses {'equal' if losses else 'DIFFER'}, gradients "
          f"{'equal' if grads else 'DIFFER'}, buffers "
          f"{'equal' if buffers else 'DIFFER'} (counters {counters[:1]})")
    step.eval()
    ref.eval()
    with torch.no_grad():
        got, want = step(*inputs), ref(*inputs)
    check(f"{name}: eval output", close(got, want),
          f"{got.item():.6g} vs {want.item():.6g}, with the running statistics")


def grad_check(name, make, x, cache):
    torch.manual_seed(0)
    net = make()
    ref = copy.deepcopy(net)
    step = trace_mlir.compile(net, (x,), cache_dir=cache, frontend=FRONTEND)
    loss = step(x)
    loss.backward()
    want = ref(x)
    want.backward()
    ok = close(loss, want) and all(close(p.grad, q.grad) for p, q in
                                   zip(net.parameters(), ref.parameters()))
    check(name, ok, f"loss {loss.item():.6g} vs {want.item():.6g}, gradients")


class Wrapped(nn.Module):
    def __init__(self, call):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3)
        self.bn = nn.BatchNorm2d(4)
        self.register_buffer("w", torch.randn(2, 4, 4, 4))
        self.call = call
        if not call:
            # The reentrant wrapper cannot be traced around a module that
            # updates buffers (PyTorch's tracer fails), so the other one.
            self.bn = checkpoint_wrapper(self.bn, checkpoint_impl=CheckpointImpl.NO_REENTRANT)

    def forward(self, x):
        h = self.conv(x)
        if self.call:
            h = cp.checkpoint(self.bn, h, use_reentrant=False)
        else:
            h = self.bn(h)
        return (torch.relu(h) * self.w).mean()


def checkpointed(name, call, x, cache):
    """Wrapped(call) compiled, against eager with the checkpoint (loss and
    gradients) and eager without it (the running statistics)."""
    import warnings
    torch.manual_seed(0)
    net = Wrapped(call)
    ref = copy.deepcopy(net)
    once = Wrapped(True)
    once.call = None  # the same modules, no checkpoint
    once.load_state_dict({k.replace("_checkpoint_wrapped_module.", ""): v
                          for k, v in net.state_dict().items()})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        step = trace_mlir.compile(net, (x,), cache_dir=cache, frontend=FRONTEND)
        loss = step(x)
    loss.backward()
    want = ref(x)
    want.backward()
    once(x)
    bn = dict(net.named_modules())["bn._checkpoint_wrapped_module"
                                   if not call else "bn"]
    ref_bn = dict(ref.named_modules())["bn._checkpoint_wrapped_module"
                                       if not call else "bn"]
    warned = any("buffer 'bn." in str(w.message) and
                 "2 more updated inside checkpoint regions" in str(w.message)
                 and "recomputes" in str(w.message) for w in caught)
    ok = warned and close(loss, want) and all(
        close(p.grad, q.grad) for p, q in zip(net.parameters(), ref.parameters()))
    ok &= close(bn.running_mean, once.bn.running_mean)
    ok &= close(bn.running_var, once.bn.running_var)
    ok &= not close(ref_bn.running_mean, once.bn.running_mean)
    check(name, ok, f"warned {warned}, loss {loss.item():.6g} vs "
          f"{want.item():.6g}, running statistics updated once")


class RegionBlock(nn.Module):
    """A block the checkpoint regex makes a region: conv, a BatchNorm
    (maybe shared with the parent, maybe applied twice), an inner block."""

    def __init__(self, bn, inner=None, twice=False):
        super().__init__()
        self.bn, self.inner, self.twice = bn, inner, twice
        self.lin = nn.Conv2d(3, 3, 1)

    def forward(self, x):
        h = self.bn(self.lin(x))
        if self.twice:
            h = self.bn(h * 1.5)
        if self.inner is not None:
            h = self.inner(h)
        return torch.relu(h)


class SharedAcrossRegions(nn.Module):
    """One BatchNorm updated before, after or inside regions, nested, twice
    in one region, or in two regions."""

    def __init__(self, mode):
        super().__init__()
        bn = nn.BatchNorm2d(3)
        self.mode = mode
        if mode == "before":
            self.bn, self.blk = bn, RegionBlock(bn)
        elif mode == "after":
            self.blk, self.bn = RegionBlock(bn), bn
        elif mode == "nested":
            self.blk = RegionBlock(nn.BatchNorm2d(3), inner=RegionBlock(bn))
        elif mode == "twice":
            self.blk = RegionBlock(bn, twice=True)
        else:
            self.blk, self.blk2 = RegionBlock(bn), RegionBlock(bn)
        self.register_buffer("w", torch.randn(2, 3, 4, 4))

    def forward(self, x):
        if self.mode == "before":
            x = self.bn(x)
        h = self.blk(x)
        if self.mode == "after":
            h = self.bn(h)
        if self.mode == "two_regions":
            h = self.blk2(h)
        return (h * self.w).sum()


def regions_check(mode, cache):
    """--checkpoint-modules=RegionBlock (eager has no checkpoint): the loss,
    gradients and every buffer equal eager's after a step."""
    import warnings
    torch.manual_seed(0)
    net = SharedAcrossRegions(mode)
    ref = copy.deepcopy(net)
    x = torch.randn(2, 3, 4, 4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        step = trace_mlir.compile(net, (x,), cache_dir=cache, frontend=FRONTEND,
                                  options=["--checkpoint-modules=RegionBlock"])
        loss = step(x)
    loss.backward()
    want = ref(x)
    want.backward()
    ok = close(loss, want) and all(
        close(p.grad, q.grad) for p, q in zip(net.parameters(), ref.parameters()))
    ours, theirs = dict(net.named_buffers()), dict(ref.named_buffers())
    ok &= all(close(ours[k].double(), theirs[k].double()) for k in theirs)
    check(f"batch_norm {mode} checkpoint regions", ok,
          f"loss {loss.item():.6g} vs {want.item():.6g}, gradients and "
          f"{len(theirs)} buffers")


def main():
    with tempfile.TemporaryDirectory(prefix="trace_mlir-norm-") as cache:
        torch.manual_seed(1)
        x, target = torch.randn(4, 3, 8, 8), torch.tensor([0, 3, 1, 4])
        train_check("cnn", CNN, (x, target), cache)
        batch = (torch.randn(8, 6), torch.tensor([0, 1, 2, 0, 1, 2, 0, 1]))
        train_check("mlp", MLP, batch, cache)
        train_check("shared batch_norm", SharedBN, batch, cache)
        train_check("scaled buffer", ScaledBuffer, batch, cache)
        x = torch.randn(2, 3, 6, 6)
        grad_check("batch_norm without affine or running statistics",
                   lambda: Squared(nn.BatchNorm2d(6, affine=False, track_running_stats=False), 6), x, cache)
        grad_check("group_norm", lambda: Squared(nn.GroupNorm(3, 6), 6), x, cache)
        grad_check("instance_norm", lambda: Squared(nn.InstanceNorm2d(6, affine=True), 6), x, cache)
        checkpointed("batch_norm in checkpoint_wrapper", False, x, cache)
        checkpointed("batch_norm in torch.utils.checkpoint", True, x, cache)
        for mode in ("before", "after", "nested", "twice", "two_regions"):
            regions_check(mode, cache)
    return summary()


if __name__ == "__main__":
    sys.exit(main())
