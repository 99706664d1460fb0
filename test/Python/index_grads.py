"""Indexing and resizing against PyTorch eager (test/Python/index_grads.test).

Each model below is compiled by trace_mlir.compile and run once: its loss,
its float inputs' gradients and every parameter's must equal eager's (rtol
1e-4, atol 1e-5). Covered: torch.gather and index_select with repeated
indices (their gradients sum), scatter_add, nn.Embedding with and without
padding_idx (the padding row gets no gradient), torch.stack, detach, and
F.interpolate / nn.Upsample: nearest at integer and fractional factors and
to a given size, bilinear with and without align_corners, up and down,
linear (1-D) and trilinear (3-D), and a UNet-style conv, upsample, concat.
The loss is sum(f(x) * w) for a fixed random w, so every output's gradient
differs. Prints one PASS or FAIL line per model and exits 1 on a failure.
"""

import copy
import os
import sys
import tempfile

import torch
import torch.nn as nn
import torch.nn.functional as F

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


class Weighted(nn.Module):
    """sum(fn(self, *inputs) * w), with parameters made by `init(self)`."""

    def __init__(self, fn, init, example):
        super().__init__()
        self.fn = fn
        init(self)
        with torch.no_grad():
            shape = fn(self, *example).shape
        self.register_buffer("w", torch.randn(shape))

    def forward(self, *inputs):
        return (self.fn(self, *inputs) * self.w).sum()


def no_params(m):
    pass


def linear(m):
    m.lin = nn.Linear(6, 6)


def embeddings(padding_idx):
    def init(m):
        m.emb = nn.Embedding(11, 5, padding_idx=padding_idx)
        m.lin = nn.Linear(5, 3)
    return init


def unet(m):
    m.down = nn.Conv2d(3, 4, 3, stride=2, padding=1)
    m.up = nn.Upsample(scale_factor=2, mode="bilinear", align_corners=False)
    m.fuse = nn.Conv2d(7, 2, 3, padding=1)


def unet_forward(m, x):
    h = m.up(torch.relu(m.down(x)))
    return m.fuse(torch.cat([h, x], dim=1))


def idx(*values):
    return torch.tensor(values, dtype=torch.int64)


