"""Convolutions against PyTorch eager (test/Python/conv_grads.test).

Each model below is compiled by trace_mlir.compile (TorchScript trace,
trace-import, the training step, the CPU library) and run once: its loss,
every parameter's gradient and the input's gradient must equal eager's
(rtol 1e-4, atol 1e-5; the sums run in another order). The models cover
nn.Conv1d/2d/3d and nn.ConvTranspose2d with stride, padding (lists,
'same' with an even kernel, 'valid'), dilation, groups (depthwise
included), output_padding, no bias, an unbatched input, torch.flip, and a
small CNN with a torch.utils.checkpoint block and a cross-entropy loss.
Prints one PASS or FAIL line per model and exits 1 on a failure.
"""

import copy
import os
import sys
import tempfile

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.utils.checkpoint as cp

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


class Squared(nn.Module):
    """mean(layer(x)^2): a loss whose gradient reaches every output."""

    def __init__(self, layer):
        super().__init__()
        self.layer = layer

    def forward(self, x):
        return (self.layer(x) ** 2).mean()


class Flipped(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(2, 3, 3)

    def forward(self, x):
        y = self.conv(torch.flip(x, [3]))
        return (torch.flip(y, [1, 2]) * torch.arange(36.0).view(1, 3, 3, 4)).sum()


class SmallCNN(nn.Module):
    """conv-relu, a checkpointed stride-2 conv block, depthwise, linear,
    cross-entropy."""

    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2d(3, 8, 3, padding=1)
        self.down = nn.Conv2d(8, 8, 3, stride=2, padding=1)
        self.dw = nn.Conv2d(8, 8, 3, padding=1, groups=8)
        self.head = nn.Linear(8 * 4 * 4, 5)

    def block(self, h):
        return F.relu(self.dw(F.relu(self.down(h))))

    def forward(self, x, target):
        h = F.relu(self.stem(x))
        h = cp.checkpoint(self.block, h, use_reentrant=False)
        return F.cross_entropy(self.head(h.flatten(1)), target)


MODELS = [
    ("conv2d_bias", lambda: Squared(nn.Conv2d(3, 4, 3, padding=1)), (2, 3, 8, 8)),
    ("conv2d_stride2_nobias", lambda: Squared(nn.Conv2d(3, 4, 3, stride=2, padding=1, bias=False)), (2, 3, 9, 9)),
    ("conv2d_dilation2", lambda: Squared(nn.Conv2d(3, 4, 3, dilation=2, padding=2)), (1, 3, 9, 9)),
    ("conv2d_groups2", lambda: Squared(nn.Conv2d(4, 6, 3, groups=2)), (2, 4, 6, 6)),
    ("conv2d_depthwise", lambda: Squared(nn.Conv2d(4, 4, 3, stride=2, padding=1, groups=4)), (2, 4, 7, 7)),
    ("conv2d_same_even_kernel", lambda: Squared(nn.Conv2d(3, 4, 4, padding="same")), (1, 3, 7, 6)),
    ("conv2d_valid_1x3", lambda: Squared(nn.Conv2d(3, 4, (1, 3), padding="valid")), (2, 3, 5, 6)),
    ("conv1d", lambda: Squared(nn.Conv1d(3, 4, 5, stride=2, padding=2)), (2, 3, 11)),
    ("conv1d_unbatched", lambda: Squared(nn.Conv1d(3, 2, 3)), (3, 8)),
    ("conv3d", lambda: Squared(nn.Conv3d(2, 3, 2, stride=(1, 2, 1))), (1, 2, 3, 5, 4)),
    ("conv_transpose2d", lambda: Squared(nn.ConvTranspose2d(4, 3, 3, stride=2, padding=1, output_padding=1)), (2, 4, 4, 4)),
    ("conv_transpose2d_groups2", lambda: Squared(nn.ConvTranspose2d(4, 6, 3, stride=2, groups=2, dilation=2)), (1, 4, 3, 3)),
    ("flip", Flipped, (2, 2, 5, 6)),
]


def compare(name, net, ref, inputs, cache):
    x = inputs[0].clone().requires_grad_()
    x_ref = inputs[0].clone().requires_grad_()
    step = trace_mlir.compile(net, (x,) + tuple(inputs[1:]), cache_dir=cache, frontend=FRONTEND)
    loss = step(x, *inputs[1:])
    loss.backward()
    want = ref(x_ref, *inputs[1:])
    want.backward()
    ok = torch.allclose(loss, want, rtol=1e-4, atol=1e-5)
    worst = 0.0
    pairs = [(x.grad, x_ref.grad)] + [(p.grad, q.grad) for p, q in
                                     zip(net.parameters(), ref.parameters())]
    for got, exp in pairs:
        ok &= got is not None and torch.allclose(got, exp, rtol=1e-4, atol=1e-5)
        if got is not None:
            worst = max(worst, ((got - exp).abs() / (exp.abs() + 1e-2)).max().item())
    check(name, ok, f"loss {loss.item():.6g} vs {want.item():.6g}, "
          f"{len(pairs)} gradients (max rel. {worst:.1e})")


def main():
    with tempfile.TemporaryDirectory(prefix="trace_mlir-conv-") as cache:
        for name, make, shape in MODELS:
            torch.manual_seed(0)
            net = make()
            compare(name, net, copy.deepcopy(net), (torch.randn(shape),), cache)
        torch.manual_seed(0)
        net = SmallCNN()
        compare("small_cnn_checkpointed", net, copy.deepcopy(net),
                (torch.randn(4, 3, 8, 8), torch.tensor([0, 3, 1, 4])), cache)
    return summary()


if __name__ == "__main__":
    sys.exit(main())
