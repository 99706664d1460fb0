"""Trains a small model with the trace_mlir package of an install prefix
(test/Install/install.test): the package must find the prefix's own
trace-compile, and two SGD steps in float64 must equal eager's loss and
gradients (rtol 1e-10). Prints PASS or FAIL lines; exits 1 on a FAIL."""

import copy
import os
import sys

import torch
import torch.nn as nn

import trace_mlir
from trace_mlir import library

cache, prefix = sys.argv[1], os.path.realpath(sys.argv[2])
failed = 0


def check(name, ok, detail=""):
    global failed
    failed += not ok
    print(f"{'PASS' if ok else 'FAIL'}: {name}{': ' + detail if detail else ''}")


package = os.path.realpath(trace_mlir.__file__)
check("the package is the prefix's", package.startswith(prefix), package)
tool = os.path.realpath(library._trace_compile_binary())
check("trace-compile is the prefix's", tool.startswith(prefix), tool)

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Linear(16, 4)).double()
reference = copy.deepcopy(model)
x = torch.randn(5, 8, dtype=torch.float64)
step = trace_mlir.compile(model, (x,), cache_dir=cache)
ours = torch.optim.SGD(step.parameters(), lr=0.1)
theirs = torch.optim.SGD(reference.parameters(), lr=0.1)
for i in range(2):
    ours.zero_grad()
    theirs.zero_grad()
    loss = step(x).square().mean()
    want = reference(x).square().mean()
    loss.backward()
    want.backward()
    same = torch.allclose(loss, want, rtol=1e-10, atol=0) and all(
        torch.allclose(a.grad, b.grad, rtol=1e-10, atol=1e-14)
        for a, b in zip(step.parameters(), reference.parameters()))
    check(f"step {i}: loss and gradients equal eager's", same,
          f"loss {loss.item():.6g}")
    ours.step()
    theirs.step()
sys.exit(1 if failed else 0)
