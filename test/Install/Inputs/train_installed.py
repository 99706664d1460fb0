"""Trains a small model with an installed trace_mlir package
(test/Install/install.test: a `cmake --install` prefix; pip.test: a wheel
in a fresh environment): train_installed.py CACHE_DIR PREFIX [--dynamo].

The package must be PREFIX's and run PREFIX's own trace-compile, and two
SGD steps in float64 must equal eager's loss and gradients (rtol 1e-10).
With --dynamo, the same holds for torch.compile(backend="trace_mlir"),
which torch must find through the package's entry point. Prints PASS or
FAIL lines; exits 1 on a FAIL."""

import copy
import os
import sys

import torch
import torch.nn as nn

import trace_mlir
from trace_mlir import library

cache, prefix = sys.argv[1], os.path.realpath(sys.argv[2])
dynamo = "--dynamo" in sys.argv[3:]
failed = 0


def check(name, ok, detail=""):
    global failed
    failed += not ok
    print(f"{'PASS' if ok else 'FAIL'}: {name}{': ' + detail if detail else ''}")


def train(name, compile_model):
    """Two SGD steps of a compiled model beside eager's."""
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(8, 16), nn.Tanh(),
                          nn.Linear(16, 4)).double()
    reference = copy.deepcopy(model)
    x = torch.randn(5, 8, dtype=torch.float64)
    step = compile_model(model, x)
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
            a.grad is not None
            and torch.allclose(a.grad, b.grad, rtol=1e-10, atol=1e-14)
            for a, b in zip(step.parameters(), reference.parameters()))
        check(f"{name} step {i}: loss and gradients equal eager's", same,
              f"loss {loss.item():.6g}")
        ours.step()
        theirs.step()


package = os.path.realpath(trace_mlir.__file__)
check("the package is the prefix's", package.startswith(prefix), package)
tool = os.path.realpath(library._trace_compile_binary())
check("trace-compile is the prefix's", tool.startswith(prefix), tool)

train("trace_mlir.compile",
      lambda model, x: trace_mlir.compile(model, (x,), cache_dir=cache))
if dynamo:
    from torch._dynamo import lookup_backend
    import trace_mlir.dynamo
    check("torch.compile's backend trace_mlir is the package's",
          lookup_backend("trace_mlir") is trace_mlir.dynamo.backend)
    before = len(os.listdir(cache))
    train("torch.compile", lambda model, x: torch.compile(
        model, backend="trace_mlir", options={"cache_dir": cache}))
    check("torch.compile compiled through trace-compile",
          len(os.listdir(cache)) > before,
          f"{len(os.listdir(cache)) - before} new cache entries")
sys.exit(1 if failed else 0)
