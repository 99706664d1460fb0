"""Runs a function of our linalg export with IREE's runtime and compares
its results with trace-run's (test/Integration/IREE/*.test).

    run_iree.py IREE_RUN_MODULE GRAD.mlir FUNCTION MODULE.vmfb OURS_DIR

GRAD.mlir is the trace IR the export was made from: its signature names
each argument and result (trace.name, else argN / resultN), which is how
trace-run --out-dir names its .npy files. The inputs are trace-run's
(OURS_DIR/inputs/NAME.npy), passed to iree-run-module in order; each
result must equal OURS_DIR/NAME.npy: integers exactly, floats within
rtol 1e-4 and atol 1e-5 (float32; the two compilers order reductions
and fuse differently). Prints one PASS or FAIL line per result and
`N passed, N failed`; exits 1 on a FAIL.
"""

import os
import re
import subprocess
import sys
import tempfile

import numpy as np

RTOL, ATOL = 1e-4, 1e-5


def signature(path, function):
    """The argument and result names of `function` in trace IR."""
    text = open(path).read()
    start = text.index(f"func.func @{function}(")
    body = text.index("{\n", start)
    header = text[start:body]
    args_text, _, results_text = header.partition(") -> ")
    args = []
    for i, m in enumerate(re.finditer(r"%arg\d+: tensor<[^>]*>( \{[^}]*\})?",
                                      args_text)):
        name = re.search(r'trace\.name = "([^"]*)"', m.group(0))
        args.append(name.group(1) if name else f"arg{i}")
    results = []
    for i, m in enumerate(re.finditer(r"tensor<[^>]*>( \{[^}]*\})?",
                                      results_text)):
        name = re.search(r'trace\.name = "([^"]*)"', m.group(0))
        results.append(name.group(1) if name else f"result{i}")
    return args, results


def main():
    run_module, grad, function, vmfb, ours = sys.argv[1:6]
    args, results = signature(grad, function)
    failed = passed = 0
    with tempfile.TemporaryDirectory() as out:
        command = [run_module, f"--module={vmfb}", "--device=local-sync",
                   f"--function={function}"]
        command += [f"--input=@{os.path.join(ours, 'inputs', a + '.npy')}"
                    for a in args]
        command += [f"--output=@{os.path.join(out, str(i) + '.npy')}"
                    for i in range(len(results))]
        proc = subprocess.run(command, capture_output=True, text=True)
        if proc.returncode != 0:
            print(f"FAIL: iree-run-module exited {proc.returncode}: "
                  f"{proc.stderr.strip()[-2000:]}")
            return 1
        for i, name in enumerate(results):
            theirs = np.load(os.path.join(out, f"{i}.npy"))
            want = np.load(os.path.join(ours, f"{name}.npy"))
            if theirs.shape != want.shape or theirs.dtype != want.dtype:
                ok, detail = False, (f"{theirs.dtype}{list(theirs.shape)} "
                                     f"for {want.dtype}{list(want.shape)}")
            elif np.issubdtype(want.dtype, np.floating):
                err = float(np.max(np.abs(theirs - want), initial=0.0))
                ok = bool(np.allclose(theirs, want, rtol=RTOL, atol=ATOL))
                detail = f"max abs error {err:.2e}"
            else:
                ok, detail = bool(np.array_equal(theirs, want)), "exact"
            print(f"{'PASS' if ok else 'FAIL'}: {name} {detail}")
            passed += ok
            failed += not ok
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
