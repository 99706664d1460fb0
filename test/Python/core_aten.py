"""The Core ATen ops the .pt2 importer composes from primitives, against
eager, through trace_mlir.compile (test/Python/core_aten.test).

One module per family, in float64: every output and every input's
gradient under a fixed random cotangent equal eager's at rtol 1e-7 (atol
1e-10); integer outputs (indices) exactly. The inputs hold the cases each
formula must get right: negative operands of fmod and remainder, ties and
NaN for argmax and sort, negative and repeated indices for index and
index_put, offsets of diagonal, zeros in prod. Ops whose output shape
depends on the data are refused with an error that says so. Prints one
PASS or FAIL line per check and exits 1 if any failed.
"""

import os
import sys
import tempfile

import torch
import torch.nn as nn
import torch.nn.functional as F

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "python"))
import trace_mlir  # noqa: E402
from checks import check, summary  # noqa: E402

RTOL, ATOL = 1e-7, 1e-10


class Elementwise(nn.Module):
    def forward(self, x, y):
        return (torch.trunc(x * 3), torch.tan(x), torch.sinh(3 * x),
                torch.cosh(3 * x), torch.log2(y), torch.log10(y),
                torch.exp2(x), torch.fmod(5 * x, y), torch.remainder(5 * x, y),
                torch.fmod(5 * x, -0.7), torch.remainder(5 * x, -0.7),
                torch.div(5 * x, y, rounding_mode="floor"),
                torch.div(5 * x, y, rounding_mode="trunc"),
                F.elu(x, 0.7), F.leaky_relu(x, 0.2),
                torch.isnan(torch.log(x)).to(x.dtype),
                torch.isinf(torch.log(x.abs() * (x > 0))).to(x.dtype),
                torch.logical_xor(x > 0, y > 1).to(x.dtype),
                ((x > 0) & (y > 1) | ~(x > 0.5) ^ (y > 1.5)).to(x.dtype))


class Inverse(nn.Module):
    """The inverse trigonometric and hyperbolic functions, in their
    domains (x in (-1, 1), y > 1; z over wide magnitudes for asinh)."""

    def forward(self, x, y, z):
        return (torch.atan(z), torch.asin(x), torch.acos(x), torch.asinh(z),
                torch.acosh(y), torch.atanh(x), torch.atan2(x, z),
                torch.atan2(z, -y))


class Reductions(nn.Module):
    def forward(self, x, z):
        values, indices = x.max(dim=1)
        low, low_at = x.min(dim=0, keepdim=True)
        return (torch.amin(x, (0, 1)), torch.var(x, 1),
                torch.var(x, 0, correction=0),
                *torch.var_mean(x, 1, keepdim=True),
                torch.prod(x, 1), torch.prod(z), torch.cumsum(x, 1),
                torch.cumsum(x, 0), values, indices, low, low_at,
                torch.argmax(x), torch.argmin(x, 1))


class Sorting(nn.Module):
    """Ties only where the order of equal keys is defined: sort is
    stable."""

    def forward(self, x, y):
        v, i = torch.sort(x, dim=1, stable=True)
        dv, di = torch.sort(x, dim=0, descending=True, stable=True)
        tv, ti = torch.topk(y, 2, dim=1)
        sv, si = torch.topk(y, 3, dim=0, largest=False)
        return v, i, dv, di, tv, ti, sv, si


class Shapes(nn.Module):
    def forward(self, x, i, j, v):
        a = x[i]                          # one index tensor
        b = x[:, j]                       # after a slice
        c = x[i[:2], j[:2]]               # two adjacent indices
        d = x.index_put((i,), v, accumulate=True)   # repeated rows add
        e = x.index_put((i[1:3],), v[:2])    # rows 3 and 0
        return (a, b, c, d, e, torch.flip(x, (0, 1)), x.repeat(2, 1, 3),
                torch.diagonal(x, 1), torch.diagonal(x, -1, 1, 0),
                torch.roll(x, (1, -2), (0, 1)),
                F.pad(x.unsqueeze(0), (2, 1), mode="reflect"),
                F.pad(x.view(1, 1, 4, 5), (1, 2, 2, 1), mode="replicate"),
                torch.slice_scatter(x, v[:, :2] * 2, 1, 1, 5, 2),
                torch.select_scatter(x, v[0], 0, -1),
                torch.block_diag(x[:2, :3], v[:1, :2]))  # empty cat inputs


