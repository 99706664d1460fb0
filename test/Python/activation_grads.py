"""Gradients of the composite elementwise ops and activations against
PyTorch eager (test/Python/activation_grads.test).

For each op, a Linear(6, 5) followed by the op, with the mean of the
squares as the loss, is compiled by trace_mlir.compile; its loss and the
Linear's gradients must equal eager's (rtol 1e-4, atol 1e-6). The inputs
are scaled so every branch of the piecewise ops (clamp bounds, hardswish's
knees, softplus' threshold, leaky/elu's negative side) is taken.
Prints one PASS or FAIL line per op and exits 1 on a failure.
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
import trace_mlir  # noqa: E402

OPS = {
    "square": lambda h: h.square(),
    "reciprocal": lambda h: torch.reciprocal(h.abs() + 0.5),
    "clamp": lambda h: torch.clamp(h, -0.5, 0.7),
    "clamp_min": lambda h: torch.clamp_min(h, 0.1),
    "clamp_max": lambda h: torch.clamp_max(h, 0.1),
    "hardtanh": lambda h: F.hardtanh(h, -0.5, 0.25),
    "relu6": lambda h: F.relu6(h * 4.0),
    "hardsigmoid": lambda h: F.hardsigmoid(h * 4.0),
    "hardswish": lambda h: F.hardswish(h * 4.0),
    "leaky_relu": lambda h: F.leaky_relu(h, 0.2),
    "elu": lambda h: F.elu(h, alpha=1.5),
    "selu": lambda h: F.selu(h),
    "softplus": lambda h: F.softplus(h * 8.0, beta=2.0, threshold=5.0),
    "mish": lambda h: F.mish(h),
}


class Net(nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.fc = nn.Linear(6, 5)
        self.fn = fn

    def forward(self, x):
        return (self.fn(self.fc(x)) ** 2).mean()


def main():
    failed = 0
    with tempfile.TemporaryDirectory(prefix="trace_mlir-act-") as cache:
        for name, fn in OPS.items():
            torch.manual_seed(0)
            net = Net(fn)
            ref = copy.deepcopy(net)
            x = torch.randn(16, 6)
            step = trace_mlir.compile(net, (x,), cache_dir=cache)
            loss = step(x)
            loss.backward()
            want = ref(x)
            want.backward()
            ok = torch.allclose(loss, want, rtol=1e-4, atol=1e-6)
            worst = 0.0
            for p, q in zip(net.parameters(), ref.parameters()):
                ok &= torch.allclose(p.grad, q.grad, rtol=1e-4, atol=1e-6)
                worst = max(worst, ((p.grad - q.grad).abs() /
                                    (q.grad.abs() + 1e-2)).max().item())
            print(f"{'PASS' if ok else 'FAIL'}: {name}: loss and gradients "
                  f"equal eager's (max rel. gradient {worst:.1e})")
            failed += not ok
    print(f"{len(OPS) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