# name, fn(module, *inputs), init(module), inputs (float ones get gradients)
MODELS = [
    ("gather_dim1_repeats", lambda m, x, i: torch.gather(m.lin(x), 1, i), linear,
     (torch.randn(4, 6), torch.randint(0, 6, (4, 9)))),
    ("gather_dim0_narrow", lambda m, x, i: torch.gather(x, 0, i), no_params,
     (torch.randn(5, 6), torch.randint(0, 5, (8, 3)))),
    ("gather_0d", lambda m, x, i: torch.gather(x.sum(), 0, i) * x, no_params,
     (torch.randn(3), torch.tensor(0))),
    ("index_select_dim0_repeats", lambda m, x, i: torch.index_select(m.lin(x), 0, i),
     linear, (torch.randn(4, 6), idx(3, 0, 3, 3, 1))),
    ("index_select_dim_last", lambda m, x, i: x.index_select(-1, i), no_params,
     (torch.randn(2, 3, 6), idx(5, 1, 1))),
    ("scatter_add", lambda m, x, i: torch.zeros(7, 6).scatter_add(0, i, m.lin(x)),
     linear, (torch.randn(4, 6), torch.randint(0, 7, (4, 6)))),
    ("embedding", lambda m, t: m.lin(m.emb(t)), embeddings(None),
     (torch.randint(0, 11, (3, 7)),)),
    ("embedding_padding_idx", lambda m, t: m.lin(m.emb(t)), embeddings(0),
     (torch.tensor([[0, 3, 0, 5], [7, 0, 3, 10]]),)),
    ("embedding_negative_padding_idx", lambda m, t: m.lin(m.emb(t)), embeddings(-1),
     (torch.tensor([[10, 3, 10, 5], [7, 10, 3, 1]]),)),
    ("stack", lambda m, x: torch.stack([m.lin(x), x, x * 2], dim=1), linear,
     (torch.randn(4, 6),)),
    ("stack_last", lambda m, x: torch.stack([x, x.exp()], dim=-1), no_params,
     (torch.randn(2, 3),)),
    ("detach", lambda m, x: m.lin(x) * m.lin(x).detach(), linear, (torch.randn(4, 6),)),
    ("nearest_x2", lambda m, x: F.interpolate(x, scale_factor=2), no_params,
     (torch.randn(2, 3, 4, 5),)),
    ("nearest_x3_1d", lambda m, x: F.interpolate(x, scale_factor=3), no_params,
     (torch.randn(2, 3, 5),)),
    ("nearest_size", lambda m, x: F.interpolate(x, size=(7, 3)), no_params,
     (torch.randn(1, 2, 4, 5),)),
    ("nearest_x1.5", lambda m, x: F.interpolate(x, scale_factor=1.5), no_params,
     (torch.randn(1, 2, 5, 6),)),
    ("nearest_3d", lambda m, x: F.interpolate(x, scale_factor=(2, 1.5, 1)), no_params,
     (torch.randn(1, 2, 3, 4, 3),)),
    ("bilinear_size", lambda m, x: F.interpolate(x, size=(7, 9), mode="bilinear"),
     no_params, (torch.randn(2, 3, 4, 5),)),
    ("bilinear_align_corners", lambda m, x: F.interpolate(
        x, scale_factor=2, mode="bilinear", align_corners=True), no_params,
     (torch.randn(1, 2, 4, 5),)),
    ("bilinear_down", lambda m, x: F.interpolate(x, size=(3, 2), mode="bilinear"),
     no_params, (torch.randn(1, 2, 7, 5),)),
    ("bilinear_x1.7", lambda m, x: F.interpolate(x, scale_factor=1.7, mode="bilinear"),
     no_params, (torch.randn(1, 2, 5, 6),)),
    ("linear_1d", lambda m, x: F.interpolate(x, scale_factor=2.5, mode="linear"),
     no_params, (torch.randn(2, 3, 6),)),
    # The size stays (5 * 1.1 -> 5): PyTorch copies the dim, whatever the
    # factor.
    ("linear_same_size", lambda m, x: F.interpolate(x, scale_factor=1.1, mode="linear"),
     no_params, (torch.randn(1, 2, 5),)),
    ("bilinear_same_height", lambda m, x: F.interpolate(
        x, scale_factor=(1.1, 2.0), mode="bilinear"), no_params,
     (torch.randn(1, 2, 5, 4),)),
    ("trilinear", lambda m, x: F.interpolate(x, size=(4, 5, 3), mode="trilinear",
                                             align_corners=True), no_params,
     (torch.randn(1, 2, 3, 4, 2),)),
    ("unet_up_concat", unet_forward, unet, (torch.randn(2, 3, 8, 8),)),
]


def main():
    with tempfile.TemporaryDirectory(prefix="trace_mlir-index-") as cache:
        for name, fn, init, inputs in MODELS:
            torch.manual_seed(0)
            net = Weighted(fn, init, inputs)
            ref = copy.deepcopy(net)
            mine = [t.clone().requires_grad_(t.is_floating_point()) for t in inputs]
            theirs = [t.clone().requires_grad_(t.is_floating_point()) for t in inputs]
            step = trace_mlir.compile(net, tuple(mine), cache_dir=cache, frontend=FRONTEND)
            loss = step(*mine)
            loss.backward()
            want = ref(*theirs)
            want.backward()
            pairs = [(a.grad, b.grad) for a, b in zip(mine, theirs)
                     if a.is_floating_point()]
            pairs += [(p.grad, q.grad) for p, q in zip(net.parameters(),
                                                       ref.parameters())]
            ok = torch.allclose(loss, want, rtol=1e-4, atol=1e-5)
            for got, exp in pairs:
                ok &= got is not None and torch.allclose(got, exp, rtol=1e-4,
                                                         atol=1e-5)
            check(name, ok, f"loss {loss.item():.6g} vs {want.item():.6g}, "
                  f"{len(pairs)} gradients")
    return summary()


if __name__ == "__main__":
    sys.exit(main())