class Upsample(nn.Module):
    def forward(self, x):
        return (F.interpolate(x, scale_factor=2, mode="nearest"),
                F.interpolate(x, size=(5, 7), mode="nearest"),
                F.interpolate(x, size=(5, 7), mode="bilinear"),
                F.interpolate(x, scale_factor=1.5, mode="bilinear",
                              align_corners=True),
                F.interpolate(x[:, :, 0], scale_factor=2, mode="linear"))


class PoolIndices(nn.Module):
    def forward(self, x):
        y, i = F.max_pool2d(x, 3, stride=2, padding=1, return_indices=True)
        z, j = F.max_pool2d(x, (2, 3), dilation=(2, 1), ceil_mode=True,
                            return_indices=True)
        w, k = F.max_pool1d(x[0], 2, return_indices=True)
        return y, i, z, j, w, k


class Scatters(nn.Module):
    def forward(self, x, distinct, repeated, src):
        return (torch.scatter(x, 1, distinct, src),
                torch.scatter(x, 0, distinct[:2] % 4, 2.5),
                torch.scatter_reduce(x, 1, repeated, src, "sum"),
                torch.scatter_reduce(x, 1, repeated, src, "mean"),
                torch.scatter_reduce(x, 1, repeated, src, "sum",
                                     include_self=False),
                torch.scatter_reduce(x, 1, repeated, src, "mean",
                                     include_self=False))


class Bags(nn.Module):
    def __init__(self):
        super().__init__()
        self.sum = nn.EmbeddingBag(10, 3, mode="sum", padding_idx=2)
        self.mean = nn.EmbeddingBag(10, 3, mode="mean")

    def forward(self, ids, offsets, weights):
        return (self.sum(ids, offsets, per_sample_weights=weights),
                self.mean(ids, offsets), self.mean(ids.view(2, 3)),
                F.embedding_bag(ids, self.mean.weight, offsets[:2],
                                mode="sum", include_last_offset=True))


class ExactDivision(nn.Module):
    """Quotients that round: 5.0 / 0.1 is 50.0 in floating point, but
    fmod(5.0, 0.1) is 0.09999999999999973 and 5.0 // 0.1 is 49.0."""

    def forward(self, a):
        return (torch.fmod(a, 0.1), torch.remainder(a, 0.1),
                torch.remainder(-a, 0.1), torch.div(a, 0.1, rounding_mode="floor"),
                torch.div(-a, 0.1, rounding_mode="floor"),
                torch.fmod(a, 0.0), torch.div(a, 0.0, rounding_mode="floor"))


class IntegerExtrema(nn.Module):
    """amin and max.dim / min.dim of bool and int64 tensors, int64's
    minimum and maximum included; prod, var and sum of a 0-d tensor
    along dim 0."""

    def forward(self, x, n, s):
        flags = x > 0
        top, top_at = flags.max(dim=1)
        low, low_at = flags.min(dim=1)
        return (torch.amin(flags, 1), torch.amax(flags, 0), top, top_at, low,
                low_at, torch.amin(n, 0), torch.amax(n, 1), n.min(dim=1).values,
                torch.prod(s, 0), torch.var(s, 0, correction=0),
                torch.sum(s, -1), torch.prod(s, 0, keepdim=True))


class HugeInverse(nn.Module):
    """asinh and acosh where x^2 overflows f64."""

    def forward(self, big):
        return torch.asinh(big), torch.asinh(-big), torch.acosh(big)


class PoolAllInfinite(nn.Module):
    """Windows whose every element is -inf: the index is the window's
    first position inside the input, as torch's."""

    def forward(self, x):
        y, i = F.max_pool2d(x, 3, stride=2, padding=1, return_indices=True)
        return y, i


class Promotion(nn.Module):
    """A 0-d tensor beside a tensor with dims counts by category only
    (torch's result_type): f32 * f64 0-d is f32, int64 * f64 0-d is f64,
    i32 + i64 0-d is i32, bool + i64 0-d is i64."""

    def forward(self, x, s, n, k):
        i32 = n.to(torch.int32)
        return (x * s, n * s, i32 + k, (n > 2) + k, x + s.to(torch.float16))


class BitwiseInt(nn.Module):
    def forward(self, x):
        return ((x > 0) & 3).sum()


