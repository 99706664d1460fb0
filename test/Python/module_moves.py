"""A compiled module moves like a module (test/Python/module_moves.test).

  * .double() on a module compiled in float32: the next call compiles
    for float64, and its loss and gradients equal the float64 eager
    model's (rtol 1e-10);
  * .float() on a module already in float32 keeps its library (no
    compile);
  * .to("meta"), a device no compiled step runs on, raises
    TraceMLIRError saying so;
  * a refused move leaves the module where it was;
  * a module loaded with trace_mlir.load cannot compile again:
    .double() raises TraceMLIRError and leaves it in float32, while a
    move to the dtypes its library takes is allowed;
  * a compiled module returns what the module returns: a tensor, a
    1-tuple, a dict, a tuple holding a list, with and without autograd,
    by both frontends (a TorchScript trace takes no dict), and so does
    the same module loaded with trace_mlir.load.
Prints one PASS or FAIL line per check and exits 1 if any failed.
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
import trace_mlir  # noqa: E402
from checks import check, summary  # noqa: E402


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(8, 16)
        self.fc2 = nn.Linear(16, 4)

    def forward(self, x, y):
        return ((self.fc2(torch.tanh(self.fc1(x))) - y) ** 2).mean()


def placement(step):
    return {(t.device, t.dtype) for t in step.module.parameters()}


def same_step(step, reference, x, y):
    loss = step(x, y)
    want = reference(x, y)
    loss.backward()
    want.backward()
    return torch.allclose(loss, want, rtol=1e-10, atol=0) and all(
        torch.allclose(a.grad, b.grad, rtol=1e-10, atol=1e-14)
        for a, b in zip(step.module.parameters(), reference.parameters()))


class Outputs(nn.Module):
    """Returns its result in the structure `kind` names."""

    def __init__(self, kind):
        super().__init__()
        self.fc = nn.Linear(4, 4)
        self.kind = kind

    def forward(self, x):
        y = self.fc(x)
        return {"tensor": lambda: y.sum(), "1-tuple": lambda: (y.sum(),),
                "dict": lambda: {"loss": y.sum(), "out": y},
                "tuple with a list": lambda: (y.sum(), [y, y * 2]),
                }[self.kind]()


def check_output_structures(cache):
    from torch.utils._pytree import tree_flatten
    x = torch.randn(3, 4, dtype=torch.float64)
    for frontend in ("export", "torchscript"):
        for kind in ("tensor", "1-tuple", "dict", "tuple with a list"):
            if frontend == "torchscript" and kind == "dict":
                continue
            torch.manual_seed(0)
            model = Outputs(kind).double()
            step = trace_mlir.compile(model, (x,), frontend=frontend,
                                      cache_dir=cache)
            want, want_spec = tree_flatten(model(x))
            got, spec = tree_flatten(step(x))
            with torch.no_grad():
                _, spec_no_grad = tree_flatten(step(x))
            _, spec_loaded = tree_flatten(
                trace_mlir.load(model, step.directories[0])(x))
            check(f"{frontend}: a module returning a {kind} compiles to "
                  "one returning it", spec == want_spec == spec_no_grad
                  == spec_loaded and all(torch.allclose(a, b, rtol=1e-12)
                                         for a, b in zip(got, want)),
                  str(spec))


def main():
    torch.manual_seed(0)
    x, y = torch.randn(5, 8), torch.randn(5, 4)
    with tempfile.TemporaryDirectory() as cache:
        model = MLP()
        reference = copy.deepcopy(model).double()
        step = trace_mlir.compile(model, (x, y), cache_dir=cache)
        step(x, y)
        before = list(step.directories)
        step.float()
        check(".float() of a float32 module keeps its library",
              step.directories == before, str(step.directories))
        step.double()
        check(".double() drops the float32 library", not step.directories)
        moved = copy.deepcopy(step)
        check("a moved module copies before its next call",
              moved._dtypes is None and not moved.directories)
        check(".double(): the next call compiles for float64; loss and "
              "gradients equal eager's", same_step(
                  step, reference, x.double(), y.double()))
        try:
            step.to("meta")
            check('.to("meta") is refused', False, "no error")
        except trace_mlir.TraceMLIRError as e:
            check('.to("meta") is refused: a step runs on the CPU or cuda:0',
                  "runs on the CPU or on cuda:0" in str(e), str(e))
        step.zero_grad()
        reference.zero_grad()
        check('a refused .to("meta") leaves the module where it was: it '
              "still trains as eager", placement(step) == {(
                  torch.device("cpu"), torch.float64)} and same_step(
                  step, reference, x.double(), y.double()),
              str(placement(step)))

        loaded = trace_mlir.load(MLP(), before[0])
        loaded(x, y).backward()  # gradients, which a move moves too
        try:
            loaded.double()
            check("a loaded module's .double() is refused", False, "no error")
        except trace_mlir.TraceMLIRError as e:
            check("a loaded module's .double() is refused: it cannot "
                  "compile", "cannot compile again" in str(e)
                  and "takes 'fc1.weight' as torch.float32" in str(e), str(e))
        grads = {(p.grad.device, p.grad.dtype)
                 for p in loaded.module.parameters()}
        check("a refused .double() leaves the loaded module and its "
              "gradients in float32",
              placement(loaded) == grads
              == {(torch.device("cpu"), torch.float32)},
              f"{placement(loaded)}, gradients {grads}")
        # A move to what the loaded library takes is no compile: allowed.
        wrong = MLP().double()
        fitted = trace_mlir.load(wrong, before[0])
        fitted.float()
        reference32 = copy.deepcopy(wrong).float()
        loss, want = fitted(x, y), reference32(x, y)
        check("a loaded module moves to the dtypes its library takes",
              placement(fitted) == {(torch.device("cpu"), torch.float32)}
              and torch.allclose(loss, want, rtol=1e-5, atol=1e-6),
              f"{loss.item()} vs {want.item()}")
        check_output_structures(cache)
    return summary()


if __name__ == "__main__":
    sys.exit(main())
