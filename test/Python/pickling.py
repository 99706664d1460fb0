"""A compiled module copies, pickles and saves like a module
(test/Python/pickling.test).

  * copy.deepcopy: the copy holds a copy of the model and the libraries
    compiled so far; it trains as eager does, on its own parameters, and
    compiles a new input shape itself;
  * pickle and torch.save / torch.load (weights_only=False) in another
    process: the module is rebuilt from the model and the library
    directories of the compile()'s cache_dir, and its loss and gradients
    equal eager's;
  * a module compiled without a cache_dir pickles, but loading it after
    its temporary directory is gone raises TraceMLIRError saying so; its
    deep copy copies the libraries and outlives it.
Prints one PASS or FAIL line per check and exits 1 if any failed.
"""

import copy
import os
import pickle
import subprocess
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


def batch(n=4, seed=1):
    gen = torch.Generator().manual_seed(seed)
    return torch.randn(n, 8, generator=gen), torch.randn(n, 4, generator=gen)


def same_as_eager(step, model, inputs):
    """The step's loss and gradients equal eager's on `model`'s copy."""
    reference = copy.deepcopy(model)
    for p in list(model.parameters()) + list(reference.parameters()):
        p.grad = None
    loss = step(*inputs)
    loss.backward()
    ref = reference(*inputs)
    ref.backward()
    ok = torch.allclose(loss, ref, rtol=1e-5, atol=1e-6)
    for p, q in zip(model.parameters(), reference.parameters()):
        ok = ok and torch.allclose(p.grad, q.grad, rtol=1e-5, atol=1e-6)
    return ok


# Run by the parent in a fresh interpreter: load the saved module and check
# it against eager.
CHILD = r"""
import sys, torch
sys.path.insert(0, sys.argv[1])
sys.path.insert(0, sys.argv[2])
import pickling
step = torch.load(sys.argv[3], weights_only=False)
ok = pickling.same_as_eager(step, step.module, pickling.batch())
print("CHILD", "ok" if ok else "mismatch", type(step).__name__)
"""


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    # The model's class by its module's name, not __main__'s, so that the
    # other process can unpickle it.
    sys.path.insert(0, here)
    import pickling
    with tempfile.TemporaryDirectory() as cache:
        torch.manual_seed(0)
        model = pickling.MLP()
        step = trace_mlir.compile(model, batch(), cache_dir=cache)
        step(*batch()).backward()

        twin = copy.deepcopy(step)
        shared = any(p.data_ptr() == q.data_ptr() for p, q in
                     zip(twin.module.parameters(), model.parameters()))
        check("copy.deepcopy: the copy trains as eager, on its own "
              "parameters", isinstance(twin, trace_mlir.CompiledModule)
              and not shared and same_as_eager(twin, twin.module, batch()))
        with __import__("warnings").catch_warnings():
            __import__("warnings").simplefilter("ignore")
            ok = same_as_eager(twin, twin.module, batch(n=6, seed=2))
        check("the copy compiles a new input shape", ok and
              len(twin.directories) == 2)

        restored = pickle.loads(pickle.dumps(step))
        check("pickle round trip: loss and gradients equal eager's",
              same_as_eager(restored, restored.module, batch()))

        path = os.path.join(cache, "step.pt")
        torch.save(step, path)
        proc = subprocess.run(
            [sys.executable, "-c", CHILD, os.path.join(ROOT, "python"), here,
             path], capture_output=True, text=True)
        check("torch.save, then torch.load in another process: loss and "
              "gradients equal eager's",
              "CHILD ok CompiledModule" in proc.stdout,
              (proc.stdout + proc.stderr).strip().splitlines()[-1]
              if (proc.stdout + proc.stderr).strip() else "")

    # Without a cache_dir the libraries live in a temporary directory that
    # goes with the module.
    scratch_step = trace_mlir.compile(MLP(), batch())
    data = pickle.dumps(scratch_step)
    scratch_twin = copy.deepcopy(scratch_step)
    del scratch_step
    import gc
    gc.collect()
    check("a deep copy of a module without a cache_dir outlives the "
          "original: its libraries are its own",
          all(os.path.exists(d) for d in scratch_twin.directories)
          and same_as_eager(scratch_twin, scratch_twin.module, batch()),
          str(scratch_twin.directories))
    try:
        pickle.loads(data)
        check("a pickle whose libraries are gone raises TraceMLIRError",
              False, "it loaded")
    except trace_mlir.TraceMLIRError as e:
        check("a pickle whose libraries are gone raises TraceMLIRError",
              "is gone" in str(e) and "cache_dir" in str(e), str(e))
    return summary()


if __name__ == "__main__":
    sys.exit(main())