class NonZero(nn.Module):
    def forward(self, x):
        return torch.nonzero(x).sum()


def compare(name, module, inputs, cache):
    try:
        step = trace_mlir.compile(module, inputs, cache_dir=cache)
    except trace_mlir.TraceMLIRError as e:
        return check(name, False, str(e).splitlines()[0])
    ours = [t.clone().requires_grad_(t.is_floating_point()) for t in inputs]
    theirs = [t.clone().requires_grad_(t.is_floating_point()) for t in inputs]
    got, want = step(*ours), module(*theirs)
    if isinstance(got, torch.Tensor):  # the step returns one result bare
        got = (got,)
    gen = torch.Generator().manual_seed(5)
    loss_ours = loss_theirs = 0
    for k, (g, w) in enumerate(zip(got, want)):
        if g.shape != w.shape or g.dtype != w.dtype:
            return check(name, False, f"output {k}: {g.dtype}{list(g.shape)} "
                         f"for eager's {w.dtype}{list(w.shape)}")
        same = (torch.equal(g, w) if not w.is_floating_point() else
                torch.allclose(g, w, rtol=RTOL, atol=ATOL, equal_nan=True))
        if not same:
            return check(name, False, f"output {k} differs from eager's")
        if w.is_floating_point() and w.requires_grad:
            cot = torch.randn(w.shape, generator=gen, dtype=w.dtype)
            loss_ours = loss_ours + (torch.nan_to_num(g) * cot).sum()
            loss_theirs = loss_theirs + (torch.nan_to_num(w) * cot).sum()
    if isinstance(loss_theirs, torch.Tensor):
        loss_ours.backward()
        loss_theirs.backward()
    for k, (a, b) in enumerate(zip(ours, theirs)):
        if b.grad is None:
            continue
        if not torch.allclose(a.grad, b.grad, rtol=RTOL, atol=ATOL):
            err = (a.grad - b.grad).abs().max().item()
            return check(name, False, f"gradient of input {k} differs "
                         f"(max abs error {err:.3g})")
    check(name, True, f"{len(want)} outputs and the inputs' gradients equal "
          "eager's")


