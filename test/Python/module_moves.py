"""A compiled module moves like a module (test/Python/module_moves.test).

  * .double() on a module compiled in float32: the next call compiles
    for float64, and its loss and gradients equal the float64 eager
    model's (rtol 1e-10);
  * .float() on a module already in float32 keeps its library (no
    compile);
  * .to("meta"), a device no compiled step runs on, raises
    TraceMLIRError saying so;
  * a module loaded with trace_mlir.load cannot compile again:
    .double() raises TraceMLIRError.
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


def same_step(step, reference, x, y):
    loss = step(x, y)
    want = reference(x, y)
    loss.backward()
    want.backward()
    return torch.allclose(loss, want, rtol=1e-10, atol=0) and all(
        torch.allclose(a.grad, b.grad, rtol=1e-10, atol=1e-14)
        for a, b in zip(step.module.parameters(), reference.parameters()))


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

        loaded = trace_mlir.load(MLP(), before[0])
        try:
            loaded.double()
            check("a loaded module's .double() is refused", False, "no error")
        except trace_mlir.TraceMLIRError as e:
            check("a loaded module's .double() is refused: it cannot "
                  "compile", "cannot compile again" in str(e), str(e))
    return summary()


if __name__ == "__main__":
    sys.exit(main())
