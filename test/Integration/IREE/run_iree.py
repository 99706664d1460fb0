"""Runs a function of our linalg export with IREE's runtime and compares
its results with trace-run's (test/Integration/IREE/*.test).

    run_iree.py IREE_RUN_MODULE GRAD.mlir FUNCTION MODULE.vmfb OURS_DIR
        [TRACE_RUN GRAD64.mlir]

GRAD.mlir is the trace IR the export was made from: its signature names
each argument and result (trace.name, else argN / resultN), which is how
trace-run --out-dir names its .npy files. The inputs are trace-run's
(OURS_DIR/inputs/NAME.npy), passed to iree-run-module in order; each
result must equal OURS_DIR/NAME.npy: integers exactly, floats within
rtol 1e-4 and atol 1e-5 (float32; the two compilers order reductions
and fuse differently). Prints one PASS or FAIL line per result and
`N passed, N failed`; exits 1 on a FAIL.

With TRACE_RUN and GRAD64.mlir (the same IR in float64), a float result
that misses those tolerances passes when IREE's is as close to the
float64 result (trace-run on the same inputs, in float64) as trace-run's
float32 one is, within the same tolerances: elements that cancel, where
either float32 order of summation is as good as the other. The float64
result must itself agree with trace-run's float32 one (rtol 1e-3), or
the result fails: a reference that differs cannot vouch for anything.
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
    reference = None
    if len(sys.argv) == 8:
        reference = float64_results(sys.argv[6], sys.argv[7], function,
                                    args, ours)
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
                if not ok and reference is not None:
                    exact = reference[name]
                    ours_err = np.abs(want.astype(np.float64) - exact)
                    if not np.allclose(want, exact, rtol=1e-3, atol=ATOL):
                        detail += "; the float64 result disagrees"
                    else:
                        ok = bool(np.all(
                            np.abs(theirs.astype(np.float64) - exact)
                            <= ATOL + RTOL * np.abs(exact) + ours_err))
                        detail += (", as close to float64 as trace-run's"
                                   if ok else ", farther from float64 than "
                                   "trace-run's")
            else:
                ok, detail = bool(np.array_equal(theirs, want)), "exact"
            print(f"{'PASS' if ok else 'FAIL'}: {name} {detail}")
            passed += ok
            failed += not ok
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


def float64_results(trace_run, grad64, function, args, ours):
    """`function` of GRAD64.mlir run by trace-run on OURS_DIR's inputs in
    float64: {result name: array}."""
    with tempfile.TemporaryDirectory() as out:
        command = [trace_run, grad64, f"--entry={function}",
                   f"--out-dir={out}", "--quiet"]
        for a in args:
            value = np.load(os.path.join(ours, "inputs", a + ".npy"))
            if value.dtype == np.float32:
                value = value.astype(np.float64)
            path = os.path.join(out, f"in.{a}.npy")
            np.save(path, value)
            command.append(f"--arg={a}={path}")
        subprocess.run(command, check=True)
        return {n[:-4]: np.load(os.path.join(out, n))
                for n in os.listdir(out) if n.endswith(".npy")
                and not n.startswith("in.")}


if __name__ == "__main__":
    sys.exit(main())
