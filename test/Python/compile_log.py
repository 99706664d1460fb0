"""trace-compile's stage times, warnings and progress reach Python
(test/Python/compile_log.test).

  * logging.getLogger("trace_mlir") gets each stage's time at INFO as the
    compile runs, and the total;
  * an importer warning (a BatchNorm updating its statistics inside a
    checkpoint region) is a WARNING record there, and still a Python
    warning;
  * with no handler configured, a compile that runs past
    trace_mlir.compiler.PROGRESS_AFTER_S prints its stages to stderr;
    with one configured, nothing is printed;
  * a failing compile's TraceMLIRError holds the diagnostic, not the
    stage times;
  * the cache tells apart two widths of one model (one graph, other
    parameter shapes).
Prints one PASS or FAIL line per check and exits 1 if any failed.
"""

import contextlib
import io
import logging
import os
import sys
import tempfile
import warnings

import torch
import torch.nn as nn
import torch.utils.checkpoint as cp

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "python"))
import trace_mlir  # noqa: E402
import trace_mlir.compiler  # noqa: E402
from checks import check, summary  # noqa: E402


class MLP(nn.Module):
    def __init__(self, width=16):
        super().__init__()
        self.fc1 = nn.Linear(8, width)
        self.fc2 = nn.Linear(width, 4)

    def forward(self, x):
        return self.fc2(torch.tanh(self.fc1(x))).square().mean()


class CheckpointedNorm(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3)
        self.bn = nn.BatchNorm2d(4)

    def forward(self, x):
        h = cp.checkpoint(self.bn, self.conv(x), use_reentrant=False)
        return torch.relu(h).mean()


class Distances(nn.Module):
    def forward(self, x):
        return torch.cdist(x, x).sum()


class Records(logging.Handler):
    def __init__(self):
        super().__init__(logging.INFO)
        self.records = []

    def emit(self, record):
        self.records.append(record)


def main():
    log = logging.getLogger("trace_mlir")
    x = torch.randn(4, 8)
    with tempfile.TemporaryDirectory() as cache:
        handler = Records()
        log.addHandler(handler)
        log.setLevel(logging.INFO)
        try:
            trace_mlir.compile(MLP(), (x,), cache_dir=cache)
            messages = [r.getMessage() for r in handler.records]
            stages = [m for m in messages if m.startswith("trace-compile: ")
                      and m.endswith(" s")]
            check("stage times reach logging.getLogger('trace_mlir') at "
                  "INFO", any("import:" in m for m in stages) and
                  any("cpu-pipeline:" in m for m in stages) and
                  any("MLP compiled in" in m for m in messages),
                  f"{len(stages)} stage records")

            handler.records.clear()
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                trace_mlir.compile(CheckpointedNorm(),
                                   (torch.randn(2, 3, 6, 6),), cache_dir=cache)
            logged = [r for r in handler.records
                      if r.levelno == logging.WARNING and
                      "inside checkpoint regions" in r.getMessage()]
            warned = any("inside checkpoint regions" in str(w.message)
                         for w in caught)
            check("an importer warning is a WARNING record and a Python "
                  "warning", bool(logged) and warned,
                  logged[0].getMessage() if logged else "no record")

            stderr = io.StringIO()
            trace_mlir.compiler.PROGRESS_AFTER_S = 0.0
            with contextlib.redirect_stderr(stderr):
                trace_mlir.compile(MLP(24), (x,), cache_dir=cache)
            check("with a handler configured, the compile prints nothing",
                  stderr.getvalue() == "", repr(stderr.getvalue()[:80]))
        finally:
            log.removeHandler(handler)
            log.setLevel(logging.NOTSET)

        stderr = io.StringIO()
        with contextlib.redirect_stderr(stderr):
            trace_mlir.compile(MLP(32), (x,), cache_dir=cache)
        shown = stderr.getvalue().splitlines()
        check("without one, a long compile prints its stages to stderr",
              bool(shown) and shown[0] == "trace_mlir: compiling MLP" and
              any(s.strip().startswith("cpu-pipeline:") for s in shown),
              " | ".join(shown[:3]))

        # The cache key holds the parameters' shapes: MLP(16), MLP(24) and
        # MLP(32) have one graph but are three libraries.
        narrow, wide = MLP(16), MLP(32)
        a = trace_mlir.compile(narrow, (x,), cache_dir=cache)
        b = trace_mlir.compile(wide, (x,), cache_dir=cache)
        check("two widths of one model in one cache_dir are two libraries",
              a.directories != b.directories and
              torch.allclose(a(x), narrow(x)) and
              torch.allclose(b(x), wide(x)))

        try:
            trace_mlir.compile(Distances(), (x,), cache_dir=cache)
            check("a failing compile raises its diagnostic alone", False,
                  "it compiled")
        except trace_mlir.TraceMLIRError as e:
            text = str(e)
            check("a failing compile raises its diagnostic alone",
                  "_cdist_forward" in text and "import:" not in text,
                  text.splitlines()[0])
    return summary()


if __name__ == "__main__":
    sys.exit(main())
