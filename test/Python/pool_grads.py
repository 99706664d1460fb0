"""Pooling against PyTorch eager (test/Python/pool_grads.test).

Each model below is compiled by trace_mlir.compile and run once: its loss,
the input's gradient and every parameter's must equal eager's (rtol 1e-4,
atol 1e-5). nn.MaxPool1d/2d with stride, padding, dilation and ceil_mode,
and on inputs full of ties (small integers), where the gradient must go to
the first maximal element of each window as PyTorch's does, so equal
exactly; nn.AvgPool1d/2d with count_include_pad both ways, ceil_mode and
divisor_override; nn.AdaptiveAvgPool1d/2d to 1x1, to sizes that divide the
input and to sizes that do not (7 into 3: overlapping windows). The loss
is sum(pool(x) * w) for a fixed random w, so every output's gradient
differs. Prints one PASS or FAIL line per model and exits 1 on a failure.
"""

import copy
import os
import sys
import tempfile

import torch
import torch.nn as nn

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import trace_mlir  # noqa: E402
from checks import check, summary  # noqa: E402


class Weighted(nn.Module):
    """sum(pool(conv(x)) * w), or of pool(x) without a conv."""

    def __init__(self, pool, out_shape, conv=None):
        super().__init__()
        self.conv, self.pool = conv, pool
        self.register_buffer("w", torch.randn(out_shape))

    def forward(self, x):
        h = self.conv(x) if self.conv is not None else x
        return (self.pool(h) * self.w).sum()


def conv2d():
    return nn.Conv2d(3, 4, 3, padding=1)


# name, pool, conv (or None), input shape, integer-valued input (ties)
MODELS = [
    ("max_pool2d_3x3_s2_p1", lambda: nn.MaxPool2d(3, 2, 1), conv2d, (2, 3, 9, 9), False),
    ("max_pool2d_ties", lambda: nn.MaxPool2d(3, 2, 1), None, (2, 3, 8, 8), True),
    ("max_pool2d_2x2_ties", lambda: nn.MaxPool2d(2), None, (1, 2, 6, 6), True),
    ("max_pool2d_ceil", lambda: nn.MaxPool2d(3, 2, ceil_mode=True), None, (1, 2, 8, 8), False),
    ("max_pool2d_dilation2", lambda: nn.MaxPool2d(2, 1, dilation=2), conv2d, (1, 3, 7, 7), False),
    ("max_pool1d", lambda: nn.MaxPool1d(3, 2, 1), None, (2, 3, 11), True),
    ("avg_pool2d_include_pad", lambda: nn.AvgPool2d(3, 2, 1), conv2d, (2, 3, 9, 9), False),
    ("avg_pool2d_exclude_pad", lambda: nn.AvgPool2d(3, 2, 1, count_include_pad=False), None, (1, 2, 8, 8), False),
    ("avg_pool2d_ceil", lambda: nn.AvgPool2d(3, 2, 1, ceil_mode=True), None, (1, 2, 8, 8), False),
    ("avg_pool2d_ceil_exclude_pad", lambda: nn.AvgPool2d(2, 2, 1, ceil_mode=True, count_include_pad=False), None, (1, 2, 7, 7), False),
    ("avg_pool2d_divisor", lambda: nn.AvgPool2d(2, divisor_override=3), None, (1, 2, 6, 6), False),
    ("avg_pool1d", lambda: nn.AvgPool1d(4, 3, 2), None, (2, 3, 13), False),
    ("adaptive_avg_pool2d_1x1", lambda: nn.AdaptiveAvgPool2d((1, 1)), conv2d, (2, 3, 7, 7), False),
    ("adaptive_avg_pool2d_divides", lambda: nn.AdaptiveAvgPool2d((2, 4)), None, (1, 2, 8, 8), False),
    ("adaptive_avg_pool2d_overlapping", lambda: nn.AdaptiveAvgPool2d((3, 5)), None, (1, 2, 7, 7), False),
    ("adaptive_avg_pool1d", lambda: nn.AdaptiveAvgPool1d(4), None, (2, 3, 10), False),
]


def main():
    with tempfile.TemporaryDirectory(prefix="trace_mlir-pool-") as cache:
        for name, make_pool, make_conv, shape, ties in MODELS:
            torch.manual_seed(0)
            conv = make_conv() if make_conv else None
            pool = make_pool()
            x = torch.randint(0, 3, shape).float() if ties else torch.randn(shape)
            with torch.no_grad():
                out_shape = pool(conv(x) if conv is not None else x).shape
            net = Weighted(pool, out_shape, conv)
            ref = copy.deepcopy(net)
            xs, xr = x.clone().requires_grad_(), x.clone().requires_grad_()
            step = trace_mlir.compile(net, (xs,), cache_dir=cache)
            loss = step(xs)
            loss.backward()
            want = ref(xr)
            want.backward()
            pairs = [(xs.grad, xr.grad)] + [
                (p.grad, q.grad) for p, q in zip(net.parameters(), ref.parameters())]
            ok = torch.allclose(loss, want, rtol=1e-4, atol=1e-5)
            for got, exp in pairs:
                ok &= got is not None and (
                    torch.equal(got, exp) if ties else
                    torch.allclose(got, exp, rtol=1e-4, atol=1e-5))
            check(name, ok, f"loss {loss.item():.6g} vs {want.item():.6g}, "
                  f"{len(pairs)} gradients {'bitwise equal' if ties else 'close'}")
    return summary()


if __name__ == "__main__":
    sys.exit(main())
