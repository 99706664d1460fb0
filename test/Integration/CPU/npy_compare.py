"""What split_numerics.py, fuse_numerics.py and gpu_kernels_numerics.py
share: running a tool, and comparing .npy results."""

import subprocess
import sys

import numpy as np


def run(cmd):
    """Runs `cmd`; on failure prints it and its output and exits 1.
    Returns stdout and stderr together."""
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        sys.stderr.write(" ".join(cmd) + "\n" + proc.stdout + proc.stderr)
        sys.exit(1)
    return proc.stdout + proc.stderr


def worst_ratio(label, ours, ref, rtol, atol, against):
    """Largest |a - b| / (atol + rtol |b|) over the values named in `ref`
    (name -> .npy path; `ours` likewise). Exits naming the value if a dtype
    or shape differs, or if a ratio exceeds 1 (with rtol = atol = 0: if any
    value is not bit-identical). `against` names the reference in messages."""
    worst = 0.0
    for name in sorted(ref):
        a, b = np.load(ours[name]), np.load(ref[name])
        if a.shape != b.shape or a.dtype != b.dtype:
            sys.exit(f"{label}: {name}: {a.dtype}{a.shape} vs {b.dtype}{b.shape}")
        if np.array_equal(a, b):
            continue
        if rtol == 0 and atol == 0:
            sys.exit(f"{label}: {name} differs from {against}")
        a, b = a.astype(np.float64), b.astype(np.float64)
        ratio = float(np.max(np.abs(a - b) / (atol + rtol * np.abs(b))))
        worst = max(worst, ratio)
        if ratio > 1:
            sys.exit(f"{label}: {name} differs from {against} by "
                     f"{ratio:.3g} times the tolerance")
    return worst
