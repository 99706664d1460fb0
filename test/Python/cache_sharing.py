"""One cache_dir shared by processes that compile at once, and by a
compile killed part-way (test/Python/cache_sharing.test).

  * two processes started together compile the same model into one
    cache_dir (as DDP's ranks do): both get a working step, whose loss
    and gradients equal eager's (rtol 1e-10, float64), and one library is
    built;
  * a process killed (SIGKILL, with its trace-compile) while it compiles
    leaves the cache usable: the next compile of the model works and
    equals eager's.
Prints one PASS or FAIL line per check and exits 1 if any failed.
"""

import copy
import glob
import os
import signal
import subprocess
import sys
import tempfile
import time

import torch
import torch.nn as nn

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "python"))
import trace_mlir  # noqa: E402
from checks import check, summary  # noqa: E402


def model_and_batch(width):
    torch.manual_seed(0)
    layers = []
    for _ in range(6):
        layers += [nn.Linear(width, width), nn.GELU(), nn.LayerNorm(width)]
    model = nn.Sequential(*layers, nn.Linear(width, 1)).double()
    return model, torch.randn(16, width, dtype=torch.float64)


def train_once(cache, width):
    """Compiles into `cache` and checks one step against eager; exit 0
    when equal."""
    model, x = model_and_batch(width)
    reference = copy.deepcopy(model)
    step = trace_mlir.compile(model, (x,), cache_dir=cache)
    loss = step(x).square().mean()
    want = reference(x).square().mean()
    loss.backward()
    want.backward()
    same = torch.allclose(loss, want, rtol=1e-10, atol=0) and all(
        torch.allclose(a.grad, b.grad, rtol=1e-10, atol=1e-14)
        for a, b in zip(model.parameters(), reference.parameters()))
    return 0 if same else 1


def child(cache, width, go):
    while not os.path.exists(go):
        time.sleep(0.01)
    return train_once(cache, int(width))


def main():
    with tempfile.TemporaryDirectory() as work:
        cache, go = os.path.join(work, "shared"), os.path.join(work, "go")
        procs = [subprocess.Popen(
            [sys.executable, __file__, "--child", cache, "32", go],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            for _ in range(2)]
        time.sleep(2)  # both past their imports, waiting for `go`
        open(go, "w").close()
        outputs = [p.communicate(timeout=600)[0] for p in procs]
        codes = [p.returncode for p in procs]
        check("two processes compiling into one cache_dir at once: both "
              "steps equal eager's", codes == [0, 0],
              f"exit codes {codes}: {' | '.join(o[-300:] for o in outputs)}")
        libraries = glob.glob(os.path.join(cache, "*", "libstep.so"))
        check("one library is built for the two", len(libraries) == 1,
              str(libraries))

        cache = os.path.join(work, "killed")
        victim = subprocess.Popen(
            [sys.executable, __file__, "--child", cache, "48", go],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            start_new_session=True)
        # Killed once its trace-compile has the model (the .pt2 is written
        # just before trace-compile starts).
        deadline = time.time() + 120
        while not glob.glob(os.path.join(cache, "*.pt2")) and \
                time.time() < deadline and victim.poll() is None:
            time.sleep(0.01)
        time.sleep(0.5)
        running = victim.poll() is None
        os.killpg(victim.pid, signal.SIGKILL)
        victim.wait()
        check("the victim was killed while it compiled", running and not
              glob.glob(os.path.join(cache, "*", "step.module.json")))
        check("after a compile killed part-way, compiling again works and "
              "equals eager's", train_once(cache, 48) == 0)
    return summary()


if __name__ == "__main__":
    if sys.argv[1:2] == ["--child"]:
        sys.exit(child(*sys.argv[2:5]))
    sys.exit(main())