def main():
    gen = torch.Generator().manual_seed(0)
    f64 = dict(generator=gen, dtype=torch.float64)
    x = torch.randn(4, 5, **f64)
    y = torch.rand(4, 5, **f64) + 0.5
    ties = torch.tensor([[1.0, 3.0, 3.0, -2.0, 0.5],
                         [float("nan"), 2.0, 7.0, 7.0, 1.0],
                         [0.0, -1.0, 4.0, 4.0, 4.0],
                         [2.5, 2.5, -3.0, 1.0, 9.0]], dtype=torch.float64)
    with_zero = torch.tensor([2.0, 0.0, -3.0, 0.5, 1.5], dtype=torch.float64)
    i = torch.tensor([3, -1, 0, 3])
    j = torch.tensor([4, 0, -2])
    v = torch.randn(4, 5, **f64)
    with tempfile.TemporaryDirectory() as cache:
        compare("elementwise: trunc, tan, sinh, cosh, log2, log10, exp2, "
                "fmod, remainder, div modes, elu, leaky_relu, isnan, isinf, "
                "logical_xor, bitwise ops", Elementwise(), (x, y), cache)
        wide = torch.tensor([[-1e5, -3.0, -1e-3, 0.0, 2e-8],
                             [0.5, 7.0, 1e3, -40.0, 1e-1],
                             [3e8, -2e9, 1.5, -0.25, 12.0],
                             [-1e-6, 0.75, -6.0, 100.0, 3.0]],
                            dtype=torch.float64)
        compare("atan2, atan, asin, acos, asinh, acosh, atanh", Inverse(),
                (torch.rand(4, 5, **f64) * 1.8 - 0.9, y + 0.6, wide), cache)
        compare("reductions: amin, var, var_mean, prod, cumsum, max.dim, "
                "min.dim, argmax, argmin", Reductions(), (ties.nan_to_num(),
                                                          with_zero), cache)
        compare("argmax with NaN", ArgmaxNaN(), (ties,), cache)
        compare("sort (stable, with ties) and topk", Sorting(),
                (ties.nan_to_num(), x), cache)
        compare("sort with NaN", NaNSort(), (ties,), cache)
        compare("index, index_put, flip, repeat, diagonal, roll, reflection "
                "and replication pads, slice_scatter, select_scatter",
                Shapes(), (x, i, j, v), cache)
        compare("upsample_nearest and upsample_bilinear2d (.vec)",
                Upsample(), (x.view(1, 1, 4, 5),), cache)
        compare("max_pool with indices", PoolIndices(),
                (torch.randn(2, 3, 7, 8, **f64),), cache)
        # Distinct positions per row for scatter (torch leaves repeated
        # ones undefined); repeats for the reductions.
        distinct = torch.tensor([[4, 0, 2], [1, 3, 0], [2, 0, 4], [0, 1, 3]])
        repeated = torch.tensor([[4, 0, 2], [1, 3, 0], [2, 2, 4], [0, 1, 1]])
        compare("scatter, scatter_reduce (sum, mean)", Scatters(),
                (x, distinct, repeated, torch.randn(4, 3, **f64)), cache)
        torch.manual_seed(0)
        compare("embedding_bag (sum with padding and weights, mean, empty "
                "bag)", Bags().double(),
                (torch.tensor([1, 2, 4, 5, 4, 3]), torch.tensor([0, 2, 2, 5]),
                 torch.randn(6, **f64)), cache)
        compare("fmod, remainder and floor division of rounding quotients",
                ExactDivision(), (torch.tensor(
                    [5.0, -5.0, 1.0, 0.3, 7.0, -0.25], dtype=torch.float64),),
                cache)
        ints = torch.tensor([[3, -2**63, 7], [2**63 - 1, 0, -5]])
        compare("amin, amax, max.dim and min.dim of bool and int64; prod, "
                "var and sum of a 0-d tensor along dim 0", IntegerExtrema(),
                (x, ints, torch.tensor(1.5, dtype=torch.float64)), cache)
        compare("asinh and acosh past f64's square", HugeInverse(),
                (torch.tensor([1e200, 3e160, 2.0, 1.5e154, 1e300],
                              dtype=torch.float64),), cache)
        pooled = torch.randn(1, 2, 6, 7, **f64)
        pooled[0, 0, :3, :4] = float("-inf")
        pooled[0, 1] = float("-inf")
        compare("max_pool indices of windows of -inf", PoolAllInfinite(),
                (pooled,), cache)
        promo_inputs = (torch.randn(4, 5, generator=gen),
                        torch.tensor(1.25, dtype=torch.float64),
                        torch.arange(6).reshape(2, 3), torch.tensor(7))
        try:
            step = trace_mlir.compile(Promotion(), promo_inputs,
                                      cache_dir=cache)
            with torch.no_grad():
                got, want = step(*promo_inputs), Promotion()(*promo_inputs)
            same = all(g.dtype == w.dtype and torch.allclose(g, w, rtol=0,
                                                             atol=0)
                       for g, w in zip(got, want))
            check("type promotion of 0-d tensors beside tensors with dims",
                  same, ", ".join(f"{g.dtype} for {w.dtype}"
                                  for g, w in zip(got, want)))
        except trace_mlir.TraceMLIRError as e:
            check("type promotion of 0-d tensors beside tensors with dims",
                  False, str(e).splitlines()[0])
        refusals = [
            ("a bool tensor & an int scalar is refused", BitwiseInt(), (x,),
             "only a bool scalar is supported"),
        ]
        for name, module, inputs, expected in refusals:
            try:
                trace_mlir.compile(module, inputs, cache_dir=cache)
                check(name, False, "it compiled")
            except trace_mlir.TraceMLIRError as e:
                check(name, expected in str(e), str(e).splitlines()[0])
        try:
            trace_mlir.compile(NonZero(), (x,), cache_dir=cache)
            check("nonzero is refused", False, "it compiled")
        except trace_mlir.TraceMLIRError as e:
            message = str(e)
            check("nonzero is refused: its output shape comes from the data",
                  "known only from the data" in message, message.splitlines()[0])
    return summary()


class NaNSort(nn.Module):
    def forward(self, x):
        return (*torch.sort(x, dim=1, stable=True),
                *torch.sort(x, dim=1, descending=True, stable=True))


class ArgmaxNaN(nn.Module):
    def forward(self, x):
        return torch.argmax(x, 1), torch.argmin(x, 1), x.max(1).indices


if __name__ == "__main__":
    sys.exit(main())
